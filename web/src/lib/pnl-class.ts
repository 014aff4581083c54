/** Green for a positive amount, red for a negative one, nothing for zero or none. */
export function pnlClass(pnl: number | null): string | undefined {
  if (pnl === null || pnl === 0) return undefined
  return pnl > 0 ? 'text-success' : 'text-destructive'
}
