import type { SweepField } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'

/** The settings a run may change (empty: the saved value), which are also what a sweep may vary. */
export const OVERRIDES = [
  { key: 'initial_stop_loss_pct', label: s.stopLoss, step: '0.01', integer: false },
  { key: 'take_profit_first_pct', label: s.takeProfit, step: '0.01', integer: false },
  { key: 'leverage', label: s.leverage, step: '1', integer: true },
] as const satisfies readonly { key: SweepField; label: string; step: string; integer: boolean }[]

export type OverrideKey = (typeof OVERRIDES)[number]['key']

export function isOverrideKey(value: string): value is OverrideKey {
  return OVERRIDES.some((override) => override.key === value)
}

/** A setting's label as the form shows it; the API name for one it does not know. */
export function overrideLabel(field: string): string {
  return OVERRIDES.find((override) => override.key === field)?.label ?? field
}

/** Whether the setting takes whole numbers only (the leverage). */
export function isIntegerField(field: string): boolean {
  return OVERRIDES.find((override) => override.key === field)?.integer ?? false
}
