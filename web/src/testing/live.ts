import { act } from '@testing-library/react'
import type { Signal } from '@/types/api'
import { FakeWebSocket } from '@/testing/fake-web-socket'

/** Opens the app's live connection (the newest socket) and answers like the server would. */
export function openLive(): FakeWebSocket {
  const socket = FakeWebSocket.latest()
  act(() => {
    socket.open()
  })
  return socket
}

/** Delivers server messages to the app's newest socket. */
export function liveSend(...messages: unknown[]) {
  const socket = FakeWebSocket.latest()
  act(() => {
    for (const message of messages) socket.receive(message)
  })
}

let nextSignalId = 1000

/** A signal shaped like the server's (docs/websocket.md). */
export function signalRecord(
  symbol: string,
  recommendation = 'NEUTRAL',
  overrides: Partial<Signal> = {},
): Signal {
  nextSignalId += 1
  return {
    id: nextSignalId,
    symbol,
    recommendation,
    signal: recommendation,
    rating: recommendation,
    total: 0.1,
    ma: 0.2,
    osc: 0,
    candle_time: '2026-11-22T04:15:00Z',
    created_at: '2026-11-22T04:30:00Z',
    source: 'ratings',
    ...overrides,
  }
}
