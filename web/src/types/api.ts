/** Shapes shared by several features. Field names follow the server's JSON. */

export type User = {
  id: number
  username: string
}

/** Every error answer of the server: `{"error": "<sentence>"}`, plus `fields` on 400 validation errors. */
export type ErrorBody = {
  error?: string
  fields?: Record<string, string[]>
}

export type BotMode = 'classic' | 'martingale'

/** `[start hour, end hour]`, whole hours 0 to 23, in the user's time zone; end exclusive, may wrap midnight. */
export type HourRange = [number, number]

/** The trading settings record (spec section 3), one per user: GET /api/bot-settings/ lists it. */
export type BotSettings = {
  id: number
  is_bot_running: boolean
  is_signals_fetching_active: boolean
  bot_mode: BotMode
  max_trades: number
  max_total_usdt: number
  max_trade_usdt: number
  initial_stop_loss_pct: number
  take_profit_first_pct: number
  take_profit_next_pct: number
  use_trailing_stop: boolean
  trail_activation_pct: number | null
  trail_step_pct: number
  leverage: number
  reverse_mode: boolean
  telegram_id: string
  telegram_notify_deals: boolean
  telegram_notify_stats: boolean
  user_timezone: string
  martingale_max_depth: number
  martingale_max_active_chains: number
  martingale_step: number
  martingale_initial_margin: number
  forbidden_hours_enabled: boolean
  forbidden_hours: HourRange[]
  forbidden_days_enabled: boolean
  /** Weekday numbers 0 (Monday) to 6 (Sunday). */
  forbidden_days: number[]
}

/** What POST and PUT accept: every editable field (`bot_mode` alone is also a valid PUT). */
export type BotSettingsPayload = Partial<
  Omit<BotSettings, 'id' | 'is_bot_running' | 'is_signals_fetching_active'>
>

/** GET /api/bot/status/ and the `status` of a control answer. */
export type BotStatus = {
  is_bot_running: boolean
  is_signals_fetching_active: boolean
  bot_mode: BotMode
  open_trades?: number
  active_chains?: number
  venue?: string
  started_at?: string | null
  signal_worker?: 'running' | 'stopped'
  trading_worker?: 'running' | 'stopped'
}

/** An exchange API key as listed: the key comes fully masked, the secret never. */
export type ApiKey = {
  id: number
  key: string
  is_demo: boolean
  is_active: boolean
  created_at: string
}

/**
 * A signal (GET /api/signals/, and the `signals_update` / `signal` websocket messages).
 * `recommendation` and `signal` carry the same value (STRONG_BUY, STRONG_SELL or NEUTRAL); the
 * app reads it case-insensitively and treats anything else as NEUTRAL (spec section 3).
 */
export type Signal = {
  id: number
  symbol: string
  recommendation: string
  signal: string
  /** The five-level rating: STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL. */
  rating: string
  total: number | null
  ma: number | null
  osc: number | null
  /** RFC 3339, UTC: open time of the rated candle. */
  candle_time: string
  created_at: string
  /** `ratings` or `webhook`. */
  source: string
}

export type LogLevel = 'info' | 'warning' | 'error'

/** A bot log entry (GET /api/logs/ and the `new_log` websocket message). */
export type LogEntry = {
  id: number
  /** RFC 3339, UTC. */
  timestamp: string
  level: LogLevel
  message: string
}

/** The `balance` websocket message's data (spec section 3: the live names). */
export type Balance = {
  equity: number
  available_balance: number
  margin_balance: number
}

/** An open position, as the `orders` websocket message lists them. */
export type Position = {
  symbol: string
  side: 'long' | 'short'
  qty: number
  entry_price: number
  mark_price: number
  leverage: number
  margin: number
  unrealized_pnl: number
  liquidation_price: number
  stop_loss: number | null
  take_profit: number | null
  trailing_stop_price: number | null
  /** RFC 3339, UTC. */
  opened_at: string
}

/** The `bot_status` websocket message's data. */
export type LiveBotStatus = {
  status: 'running' | 'stopped'
  is_bot_running: boolean
  is_signals_fetching_active: boolean
  bot_mode: BotMode
  open_trades: number
  active_chains: number
  venue: string
  started_at: string | null
}

/** The `statistics` websocket message's data (spec section 3, Live statistics). */
export type LiveStatistics = {
  total_trades: number
  winning_trades: number
  losing_trades: number
  win_rate: number
  total_profit: number
  average_profit: number
  max_drawdown: number
}

/** GET /api/webhook/: whether the user has a TradingView webhook URL (the URL is never shown again). */
export type WebhookStatus = {
  configured: boolean
  /** RFC 3339, UTC: when the current URL was made; null when there is none. */
  created_at: string | null
}

/**
 * POST /api/webhook/: a new webhook URL. `path` holds the secret and is answered only this once;
 * the app keeps it in component state, never in the query cache or localStorage.
 */
export type NewWebhook = {
  /** `/api/webhook/<secret>/`, to put after the page's origin. */
  path: string
  created_at: string
}

export type TradeSide = 'long' | 'short'
export type TradeStatus = 'PENDING' | 'OPEN' | 'CLOSED' | 'CANCELLED'

/** A trade of the bot, as GET /api/trades/ lists it (the server's TradeView). */
export type Trade = {
  id: number
  symbol: string
  side: TradeSide
  status: TradeStatus
  quantity: number
  /** What is still open (take profits close parts of the position). */
  open_quantity: number
  leverage: number
  margin: number
  entry_price: number | null
  exit_price: number | null
  /** Realized pnl, net of fees. */
  pnl: number
  fees: number
  stop_loss: number | null
  take_profits_taken: number
  /** stop_loss, take_profit, trailing, manual, liquidation, reconciled, rejected or not_filled. */
  close_reason: string | null
  chain_id: number | null
  chain_step: number | null
  signal: { id: number | null; at: string | null; price: number | null }
  latency_ms: number | null
  slippage_pct: number | null
  /** RFC 3339, UTC. */
  created_at: string
  opened_at: string | null
  closed_at: string | null
}

/** One page of GET /api/trades/, newest first. */
export type TradePage = {
  /** Trades matching the filters, over all pages. */
  count: number
  page: number
  page_size: number
  results: Trade[]
}

/** One step of a martingale chain in POST /api/bot-settings/risk-preview/. */
export type RiskPreviewStep = {
  step: number
  margin: number
  /** margin x leverage. */
  notional: number
  /** This step's margin and every one before it. */
  cumulative_margin: number
  /** How far the price may move against the position before liquidation, in percent. */
  liquidation_distance_pct: number
  stop_before_liquidation: boolean
}

/** POST /api/bot-settings/risk-preview/: the martingale risk of the settings sent (nothing is saved). */
export type RiskPreview = {
  steps: RiskPreviewStep[]
  /** Sentences to read before starting. */
  warnings: string[]
  /** The wallet the warnings were checked against; null when the venue did not answer. */
  wallet_balance: number | null
}
