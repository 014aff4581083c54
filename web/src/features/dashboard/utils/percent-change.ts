import { liveNumberFormat } from '@/lib/format-number'
/** Up or down against 24 hours ago; zero counts as up (nothing fell). */
export type Trend = 'up' | 'down'

export type Change = { percent: number; trend: Trend }

/**
 * The change of `now` against `before` in percent. There is none (null) when the earlier figure is
 * missing or 0: a change from nothing has no percent, so no Infinity or NaN is ever shown.
 */
export function percentChange(now: number, before: number | null): Change | null {
  if (before === null || before === 0 || !Number.isFinite(before) || !Number.isFinite(now)) return null
  const percent = ((now - before) / Math.abs(before)) * 100
  return { percent, trend: percent < 0 ? 'down' : 'up' }
}

const percentFormat = liveNumberFormat({
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
  signDisplay: 'exceptZero',
})

/** A change as "+25.0%", "-12.5%", "0.0%" (1 decimal, sign first). */
export function formatChange(change: Change): string {
  return `${percentFormat.format(change.percent)}%`
}
