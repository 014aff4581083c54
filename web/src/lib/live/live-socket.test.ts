import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  LIVE_HEARTBEAT_INTERVAL_MS,
  LIVE_MAX_RECONNECT_ATTEMPTS,
  LIVE_RECONNECT_BASE_DELAY_MS,
  LIVE_SLOW_RETRY_MS,
} from '@/lib/live/constants'
import {
  LiveSocket,
  liveUrl,
  reconnectDelay,
  type LiveSocketOptions,
  type LiveStatus,
} from '@/lib/live/live-socket'
import type { ServerMessage } from '@/lib/live/messages'
import { FakeWebSocket } from '@/testing/fake-web-socket'

const URL = 'ws://desk.test/ws/dashboard/'

function setup(token: string | null = 'the-token', extra: Pick<LiveSocketOptions, 'onLostSinceChange'> = {}) {
  const messages: ServerMessage[] = []
  const statuses: LiveStatus[] = []
  const socket = new LiveSocket({
    url: URL,
    getToken: () => token,
    onMessage: (message) => messages.push(message),
    onStatusChange: (status) => statuses.push(status),
    createTransport: (url) => new FakeWebSocket(url),
    ...extra,
  })
  return { socket, messages, statuses }
}

const sockets = () => FakeWebSocket.instances

describe('live socket', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })

  afterEach(() => {
    vi.useRealTimers()
  })

  it('connects to the URL and sends authenticate with the stored token on open', () => {
    const { socket, statuses } = setup('abc123')
    socket.start()
    expect(sockets()).toHaveLength(1)
    expect(FakeWebSocket.latest().url).toBe(URL)
    expect(socket.getStatus()).toBe('disconnected')
    expect(FakeWebSocket.latest().sent).toEqual([])

    FakeWebSocket.latest().open()
    expect(FakeWebSocket.latest().sentJson()).toEqual([{ action: 'authenticate', token: 'abc123' }])
    expect(socket.getStatus()).toBe('connected')
    expect(statuses).toEqual(['connected'])
  })

  it('reads the token at each open, so a reconnect sends the current one', () => {
    let token = 'first'
    const socket = new LiveSocket({
      url: URL,
      getToken: () => token,
      onMessage: () => undefined,
      createTransport: (url) => new FakeWebSocket(url),
    })
    socket.start()
    FakeWebSocket.latest().open()
    token = 'second'
    FakeWebSocket.latest().drop()
    vi.advanceTimersByTime(LIVE_RECONNECT_BASE_DELAY_MS)
    FakeWebSocket.latest().open()
    expect(FakeWebSocket.latest().sentJson()).toEqual([{ action: 'authenticate', token: 'second' }])
  })

  it('sends get_signals once after authentication, on every (re)connect', () => {
    const { socket } = setup('abc123')
    socket.start()
    FakeWebSocket.latest().open()
    const user = { id: 1, username: 'trader' }
    FakeWebSocket.latest().receive({ type: 'authenticated', user })
    // A second `authenticated` (the cookie at upgrade, then the token) asks nothing more.
    FakeWebSocket.latest().receive({ type: 'authenticated', user })
    expect(FakeWebSocket.latest().sentJson()).toEqual([
      { action: 'authenticate', token: 'abc123' },
      { action: 'get_signals' },
    ])

    FakeWebSocket.latest().drop()
    vi.advanceTimersByTime(LIVE_RECONNECT_BASE_DELAY_MS)
    FakeWebSocket.latest().open()
    expect(FakeWebSocket.latest().sentJson()).toEqual([{ action: 'authenticate', token: 'abc123' }])
    FakeWebSocket.latest().receive({ type: 'authenticated', user })
    expect(FakeWebSocket.latest().sentJson()).toEqual([
      { action: 'authenticate', token: 'abc123' },
      { action: 'get_signals' },
    ])
  })

  it('goes disconnected on close', () => {
    const { socket, statuses } = setup()
    socket.start()
    FakeWebSocket.latest().open()
    FakeWebSocket.latest().drop()
    expect(socket.getStatus()).toBe('disconnected')
    expect(statuses).toEqual(['connected', 'disconnected'])
  })

  it('reconnects after 1000, 2000, 4000, 8000 and 16000 ms, then every 30 s without giving up', () => {
    expect(LIVE_RECONNECT_BASE_DELAY_MS).toBe(1000)
    expect(LIVE_MAX_RECONNECT_ATTEMPTS).toBe(5)
    expect(LIVE_SLOW_RETRY_MS).toBe(30_000)
    const { socket } = setup()
    socket.start()
    FakeWebSocket.latest().drop()

    for (const delay of [1000, 2000, 4000, 8000, 16000, 30_000, 30_000, 30_000]) {
      const before = sockets().length
      vi.advanceTimersByTime(delay - 1)
      expect(sockets()).toHaveLength(before)
      vi.advanceTimersByTime(1)
      expect(sockets()).toHaveLength(before + 1)
      FakeWebSocket.latest().drop()
    }
    // The first connection, the spec's 5 attempts and 3 more, 30 s apart.
    expect(sockets()).toHaveLength(9)
    expect(socket.getStatus()).toBe('disconnected')
    // Back: the count starts again from 1 s.
    vi.advanceTimersByTime(30_000)
    FakeWebSocket.latest().open()
    expect(socket.getStatus()).toBe('connected')
    FakeWebSocket.latest().drop()
    const before = sockets().length
    vi.advanceTimersByTime(1000)
    expect(sockets()).toHaveLength(before + 1)
  })

  it('retryNow() connects at once while waiting, and does nothing while open', () => {
    const { socket } = setup()
    socket.start()
    FakeWebSocket.latest().open()
    socket.retryNow()
    expect(sockets()).toHaveLength(1)
    FakeWebSocket.latest().drop()
    for (const delay of [1000, 2000, 4000, 8000, 16000]) {
      vi.advanceTimersByTime(delay)
      FakeWebSocket.latest().drop()
    }
    expect(sockets()).toHaveLength(6)
    // Waiting 30 s for the next try: the focus or the network coming back tries now.
    socket.retryNow()
    expect(sockets()).toHaveLength(7)
    FakeWebSocket.latest().open()
    // The 30 s timer was cleared: no second connection.
    vi.advanceTimersByTime(60_000)
    expect(sockets()).toHaveLength(7)
  })

  it('keeps when the connection was lost until it opens again', () => {
    vi.setSystemTime(new Date('2026-11-27T10:00:00Z'))
    const losses: (number | null)[] = []
    const { socket } = setup('the-token', { onLostSinceChange: (at) => losses.push(at) })
    socket.start()
    FakeWebSocket.latest().open()
    expect(socket.getLostSince()).toBeNull()
    vi.setSystemTime(new Date('2026-11-27T10:05:00Z'))
    FakeWebSocket.latest().drop()
    const lost = Date.parse('2026-11-27T10:05:00Z')
    expect(socket.getLostSince()).toBe(lost)
    // Failed attempts do not move it.
    vi.advanceTimersByTime(1000)
    FakeWebSocket.latest().drop()
    expect(socket.getLostSince()).toBe(lost)
    vi.advanceTimersByTime(2000)
    FakeWebSocket.latest().open()
    expect(socket.getLostSince()).toBeNull()
    expect(losses).toEqual([lost, null])
  })

  it('resets the attempt count after a successful open', () => {
    const { socket } = setup()
    socket.start()
    FakeWebSocket.latest().drop()
    vi.advanceTimersByTime(1000)
    FakeWebSocket.latest().drop()
    vi.advanceTimersByTime(2000)
    expect(sockets()).toHaveLength(3)
    expect(socket.getAttempts()).toBe(2)

    FakeWebSocket.latest().open()
    expect(socket.getAttempts()).toBe(0)
    FakeWebSocket.latest().drop()

    // Back to the first delay, not 4000 ms.
    vi.advanceTimersByTime(999)
    expect(sockets()).toHaveLength(3)
    vi.advanceTimersByTime(1)
    expect(sockets()).toHaveLength(4)
  })

  it('gets 5 fresh attempts again after each successful open', () => {
    const { socket } = setup()
    socket.start()
    for (let round = 0; round < 2; round += 1) {
      FakeWebSocket.latest().open()
      FakeWebSocket.latest().drop()
      for (let attempt = 0; attempt < LIVE_MAX_RECONNECT_ATTEMPTS; attempt += 1) {
        vi.advanceTimersByTime(reconnectDelay(attempt))
        if (attempt < LIVE_MAX_RECONNECT_ATTEMPTS - 1) FakeWebSocket.latest().drop()
      }
    }
    // Per round: the opened socket and 5 attempts; the last attempt of round 1 opened round 2.
    expect(sockets()).toHaveLength(11)
  })

  it('sends a ping every 30 seconds while open, and none after a close', () => {
    expect(LIVE_HEARTBEAT_INTERVAL_MS).toBe(30000)
    const { socket } = setup()
    socket.start()
    const first = FakeWebSocket.latest()

    // Not before the socket is open.
    vi.advanceTimersByTime(60000)
    first.open()
    const pings = () => first.sentJson().filter((frame) => JSON.stringify(frame) === '{"action":"ping"}')

    vi.advanceTimersByTime(29999)
    expect(pings()).toHaveLength(0)
    vi.advanceTimersByTime(1)
    expect(pings()).toHaveLength(1)
    vi.advanceTimersByTime(60000)
    expect(pings()).toHaveLength(3)

    first.drop()
    vi.advanceTimersByTime(120000)
    expect(pings()).toHaveLength(3)
  })

  it('stop() closes the socket and never reconnects', () => {
    const { socket, statuses } = setup()
    socket.start()
    const first = FakeWebSocket.latest()
    first.open()
    socket.stop()
    expect(first.closedByClient).toBe(1000)
    expect(socket.getStatus()).toBe('disconnected')
    expect(statuses).toEqual(['connected', 'disconnected'])
    vi.advanceTimersByTime(10 * 60 * 1000)
    expect(sockets()).toHaveLength(1)
    expect(first.sent).toHaveLength(1) // authenticate only: the heartbeat stopped too
  })

  it('stop() during a reconnect wait cancels the attempt', () => {
    const { socket } = setup()
    socket.start()
    FakeWebSocket.latest().drop()
    socket.stop()
    vi.advanceTimersByTime(60000)
    expect(sockets()).toHaveLength(1)
  })

  it('hands valid messages to onMessage, typed', () => {
    const { socket, messages } = setup()
    socket.start()
    FakeWebSocket.latest().open()
    FakeWebSocket.latest().receive({
      type: 'balance',
      data: { equity: 1000.5, available_balance: 900, margin_balance: 1000.5 },
    })
    FakeWebSocket.latest().receive({ type: 'pong' })
    expect(messages).toEqual([
      { type: 'balance', data: { equity: 1000.5, available_balance: 900, margin_balance: 1000.5 } },
      { type: 'pong' },
    ])
  })

  it('only console.warns about invalid messages', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const { socket, messages, statuses } = setup()
    socket.start()
    FakeWebSocket.latest().open()
    FakeWebSocket.latest().receive('not json {')
    FakeWebSocket.latest().receive({ type: 'balance', data: { equity: 'a lot' } })
    FakeWebSocket.latest().receive({ type: 'no_such_type' })
    FakeWebSocket.latest().receive({ no: 'type' })
    expect(messages).toEqual([])
    expect(warn).toHaveBeenCalledTimes(4)
    // The connection carries on.
    expect(statuses).toEqual(['connected'])
    expect(socket.getStatus()).toBe('connected')
  })

  it('sends get_signals and get_trades only while open', () => {
    const { socket } = setup()
    socket.start()
    expect(socket.send({ action: 'get_signals' })).toBe(false)
    FakeWebSocket.latest().open()
    expect(socket.send({ action: 'get_signals' })).toBe(true)
    expect(socket.send({ action: 'get_trades' })).toBe(true)
    expect(FakeWebSocket.latest().sentJson().slice(1)).toEqual([
      { action: 'get_signals' },
      { action: 'get_trades' },
    ])
  })

  it('sends no authenticate without a stored token (the session cookie authenticates)', () => {
    const { socket } = setup(null)
    socket.start()
    FakeWebSocket.latest().open()
    expect(FakeWebSocket.latest().sent).toEqual([])
    expect(socket.getStatus()).toBe('connected')
  })
})

describe('live URL', () => {
  it('uses the page host under /ws/dashboard/, wss on https', () => {
    expect(liveUrl({ protocol: 'http:', host: 'localhost:5173' }, undefined)).toBe(
      'ws://localhost:5173/ws/dashboard/',
    )
    expect(liveUrl({ protocol: 'https:', host: 'desk.example.com' }, undefined)).toBe(
      'wss://desk.example.com/ws/dashboard/',
    )
  })

  it('takes VITE_WS_URL when it is set', () => {
    expect(liveUrl({ protocol: 'https:', host: 'desk.example.com' }, 'wss://feed.example.com/ws/')).toBe(
      'wss://feed.example.com/ws/',
    )
    expect(liveUrl({ protocol: 'http:', host: 'h' }, '  ')).toBe('ws://h/ws/dashboard/')
  })

  it('grows the reconnect delay as 1000 ms * 2^attempt', () => {
    expect([0, 1, 2, 3, 4].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000])
  })
})
