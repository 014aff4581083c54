const moneyFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })

/**
 * A USDT amount in dollars with 2 decimals (spec section 9, currency), thousands grouped, the sign
 * first: "$12.50", "$10,000.00", "-$3.00".
 */
export function formatMoney(value: number): string {
  return `${value < 0 ? '-' : ''}$${moneyFormat.format(Math.abs(value))}`
}
