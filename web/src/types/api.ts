/**
 * The server's shapes under the names the app uses. Every one is a schema of the OpenAPI
 * document (web/openapi.json, written by `signaldesk openapi`), typed by openapi-typescript
 * into openapi.gen.ts during the build; nothing here restates a field. `make openapi`
 * refreshes both files after a server change, and CI fails when either is stale.
 */
import type { components } from './openapi.gen'

type Schemas = components['schemas']

export type User = Schemas['UserView']
/** GET /api/auth/me/: the user, whether two-factor login is on, and the recovery codes left. */
export type Me = Schemas['MeView']
/** POST /api/auth/2fa/setup/: the TOTP secret and its otpauth:// URL (for the QR code), shown once. */
export type TwoFactorSetup = Schemas['TwoFactorSetup']
/** POST /api/auth/2fa/enable/: 2FA is on; the ten recovery codes, shown once. */
export type TwoFactorEnabled = Schemas['TwoFactorEnabled']
export type TwoFactorDisabled = Schemas['TwoFactorDisabled']
/** One of the user's sessions (GET /api/auth/sessions/). */
export type SessionInfo = Schemas['SessionView']
export type PasswordChange = Schemas['PasswordChange']
/** How many sessions a revoke or a password change ended. */
export type Revoked = Schemas['RevokedResponse']
/** One row of the user's audit log (GET /api/audit-log/); `action` is a stable snake_case name. */
export type AuditEntry = Schemas['AuditEntryView']
/** A page of the audit log, newest first; `next_before` asks for the next, null on the last. */
export type AuditPage = Schemas['AuditLogPage']
/** Every error answer of the server: `{"error": "<sentence>"}`, plus `fields` on 400 validation errors. */
export type ErrorBody = Schemas['ErrorBody']
export type BotMode = Schemas['BotMode']
/** The trading settings record (spec section 3), one per user: GET /api/bot-settings/ lists it. */
export type BotSettings = Schemas['SettingsView']
/** What POST and PUT accept: any editable field (`bot_mode` alone is also a valid PUT). */
export type BotSettingsPayload = Schemas['SettingsInput']
/** An IANA time zone name the server accepts for `user_timezone`. */
export type TimeZone = Schemas['BotSettings']['user_timezone']
/** `[start hour, end hour]`, whole hours 0 to 23, in the user's time zone; end exclusive, may wrap midnight. */
export type HourRange = Schemas['BotSettings']['forbidden_hours'][number]
/** GET /api/bot/status/ and the `status` of a control answer. */
export type BotStatus = Schemas['BotStatus']
export type NotTradingReason = Schemas['NotTradingReason']
/** Why a running bot opens no position: the reason, the server's English sentence and its facts. */
export type NotTrading = Schemas['NotTrading']
/**
 * An exchange API key as listed: the key comes fully masked, the secret never; its permissions
 * and IP addresses as the exchange reported them at the last check (null until checked, and for
 * paper keys).
 */
export type ApiKey = Schemas['ApiKeyView']
/** Set Active's answer: the key, and `warning` (e.g. no IP allow-list) to show, or null. */
export type ActivatedApiKey = Schemas['ActivatedKeyView']
/** The exchange an API key trades on: `bybit` (demo or real by `is_demo`) or `paper`. */
export type ApiKeyExchange = ApiKey['exchange']
/**
 * Where a user's bot trades (`BotStatus.venue`) or where a trade was made (`Trade.venue`, null for
 * trades from before venues were recorded): the paper exchange, Bybit demo trading or Bybit mainnet.
 */
export type Venue = Schemas['Venue']
export type VenueEnvironment = Venue['environment']
/** A signal (GET /api/signals/, and the `signals_update` / `signal` websocket messages). */
export type Signal = Schemas['SignalView']
/** A bot log entry (GET /api/logs/ and the `new_log` websocket message). */
export type LogEntry = Schemas['LogView']
export type LogLevel = LogEntry['level']
/** The `balance` websocket message's data (spec section 3: the live names). */
export type Balance = Schemas['BalanceView']
/** An open position, as the `orders` websocket message lists them. */
export type Position = Schemas['PositionView']
/** The `bot_status` websocket message's data. */
export type LiveBotStatus = Schemas['BotStatusView']
/** Every message of the live feed (docs/websocket.md), told apart by `type`. */
export type LiveServerMessage = Schemas['ServerMessage']
/** Every action a client of the live feed sends, told apart by `action`. */
export type LiveClientMessage = Schemas['ClientMessage']
/** The `statistics` websocket message's data and GET /api/statistics/ (spec section 3). */
export type LiveStatistics = Schemas['LiveStatistics']
/** GET /api/webhook/: whether the user has a TradingView webhook URL (the URL is never shown again). */
export type WebhookStatus = Schemas['WebhookStatus']
/**
 * POST /api/webhook/: a new webhook URL. `path` holds the secret and is answered only this once;
 * the app keeps it in component state, never in the query cache or localStorage.
 */
export type NewWebhook = Schemas['NewWebhook']
/** A trade of the bot, as GET /api/trades/ lists it. */
export type Trade = Schemas['TradeView']
/** GET /api/trades/search/: a page of the Trades page, its account, zone, count and next cursor. */
export type TradeSearchPage = Schemas['TradeSearchPage']
export type TradeSide = Trade['side']
export type TradeStatus = Trade['status']
/** One page of GET /api/trades/, newest first. */
export type TradePage = Schemas['TradePage']
/** One step of a martingale chain in POST /api/bot-settings/risk-preview/. */
export type RiskPreviewStep = Schemas['RiskStep']
/** POST /api/bot-settings/risk-preview/: the martingale risk of the settings sent (nothing is saved). */
export type RiskPreview = Schemas['RiskPreviewView']
export type Credentials = Schemas['Credentials']
/** POST /api/auth/login/ and /api/auth/register/: a token and the user. */
export type AuthResponse = Schemas['LoginResponse']
export type NewApiKey = Schemas['NewApiKey']
/** A bot control answer: a sentence and the status after it. */
export type BotControlResponse = Schemas['ControlResponse']
/** GET /api/dashboard/ (spec section 3, Dashboard response). Money in USDT. */
export type DashboardResponse = Schemas['DashboardView']
/** One trade of a martingale chain. */
export type ChainTrade = Schemas['ChainTradeView']
/** One martingale chain (spec section 3, Chain). */
export type Chain = Schemas['ChainView']
export type ChainsResponse = Schemas['ChainsAnswer']
/** GET /api/stats/ (spec section 3, Stats response); `win_rate` is a percent. */
export type StatsResponse = Schemas['StatsView']
export type WeekdayRow = Schemas['WeekdayRowView']
export type HourRow = Schemas['HourRowView']
export type HeatmapCell = Schemas['HeatmapCellView']
export type EquitySample = Schemas['EquityPointView']
export type CloseAllTradesAnswer = Schemas['CloseAllAnswer']
/** A backtest (GET /api/backtests/ and /api/backtests/{id}/); `result` once done, in the latter. */
export type Backtest = Schemas['BacktestView']
/** What POST /api/backtests/ takes. */
export type BacktestInput = Schemas['BacktestInput']
/** A finished backtest's figures, trades and chains. */
export type BacktestResult = Schemas['BacktestResult']
/** A finished walk-forward: its windows, the chained out-of-sample curve and totals. */
export type WalkForwardResult = Schemas['WalkForwardResult']
export type WalkWindow = Schemas['WalkWindowView']
export type WalkForwardInput = Schemas['WalkForwardInput']

/** GET /api/parity/: live trades vs a backtest of the same signals (docs/parity.md). */
export type ParityReport = Schemas['ParityReport']
export type ParityRow = Schemas['ParityRow']
export type ParitySide = Schemas['ParitySide']

/** An alert, raised or cleared (GET /api/alerts/ and the `alert` live message). */
export type Alert = Schemas['AlertView']
/** A notification channel as lists show it: URL masked, secret never included. */
export type NotificationChannel = Schemas['ChannelView']
export type NotificationChannelKind = 'telegram' | 'discord' | 'email' | 'webhook'
export type NewNotificationChannel = Schemas['ChannelInput']
export type ChannelTestResult = Schemas['TestResult']

/*
 * A trade's chart (GET /api/backtests/{id}/trades/{trade_id}/chart/ and the live trades' twin):
 * the candles of the trade's symbol around it, with its entry, take profits and exit. Written by
 * hand (TradeChartView with `kind` narrowed to the three the server sends).
 */

/** One candle; `time` is its opening, Unix milliseconds. */
export type TradeChartCandle = {
  time: number
  open: number
  high: number
  low: number
  close: number
}

export type TradeChartMarkerKind = 'entry' | 'take_profit' | 'exit'

/** Where the trade did something: `time` in Unix milliseconds, at `price`. */
export type TradeChartMarker = {
  time: number
  kind: TradeChartMarkerKind
  price: number
  /** E.g. "Entry 95000". */
  label: string
}

/** The answer: candles oldest first; 404 when the run or the trade is not the user's. */
export type TradeChart = {
  symbol: string
  interval_minutes: number
  candles: TradeChartCandle[]
  markers: TradeChartMarker[]
}
