import { z } from 'zod'
import type {
  Alert,
  Balance,
  LiveBotStatus,
  LiveClientMessage,
  LiveServerMessage,
  LiveStatistics,
  LogEntry,
  Position,
  Signal,
  User,
  Venue,
} from '@/types/api'

/**
 * The messages of the live feed, exactly as docs/websocket.md words them. Every frame the server
 * sends is checked against `serverMessageSchema`; one that is not JSON or does not match is
 * logged with console.warn and dropped (spec section 8: "Invalid live message: logged only,
 * nothing shown"). `satisfies` keeps each schema in step with the OpenAPI document's
 * `ServerMessage` and its parts (src/types/api.ts): a message changed on the server fails tsc here.
 */

const signalFields = {
  id: z.number(),
  symbol: z.string().min(1),
  recommendation: z.string(),
  signal: z.string(),
  rating: z.string(),
  total: z.number().nullable(),
  ma: z.number().nullable(),
  osc: z.number().nullable(),
  candle_time: z.string(),
  created_at: z.string(),
  source: z.string(),
}

export const signalSchema = z.object(signalFields) satisfies z.ZodType<Signal>

export const logEntrySchema = z.object({
  id: z.number(),
  timestamp: z.string(),
  level: z.enum(['info', 'warning', 'error']),
  message: z.string(),
}) satisfies z.ZodType<LogEntry>

const userSchema = z.object({ id: z.number(), username: z.string() }) satisfies z.ZodType<User>

const balanceSchema = z.object({
  equity: z.number(),
  available_balance: z.number(),
  margin_balance: z.number(),
}) satisfies z.ZodType<Balance>

const positionSchema = z.object({
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  qty: z.number(),
  entry_price: z.number(),
  mark_price: z.number(),
  leverage: z.number(),
  margin: z.number(),
  unrealized_pnl: z.number(),
  liquidation_price: z.number(),
  stop_loss: z.number().nullable(),
  take_profit: z.number().nullable(),
  trailing_stop_price: z.number().nullable(),
  opened_at: z.string(),
}) satisfies z.ZodType<Position>

const venueSchema = z.object({
  exchange: z.enum(['paper', 'bybit']),
  environment: z.enum(['paper', 'demo', 'real']),
}) satisfies z.ZodType<Venue>

const workerStateSchema = z.enum(['running', 'stopped', 'unknown'])

const botStatusSchema = z.object({
  status: workerStateSchema,
  is_bot_running: z.boolean(),
  is_signals_fetching_active: z.boolean(),
  bot_mode: z.enum(['classic', 'martingale']),
  open_trades: z.number(),
  active_chains: z.number(),
  venue: venueSchema,
  started_at: z.string().nullable(),
  signal_worker: workerStateSchema,
  trading_worker: workerStateSchema,
  runs_on: z
    .object({
      instance: z.string(),
      here: z.boolean(),
      answering: z.boolean(),
      renewed_ms_ago: z.number(),
      taken_over_within_ms: z.number().nullable(),
    })
    .nullable(),
  not_trading: z
    .object({
      reason: z.enum([
        'worker_stopped',
        'out_of_sync',
        'signals_inactive',
        'circuit_breaker',
        'forbidden_window',
        'limit_reached',
      ]),
      detail: z.string(),
      facts: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('none') }),
        z.object({ kind: z.literal('cause'), text: z.string() }),
        z.object({ kind: z.literal('forbidden_day'), weekday: z.number(), timezone: z.string() }),
        z.object({
          kind: z.literal('forbidden_hours'),
          local_time: z.string(),
          start: z.number(),
          end: z.number(),
          timezone: z.string(),
        }),
        z.object({ kind: z.literal('open_positions'), open: z.number(), max: z.number() }),
        z.object({ kind: z.literal('open_chains'), open: z.number(), max: z.number() }),
      ]),
    })
    .nullable()
    .default(null),
}) satisfies z.ZodType<LiveBotStatus>

const statisticsSchema = z.object({
  total_trades: z.number(),
  winning_trades: z.number(),
  losing_trades: z.number(),
  win_rate: z.number(),
  total_profit: z.number(),
  average_profit: z.number(),
  max_drawdown: z.number(),
}) satisfies z.ZodType<LiveStatistics>

const alertSchema = z.object({
  id: z.number(),
  kind: z.string(),
  title: z.string(),
  detail: z.string(),
  action: z.string(),
  raised_at: z.string(),
  cleared_at: z.string().nullable(),
  active: z.boolean(),
}) satisfies z.ZodType<Alert>

/** Every server message by `type` (docs/websocket.md, "Server messages"). */
export const serverMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('authenticated'), user: userSchema }),
  z.object({ type: z.literal('signals_update'), signals: z.array(signalSchema) }),
  /** The signal object's fields at the top level. */
  z.object({ type: z.literal('signal'), ...signalFields }),
  z.object({ type: z.literal('balance'), data: balanceSchema }),
  z.object({ type: z.literal('orders'), data: z.array(positionSchema) }),
  z.object({ type: z.literal('bot_status'), data: botStatusSchema }),
  z.object({ type: z.literal('new_log'), data: logEntrySchema }),
  z.object({ type: z.literal('statistics'), data: statisticsSchema }),
  z.object({ type: z.literal('alert'), data: alertSchema }),
  z.object({ type: z.literal('pong') }),
  z.object({ type: z.literal('error'), error: z.string() }),
]) satisfies z.ZodType<LiveServerMessage>

export type ServerMessage = z.infer<typeof serverMessageSchema>

/** True when A and B name the same values: each is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/**
 * The parser reads exactly the contract's messages: a field the server adds, drops or retypes
 * fails tsc here (`satisfies` above alone would let the parser keep a field the server dropped).
 */
export const parserMatchesContract: Same<ServerMessage, LiveServerMessage> = true
export type ServerMessageType = ServerMessage['type']
export type SignalMessage = Extract<ServerMessage, { type: 'signal' }>

/** What the client sends (docs/websocket.md, "Client actions"): the document's `ClientMessage`. */
export type ClientMessage = LiveClientMessage

/** The signal a `signal` message carries, without its `type`. */
export function signalOf(message: SignalMessage): Signal {
  const { id, symbol, recommendation, signal, rating, total, ma, osc, candle_time, created_at, source } =
    message
  return { id, symbol, recommendation, signal, rating, total, ma, osc, candle_time, created_at, source }
}

/**
 * Parses one frame. Anything that is not a text frame of JSON matching a server message gives
 * null after a console.warn; nothing is shown to the trader.
 */
export function parseServerMessage(data: unknown): ServerMessage | null {
  if (typeof data !== 'string') {
    console.warn('Live feed: ignored a frame that is not text')
    return null
  }
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    console.warn('Live feed: ignored a frame that is not JSON:', data.slice(0, 200))
    return null
  }
  const result = serverMessageSchema.safeParse(json)
  if (!result.success) {
    console.warn('Live feed: ignored an invalid message:', z.prettifyError(result.error))
    return null
  }
  return result.data
}
