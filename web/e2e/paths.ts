import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** web/ */
export const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** The production build the server serves with --static-dir. */
export const distDir = resolve(webDir, 'dist')
/** The server binary: $SIGNALDESK_BIN, else ../target/debug/signaldesk relative to web/. */
export const serverBin = resolve(webDir, process.env.SIGNALDESK_BIN ?? '../target/debug/signaldesk')
