/**
 * A stand-in for the browser's WebSocket: records what the app sends and lets a test open, feed
 * and close the connection. `setup-tests.ts` installs it as the global WebSocket for every test,
 * so no test ever opens a real socket.
 */
export class FakeWebSocket {
  static readonly CONNECTING = 0
  static readonly OPEN = 1
  static readonly CLOSING = 2
  static readonly CLOSED = 3

  /** Every socket made since the last `reset()`, oldest first. */
  static instances: FakeWebSocket[] = []

  static reset() {
    FakeWebSocket.instances = []
  }

  /** The newest socket; throws when none was made. */
  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances.at(-1)
    if (!socket) throw new Error('No WebSocket was opened')
    return socket
  }

  readonly url: string
  readyState = FakeWebSocket.CONNECTING
  /** Frames the app sent, as strings. */
  readonly sent: string[] = []
  /** The code of a close the app asked for; undefined while it has not closed the socket. */
  closedByClient: number | undefined

  onopen: ((event: Event) => void) | null = null
  onclose: ((event: CloseEvent) => void) | null = null
  onmessage: ((event: MessageEvent) => void) | null = null
  onerror: ((event: Event) => void) | null = null

  constructor(url: string) {
    this.url = url
    FakeWebSocket.instances.push(this)
  }

  send(data: string) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('InvalidStateError: the socket is not open')
    this.sent.push(data)
  }

  close(code = 1000) {
    if (this.readyState === FakeWebSocket.CLOSED) return
    this.closedByClient = code
    this.readyState = FakeWebSocket.CLOSED
    this.onclose?.(new CloseEvent('close', { code, wasClean: true }))
  }

  /** The frames the app sent, parsed. */
  sentJson(): unknown[] {
    return this.sent.map((frame) => JSON.parse(frame) as unknown)
  }

  // What the server (the test) does.

  open() {
    this.readyState = FakeWebSocket.OPEN
    this.onopen?.(new Event('open'))
  }

  /** Sends a message to the app: objects as JSON, strings as they are. */
  receive(message: unknown) {
    const data = typeof message === 'string' ? message : JSON.stringify(message)
    this.onmessage?.(new MessageEvent('message', { data }))
  }

  /** The server or the network ends the connection (an error, then a close, like a browser). */
  drop(code = 1006) {
    if (this.readyState === FakeWebSocket.CLOSED) return
    this.readyState = FakeWebSocket.CLOSED
    this.onerror?.(new Event('error'))
    this.onclose?.(new CloseEvent('close', { code, wasClean: false }))
  }
}
