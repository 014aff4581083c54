import type { BacktestRun } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'

/**
 * What sets a run apart, for a run without a label in the runs list: its changed settings, its
 * symbols, signal source, data and swept settings; "saved settings" when nothing differs. Two runs
 * over the same dates no longer look the same.
 */
export function runSummary(run: Pick<BacktestRun, 'kind' | 'request'>): string {
  const { request } = run
  const parts: string[] = []
  for (const [field, value] of Object.entries(request.overrides ?? {})) {
    parts.push(`${overrideLabel(field)} ${String(value)}`)
  }
  const swept = (request.sweep ?? []).map((axis) => overrideLabel(axis.field))
  if (swept.length > 0) parts.push(`${s.ranWithSwept}: ${swept.join(' × ')}`)
  if (request.symbols && request.symbols.length > 0) parts.push(request.symbols.join(', '))
  if (request.source === 'alerts') parts.push(s.sources.alerts)
  if (request.data === 'bybit') parts.push(s.dataBybit)
  return parts.length > 0 ? parts.join(' · ') : s.savedValue
}
