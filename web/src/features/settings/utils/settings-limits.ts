import contract from '../../../../openapi.json'

/**
 * The settings' bounds, read from the server's OpenAPI document (the server writes them from
 * the very table it validates with, crates/core/src/settings.rs SETTINGS_BOUNDS), so the form
 * and the server cannot disagree. docs/rules.md says why each bound is what it is.
 */
const settings = contract.components.schemas.BotSettings.properties

/** Counts up to a million, amounts up to a billion: guards against a typo of many digits. */
export const MAX_COUNT = settings.max_trades.maximum
export const MAX_AMOUNT = settings.max_total_usdt.maximum
/** The smallest count, amount in USDT and percentage accepted. */
export const MIN_COUNT = settings.max_trades.minimum
export const MIN_USDT = settings.max_total_usdt.minimum
export const MIN_PCT = settings.take_profit_first_pct.minimum
export const MIN_LEVERAGE = settings.leverage.minimum
export const MAX_LEVERAGE = settings.leverage.maximum
export const TELEGRAM_ID_MAX_CHARS = settings.telegram_id.maxLength
/** The stop loss steps by 0.01 (spec section 5): this many decimal places. */
export const STOP_LOSS_DECIMALS = Math.round(-Math.log10(settings.initial_stop_loss_pct.multipleOf))
/** A chain of at most 20 steps, a stop loss strictly below 100 %, at most 24 forbidden-hour intervals. */
export const MAX_MARTINGALE_DEPTH = settings.martingale_max_depth.maximum
export const STOP_LOSS_PCT_BELOW = settings.initial_stop_loss_pct.exclusiveMaximum
export const MAX_FORBIDDEN_HOURS = settings.forbidden_hours.maxItems
/** The circuit breakers (0 turns each off) and the losses-in-a-row pause, in minutes. */
export const MAX_DAILY_LOSS_PCT = settings.daily_loss_limit_pct.maximum
export const MAX_LOSSES_IN_ROW = settings.max_losses_in_row.maximum
export const MIN_LOSSES_PAUSE_MINUTES = settings.losses_pause_minutes.minimum
export const MAX_LOSSES_PAUSE_MINUTES = settings.losses_pause_minutes.maximum
