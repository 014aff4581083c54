import { z } from 'zod'
import type { BotMode, BotSettings, BotSettingsPayload, TimeZone } from '@/types/api'
import { settingsStrings } from '@/features/settings/strings'
import { formatForbiddenHours, parseForbiddenHours } from '@/features/settings/utils/forbidden-hours'
import { formatSymbols, parseSymbols } from '@/features/settings/utils/symbols'
import {
  MAX_AMOUNT,
  MAX_COUNT,
  MAX_DAILY_LOSS_PCT,
  MAX_FORBIDDEN_HOURS,
  MAX_LOSSES_IN_ROW,
  MAX_LOSSES_PAUSE_MINUTES,
  MIN_LOSSES_PAUSE_MINUTES,
  MAX_LEVERAGE,
  MAX_MARTINGALE_DEPTH,
  MIN_COUNT,
  MIN_LEVERAGE,
  MIN_PCT,
  MIN_USDT,
  STOP_LOSS_DECIMALS,
  STOP_LOSS_PCT_BELOW,
  TELEGRAM_ID_MAX_CHARS,
} from '@/features/settings/utils/settings-limits'

/**
 * The settings form: its values (what the inputs hold: numbers as typed text), the zod schema that
 * checks them exactly as the server does (spec section 5 plus the server's guards against typos)
 * and turns them into the PUT payload.
 */

const v = settingsStrings.validation

export {
  MAX_DAILY_LOSS_PCT,
  MAX_LOSSES_IN_ROW,
  MAX_LOSSES_PAUSE_MINUTES,
  MIN_LOSSES_PAUSE_MINUTES,
  MIN_COUNT,
  MIN_PCT,
  MIN_USDT,
  MAX_AMOUNT,
  MAX_COUNT,
  MAX_FORBIDDEN_HOURS,
  MAX_LEVERAGE,
  MAX_MARTINGALE_DEPTH,
  MIN_LEVERAGE,
  STOP_LOSS_DECIMALS,
  STOP_LOSS_PCT_BELOW,
  TELEGRAM_ID_MAX_CHARS,
}

/** Digits after the decimal point once trailing zeros are dropped: "1.50" -> 1, "1e-3" -> 3. */
export function decimalPlaces(text: string): number {
  const match = /^[+-]?\d*(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim())
  if (!match) return Number.POSITIVE_INFINITY
  const fraction = (match[1] ?? '').replace(/0+$/, '')
  return Math.max(0, fraction.length - Number(match[2] ?? 0))
}

/**
 * The spec's defaults (section 3), for a user with no record yet, and what an emptied number field
 * is replaced by on save ("empty values replaced by defaults", spec section 5). The spec gives
 * trail_activation_pct no default; the server's is 1.0 (DESIGN.md section 5), so the form's is too.
 */
export const DEFAULT_SETTINGS: Omit<BotSettings, 'id' | 'is_bot_running' | 'is_signals_fetching_active'> = {
  bot_mode: 'classic',
  max_trades: 3,
  max_total_usdt: 1000,
  max_trade_usdt: 100,
  initial_stop_loss_pct: 5,
  take_profit_first_pct: 10,
  take_profit_next_pct: 10,
  use_trailing_stop: true,
  trail_activation_pct: 1,
  trail_step_pct: 0.5,
  leverage: 10,
  reverse_mode: false,
  telegram_id: '',
  telegram_notify_deals: true,
  telegram_notify_stats: true,
  user_timezone: 'Europe/Moscow',
  martingale_max_depth: 4,
  martingale_max_active_chains: 1,
  martingale_step: 2,
  martingale_initial_margin: 2,
  forbidden_hours_enabled: false,
  forbidden_hours: [],
  forbidden_days_enabled: false,
  forbidden_days: [],
  symbols: [],
  unprotected_action: 'close',
  daily_loss_limit_pct: 0,
  max_losses_in_row: 0,
  losses_pause_minutes: 60,
}

type NumberRule = {
  min: number
  max: number
  integer?: boolean
  decimals?: number
  /** The value must be strictly below this. */
  below?: number
}

/** The number typed, or the message saying what is wrong with it. */
export function checkNumber(text: string, rule: NumberRule): { value: number } | { error: string } {
  if (text === '') return { error: v.required }
  const value = Number(text)
  if (!Number.isFinite(value)) return { error: v.number }
  if (rule.integer && !Number.isInteger(value)) return { error: v.integer }
  if (value < rule.min) return { error: v.min(rule.min) }
  if (value > rule.max) return { error: v.max(rule.max) }
  if (rule.below !== undefined && value >= rule.below) return { error: v.below(rule.below) }
  if (rule.decimals !== undefined && decimalPlaces(text) > rule.decimals)
    return { error: v.decimals(rule.decimals) }
  return { value }
}

function numberTransform<T>(rule: NumberRule, whenEmpty: () => T | undefined) {
  return z.string().transform((raw, ctx): number | T => {
    const text = raw.trim()
    const empty = text === '' ? whenEmpty() : undefined
    if (empty !== undefined) return empty
    const checked = checkNumber(text, rule)
    if ('error' in checked) {
      ctx.issues.push({ code: 'custom', message: checked.error, input: raw })
      return z.NEVER
    }
    return checked.value
  })
}

/** A number typed into an input; left empty, it is replaced by `fallback` (its default). */
const numberField = (rule: NumberRule, fallback: number) => numberTransform<number>(rule, () => fallback)

const count = (fallback: number) => numberField({ min: MIN_COUNT, max: MAX_COUNT, integer: true }, fallback)
const usdt = (fallback: number) => numberField({ min: MIN_USDT, max: MAX_AMOUNT }, fallback)
const pct = (fallback: number) => numberField({ min: MIN_PCT, max: MAX_AMOUNT }, fallback)
const d = DEFAULT_SETTINGS

const common = z.object({
  max_trades: count(d.max_trades),
  max_total_usdt: usdt(d.max_total_usdt),
  max_trade_usdt: usdt(d.max_trade_usdt),
  initial_stop_loss_pct: numberField(
    { min: MIN_PCT, max: MAX_AMOUNT, below: STOP_LOSS_PCT_BELOW, decimals: STOP_LOSS_DECIMALS },
    d.initial_stop_loss_pct,
  ),
  take_profit_first_pct: pct(d.take_profit_first_pct),
  take_profit_next_pct: pct(d.take_profit_next_pct),
  use_trailing_stop: z.boolean(),
  trail_activation_pct: pct(d.trail_activation_pct),
  trail_step_pct: pct(d.trail_step_pct),
  leverage: numberField({ min: MIN_LEVERAGE, max: MAX_LEVERAGE, integer: true }, d.leverage),
  reverse_mode: z.boolean(),
  telegram_id: z
    .string()
    .trim()
    .max(TELEGRAM_ID_MAX_CHARS, { error: () => v.tooLong(TELEGRAM_ID_MAX_CHARS) }),
  telegram_notify_deals: z.boolean(),
  telegram_notify_stats: z.boolean(),
  // Any name the server knows (it refuses the rest with a field error).
  user_timezone: z
    .string()
    .trim()
    .min(1, { error: () => v.required })
    .transform((zone) => zone as TimeZone),
  forbidden_hours_enabled: z.boolean(),
  forbidden_hours: z
    .string()
    .transform(parseForbiddenHours)
    .refine((ranges) => ranges.length <= MAX_FORBIDDEN_HOURS, {
      error: () => v.tooManyIntervals(MAX_FORBIDDEN_HOURS),
    }),
  forbidden_days_enabled: z.boolean(),
  forbidden_days: z
    .array(z.number().int().min(0).max(6))
    .transform((days) => [...new Set(days)].sort((a, b) => a - b)),
  // Not in the spec: the symbols rating signals trade; empty sends [] (every symbol).
  symbols: z.string().transform(parseSymbols),
  // Not in the spec: the protection check and the circuit breakers (0 turns a breaker off).
  unprotected_action: z.enum(['close', 'alert']),
  daily_loss_limit_pct: numberField({ min: 0, max: MAX_DAILY_LOSS_PCT }, 0),
  max_losses_in_row: numberField({ min: 0, max: MAX_LOSSES_IN_ROW, integer: true }, 0),
  losses_pause_minutes: numberField(
    { min: MIN_LOSSES_PAUSE_MINUTES, max: MAX_LOSSES_PAUSE_MINUTES, integer: true },
    60,
  ),
})

/** Martingale fields are checked and sent only in martingale mode (they are hidden otherwise). */
const martingaleFields = {
  martingale_max_depth: numberField(
    { min: MIN_COUNT, max: MAX_MARTINGALE_DEPTH, integer: true },
    d.martingale_max_depth,
  ),
  martingale_max_active_chains: count(d.martingale_max_active_chains),
  martingale_step: pct(d.martingale_step),
  martingale_initial_margin: pct(d.martingale_initial_margin),
}
const keptMartingaleFields = {
  martingale_max_depth: z.string(),
  martingale_max_active_chains: z.string(),
  martingale_step: z.string(),
  martingale_initial_margin: z.string(),
}

export const settingsFormSchema = z
  .discriminatedUnion('bot_mode', [
    common.extend({ bot_mode: z.literal('classic'), ...keptMartingaleFields }),
    common.extend({ bot_mode: z.literal('martingale'), ...martingaleFields }),
  ])
  .transform((values): BotSettingsPayload => {
    if (values.bot_mode === 'martingale') return values
    // Classic mode: the martingale texts are left out (the stored values stay as they are).
    return Object.fromEntries(Object.entries(values).filter(([field]) => !(field in keptMartingaleFields)))
  })

export type SettingsFormValues = z.input<typeof settingsFormSchema>
export type SettingsFormField = keyof SettingsFormValues

const text = (value: number | null) => (value === null ? '' : String(value))

/** A stored record (or the defaults) as the form shows it. */
export function toFormValues(
  record: Omit<BotSettings, 'id' | 'is_bot_running' | 'is_signals_fetching_active'>,
): SettingsFormValues {
  const mode: BotMode = record.bot_mode === 'martingale' ? 'martingale' : 'classic'
  return {
    bot_mode: mode,
    max_trades: text(record.max_trades),
    max_total_usdt: text(record.max_total_usdt),
    max_trade_usdt: text(record.max_trade_usdt),
    initial_stop_loss_pct: text(record.initial_stop_loss_pct),
    take_profit_first_pct: text(record.take_profit_first_pct),
    take_profit_next_pct: text(record.take_profit_next_pct),
    use_trailing_stop: record.use_trailing_stop,
    trail_activation_pct: text(record.trail_activation_pct),
    trail_step_pct: text(record.trail_step_pct),
    leverage: text(record.leverage),
    reverse_mode: record.reverse_mode,
    telegram_id: record.telegram_id,
    telegram_notify_deals: record.telegram_notify_deals,
    telegram_notify_stats: record.telegram_notify_stats,
    user_timezone: record.user_timezone,
    martingale_max_depth: text(record.martingale_max_depth),
    martingale_max_active_chains: text(record.martingale_max_active_chains),
    martingale_step: text(record.martingale_step),
    martingale_initial_margin: text(record.martingale_initial_margin),
    forbidden_hours_enabled: record.forbidden_hours_enabled,
    forbidden_hours: formatForbiddenHours(record.forbidden_hours),
    forbidden_days_enabled: record.forbidden_days_enabled,
    forbidden_days: [...record.forbidden_days],
    symbols: formatSymbols(record.symbols),
    unprotected_action: record.unprotected_action === 'alert' ? 'alert' : 'close',
    daily_loss_limit_pct: text(record.daily_loss_limit_pct ?? 0),
    max_losses_in_row: text(record.max_losses_in_row ?? 0),
    losses_pause_minutes: text(record.losses_pause_minutes ?? 60),
  }
}
