import { currentLocale } from '@/i18n/language'

/**
 * A USDT amount with 2 decimals (spec section 9, currency; issue 33: USDT, not "$"), thousands
 * grouped by the current language, the sign first: "12.50 USDT", "-3.00 USDT", "10,000.00 USDT"
 * (ru: "10 000,00 USDT"). `decimals` for the places the spec asks 4.
 */
export function formatMoney(value: number, decimals = 2): string {
  const number = new Intl.NumberFormat(currentLocale(), {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(value)
  return `${number} USDT`
}

/** A number in the current language's format with `decimals` places (or up to `maxDecimals`). */
export function formatNumber(value: number, decimals: number, maxDecimals = decimals): string {
  return new Intl.NumberFormat(currentLocale(), {
    minimumFractionDigits: decimals,
    maximumFractionDigits: maxDecimals,
  }).format(value)
}

/**
 * A number format that follows the language: `format` uses the current language's locale at each
 * call (one Intl.NumberFormat per locale, made on first use), so a module may keep one.
 */
export function liveNumberFormat(options: Intl.NumberFormatOptions): { format: (value: number) => string } {
  const byLocale = new Map<string, Intl.NumberFormat>()
  return {
    format: (value) => {
      const locale = currentLocale()
      let format = byLocale.get(locale)
      if (!format) {
        format = new Intl.NumberFormat(locale, options)
        byLocale.set(locale, format)
      }
      return format.format(value)
    },
  }
}
