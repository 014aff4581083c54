import { accessSync, constants, existsSync } from 'node:fs'
import { join } from 'node:path'
import { distDir, serverBin } from './paths'

/** Fails early, with the fix, when the web build or the server binary is missing. */
export default function globalSetup() {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`No web build at ${distDir}: run \`npm run build\` first (\`npm run e2e\` does).`)
  }
  try {
    accessSync(serverBin, constants.X_OK)
  } catch {
    throw new Error(
      `No server binary at ${serverBin}: run \`cargo build -p signaldesk-server\` in the repository root, ` +
        'or set SIGNALDESK_BIN.',
    )
  }
}
