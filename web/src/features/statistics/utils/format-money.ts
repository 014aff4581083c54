/** A currency amount with 2 decimals (spec section 9), the sign first: "$12.50", "-$3.00". */
export function formatMoney(value: number): string {
  return `${value < 0 ? '-' : ''}$${Math.abs(value).toFixed(2)}`
}
