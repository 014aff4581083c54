import { describe, expect, it, vi } from 'vitest'
import { parseServerMessage, signalOf, type ServerMessage } from '@/lib/live/messages'

const signal = {
  id: 41,
  symbol: 'BTCUSDT',
  recommendation: 'STRONG_BUY',
  signal: 'STRONG_BUY',
  rating: 'STRONG_BUY',
  total: 0.62,
  ma: 0.87,
  osc: null,
  candle_time: '2026-11-22T04:15:00Z',
  created_at: '2026-11-22T04:30:00Z',
  source: 'ratings',
}

/** One example of every server message of docs/websocket.md. */
const examples: ServerMessage[] = [
  { type: 'authenticated', user: { id: 1, username: 'trader' } },
  { type: 'signals_update', signals: [signal] },
  { type: 'signal', ...signal },
  { type: 'balance', data: { equity: 1010.25, available_balance: 900, margin_balance: 1010.25 } },
  {
    type: 'orders',
    data: [
      {
        symbol: 'ETHUSDT',
        side: 'short',
        qty: 0.5,
        entry_price: 3000,
        mark_price: 2990.5,
        leverage: 10,
        margin: 150,
        unrealized_pnl: 4.75,
        liquidation_price: 3270,
        stop_loss: 3015,
        take_profit: null,
        trailing_stop_price: null,
        opened_at: '2026-11-22T04:30:00Z',
      },
    ],
  },
  {
    type: 'bot_status',
    data: {
      status: 'running',
      is_bot_running: true,
      is_signals_fetching_active: true,
      bot_mode: 'classic',
      open_trades: 1,
      active_chains: 0,
      venue: { exchange: 'bybit', environment: 'real' },
      started_at: '2026-11-22T04:00:00Z',
      signal_worker: 'running',
      trading_worker: 'running',
      runs_on: {
        instance: 'host-a',
        here: false,
        answering: true,
        renewed_ms_ago: 800,
        taken_over_within_ms: null,
      },
      not_trading: {
        reason: 'limit_reached',
        detail: '3 positions are open (max_trades 3)',
        facts: { kind: 'open_positions', open: 3, max: 3 },
      },
    },
  },
  {
    type: 'new_log',
    data: { id: 9, timestamp: '2026-11-22T04:30:01Z', level: 'warning', message: 'Skipped ETHUSDT' },
  },
  {
    type: 'statistics',
    data: {
      total_trades: 10,
      winning_trades: 6,
      losing_trades: 4,
      win_rate: 60,
      total_profit: 12.5,
      average_profit: 1.25,
      max_drawdown: 3.2,
    },
  },
  { type: 'pong' },
  { type: 'error', error: 'Unknown action.' },
]

describe('live messages', () => {
  it.each(examples.map((message) => [message.type, message] as const))('parses %s', (_, message) => {
    const warn = vi.spyOn(console, 'warn')
    expect(parseServerMessage(JSON.stringify(message))).toEqual(message)
    expect(warn).not.toHaveBeenCalled()
  })

  it('keeps a signal message as the signal without its type', () => {
    const parsed = parseServerMessage(JSON.stringify({ type: 'signal', ...signal }))
    expect(parsed?.type).toBe('signal')
    if (parsed?.type === 'signal') expect(signalOf(parsed)).toEqual(signal)
  })

  it.each([
    ['not JSON', '{"type": "pong"'],
    ['not an object', '42'],
    ['no type', JSON.stringify({ data: {} })],
    ['an unknown type', JSON.stringify({ type: 'trade_opened' })],
    ['a balance without numbers', JSON.stringify({ type: 'balance', data: { equity: '1000' } })],
    ['a signal without a symbol', JSON.stringify({ type: 'signal', ...signal, symbol: undefined })],
    [
      'a log of an unknown level',
      JSON.stringify({
        type: 'new_log',
        data: { id: 9, timestamp: '2026-11-22T04:30:01Z', level: 'debug', message: 'x' },
      }),
    ],
    ['a bot status without flags', JSON.stringify({ type: 'bot_status', data: { status: 'running' } })],
    [
      'a bot status with a venue that is a bare name (the shape before venues were per user)',
      JSON.stringify({
        type: 'bot_status',
        data: { ...(examples.find((m) => m.type === 'bot_status') as { data: object }).data, venue: 'paper' },
      }),
    ],
    ['signals that are not a list', JSON.stringify({ type: 'signals_update', signals: signal })],
  ])('warns about %s and gives null', (_, frame) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(parseServerMessage(frame)).toBeNull()
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('warns about a frame that is not text', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(parseServerMessage(new ArrayBuffer(4))).toBeNull()
    expect(warn).toHaveBeenCalledTimes(1)
  })
})
