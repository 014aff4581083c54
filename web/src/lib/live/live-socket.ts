import {
  LIVE_HEARTBEAT_INTERVAL_MS,
  LIVE_MAX_RECONNECT_ATTEMPTS,
  LIVE_PATH,
  LIVE_RECONNECT_BASE_DELAY_MS,
  LIVE_SLOW_RETRY_MS,
} from '@/lib/live/constants'
import { parseServerMessage, type ClientMessage, type ServerMessage } from '@/lib/live/messages'

/** Spec section 4: disconnected to connected on open, back to disconnected on close. */
export type LiveStatus = 'connected' | 'disconnected'

/** The part of the browser's WebSocket the live socket uses (tests pass a fake). */
export type LiveTransport = {
  readonly readyState: number
  onopen: ((event: Event) => void) | null
  onclose: ((event: CloseEvent) => void) | null
  onmessage: ((event: MessageEvent) => void) | null
  onerror: ((event: Event) => void) | null
  send(data: string): void
  close(code?: number, reason?: string): void
}

const OPEN = 1
/** The close code the client uses when it ends the connection itself (logout, unmount). */
const NORMAL_CLOSURE = 1000

/**
 * The feed's address: `VITE_WS_URL` when it was set at build time, else the page's own host under
 * /ws/dashboard/, `wss:` when the page is served over HTTPS.
 */
export function liveUrl(
  location: Pick<Location, 'protocol' | 'host'> = window.location,
  override: string | undefined = import.meta.env.VITE_WS_URL,
): string {
  if (override?.trim()) return override.trim()
  const protocol = location.protocol === 'https:' ? 'wss:' : 'ws:'
  return `${protocol}//${location.host}${LIVE_PATH}`
}

/** The wait before reconnect attempt `attempt` (0-based): 1000 ms * 2^attempt. */
export function reconnectDelay(attempt: number): number {
  return LIVE_RECONNECT_BASE_DELAY_MS * 2 ** attempt
}

export type LiveSocketOptions = {
  url: string
  /** Read on every open, so a reconnect sends the token stored at that moment. */
  getToken: () => string | null
  onMessage: (message: ServerMessage) => void
  onStatusChange?: (status: LiveStatus) => void
  /** When the connection was lost (ms since the epoch), or null once it is open again. */
  onLostSinceChange?: (lostSince: number | null) => void
  /** Opens the connection; the browser's WebSocket unless a test passes a fake. */
  createTransport?: (url: string) => LiveTransport
}

/**
 * One connection to the live feed (docs/websocket.md), with the rules of spec sections 4 and 9:
 *
 * - on open: `{"action":"authenticate","token":…}`, status connected, reconnect count reset, and
 *   `{"action":"ping"}` every 30 s while open;
 * - on the first `authenticated` answer of each connection (spec section 7): `{"action":"get_signals"}`,
 *   so every (re)connect asks for the whole signals list;
 * - on close: status disconnected and, unless `stop()` was called, a new connection after
 *   1 s, 2 s, 4 s, 8 s, 16 s (the spec's 5 attempts), then every 30 s for as long as it takes
 *   (issue 33), and at once on `retryNow()` (the window's focus, the browser back online);
 * - the time the connection was lost is kept until it opens again (`onLostSinceChange`);
 * - every frame is parsed (an invalid one is only logged) and handed to `onMessage`.
 */
export class LiveSocket {
  private readonly options: LiveSocketOptions
  private transport: LiveTransport | null = null
  private attempts = 0
  private running = false
  private status: LiveStatus = 'disconnected'
  private lostSince: number | null = null
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined

  constructor(options: LiveSocketOptions) {
    this.options = options
  }

  /** Connects (again after a stop). */
  start(): void {
    if (this.running) return
    this.running = true
    this.attempts = 0
    this.connect()
  }

  /** Closes the connection for good: no reconnect until `start()`. */
  stop(): void {
    this.running = false
    clearTimeout(this.reconnectTimer)
    this.reconnectTimer = undefined
    this.setLostSince(null)
    this.stopHeartbeat()
    const transport = this.transport
    this.transport = null
    if (transport) {
      transport.onopen = null
      transport.onmessage = null
      transport.onerror = null
      transport.onclose = null
      transport.close(NORMAL_CLOSURE)
    }
    this.setStatus('disconnected')
  }

  /** Sends a client action; false when the connection is not open (nothing is queued). */
  send(message: ClientMessage): boolean {
    const transport = this.transport
    if (transport?.readyState !== OPEN) return false
    transport.send(JSON.stringify(message))
    return true
  }

  getStatus(): LiveStatus {
    return this.status
  }

  /** Connects now if it is waiting to reconnect (the window got the focus, the browser is online). */
  retryNow(): void {
    if (!this.running || this.transport !== null || this.reconnectTimer === undefined) return
    clearTimeout(this.reconnectTimer)
    this.connect()
  }

  /** When the connection was lost, or null while it is open (and before the first close). */
  getLostSince(): number | null {
    return this.lostSince
  }

  /** Reconnect attempts made since the last successful open. */
  getAttempts(): number {
    return this.attempts
  }

  private connect(): void {
    this.reconnectTimer = undefined
    const create = this.options.createTransport ?? ((url: string) => new WebSocket(url))
    let transport: LiveTransport
    try {
      transport = create(this.options.url)
    } catch (error) {
      // An address the browser refuses (a bad VITE_WS_URL) would fail the same way again.
      console.warn('Live feed: cannot open', this.options.url, error)
      return
    }
    this.transport = transport
    // Set until this connection's first `authenticated` answer (cookie or token).
    let awaitingAuth = true

    transport.onopen = () => {
      this.attempts = 0
      this.setLostSince(null)
      const token = this.options.getToken()
      // Without a stored token the session cookie sent with the upgrade authenticates.
      if (token) this.send({ action: 'authenticate', token })
      this.startHeartbeat()
      this.setStatus('connected')
    }
    transport.onmessage = (event) => {
      const message = parseServerMessage(event.data)
      if (!message) return
      if (message.type === 'authenticated' && awaitingAuth) {
        awaitingAuth = false
        this.send({ action: 'get_signals' })
      }
      this.options.onMessage(message)
    }
    // An error is always followed by a close, which does the work.
    transport.onerror = () => undefined
    transport.onclose = () => {
      if (this.transport !== transport) return
      this.transport = null
      this.stopHeartbeat()
      this.setStatus('disconnected')
      if (this.lostSince === null) this.setLostSince(Date.now())
      this.scheduleReconnect()
    }
  }

  private scheduleReconnect(): void {
    if (!this.running) return
    const delay =
      this.attempts < LIVE_MAX_RECONNECT_ATTEMPTS ? reconnectDelay(this.attempts) : LIVE_SLOW_RETRY_MS
    this.attempts += 1
    this.reconnectTimer = setTimeout(() => {
      this.connect()
    }, delay)
  }

  private startHeartbeat(): void {
    this.stopHeartbeat()
    this.heartbeatTimer = setInterval(() => {
      this.send({ action: 'ping' })
    }, LIVE_HEARTBEAT_INTERVAL_MS)
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeatTimer)
    this.heartbeatTimer = undefined
  }

  private setLostSince(lostSince: number | null): void {
    if (this.lostSince === lostSince) return
    this.lostSince = lostSince
    this.options.onLostSinceChange?.(lostSince)
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return
    this.status = status
    this.options.onStatusChange?.(status)
  }
}
