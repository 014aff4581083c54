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
