import { currentLocale } from '@/i18n/language'

/**
 * The one number formatter of the app (issue 33 point 7): every figure shown is formatted here, in
 * the current language's locale (en-US: "1,234.50", ru-RU: "1 234,50" with a no-break space), with
 * a fixed number of decimals as the spec asks (win rate 1, PnL 2, the chain table 4).
 */

/** One Intl.NumberFormat per locale and options, made on first use. */
const formats = new Map<string, Intl.NumberFormat>()

function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const locale = currentLocale()
  const key = `${locale} ${JSON.stringify(options)}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale, options)
    formats.set(key, format)
  }
  return format
}

/** `value` with `decimals` places (or from `decimals` up to `maxDecimals`), thousands grouped. */
export function formatNumber(value: number, decimals: number, maxDecimals = decimals): string {
  return numberFormat({ minimumFractionDigits: decimals, maximumFractionDigits: maxDecimals }).format(value)
}

/** A whole count, grouped the language's way ("12,345" in English, "12 345" in Russian). */
export function formatCount(value: number): string {
  return formatNumber(value, 0)
}

/**
 * A figure that is already in percent (12.5 for 12.5 %) with `decimals` places, written the
 * language's way: "12.50%" in English, "12,50 %" in Russian.
 */
export function formatPercent(value: number, decimals: number): string {
  return numberFormat({
    style: 'percent',
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(value / 100)
}

/**
 * A number format with other options (a sign shown, significant digits) that follows the language:
 * `format` reads the current language's locale at each call, so a module may keep one.
 */
export function liveNumberFormat(options: Intl.NumberFormatOptions): { format: (value: number) => string } {
  return { format: (value) => numberFormat(options).format(value) }
}

/** A price: at least 2 decimals, up to the 8 an exchange quotes ("65,000.50", "0.00012345"). */
export function formatPrice(value: number): string {
  return formatNumber(value, 2, 8)
}
