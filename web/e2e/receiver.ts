import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Received = {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The raw body bytes, as the signature covers them. */
  body: Buffer
}

/**
 * A local HTTP receiver for webhook channels: records every request and answers `status`
 * (settable), on a free port of 127.0.0.1.
 */
export type Receiver = {
  url: string
  received: Received[]
  status: number
  close: () => Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const state = { status: 200 }
  const received: Received[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      })
      response.writeHead(state.status, { 'Content-Type': 'text/plain' })
      response.end(state.status < 300 ? 'ok' : 'broken')
    })
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    get status() {
      return state.status
    },
    set status(code: number) {
      state.status = code
    },
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections()
        server.close(() => {
          closed()
        })
      }),
  }
}

/** A port of 127.0.0.1 nothing listens on: bound, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((closed) =>
    server.close(() => {
      closed()
    }),
  )
  return port
}

/** `sha256=<hex>` of HMAC-SHA256 of `body` under `secret`, as docs/alerts.md says a receiver checks. */
export function signature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}
