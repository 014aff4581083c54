import { formatNumber } from '@/lib/format-number'

/**
 * A USDT amount with 2 decimals (spec section 9, currency; issue 33: USDT, not "$"), thousands
 * grouped by the current language, the sign first: "12.50 USDT", "-3.00 USDT", "10,000.00 USDT"
 * (ru: "10 000,00 USDT"). `decimals` for the places the spec asks 4.
 */
export function formatMoney(value: number, decimals = 2): string {
  return `${formatNumber(value, decimals)} USDT`
}
