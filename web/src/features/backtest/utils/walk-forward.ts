import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'
import { formatNumber } from '@/lib/format-number'

/*
 * Walk-forward (issue 32, docs/backtesting.md "Walk-forward"): with a sweep, the best cell of each
 * training window is traded on the test window after it.
 */

export type WalkForwardMetric = 'total_pnl' | 'pnl_over_drawdown'

export const WALK_FORWARD_METRICS: readonly WalkForwardMetric[] = ['total_pnl', 'pnl_over_drawdown']

/** The walk-forward as the form holds it: on or off, the days as typed, the metric. */
export type WalkForwardDraft = {
  on: boolean
  trainDays: string
  testDays: string
  metric: WalkForwardMetric
}

export const EMPTY_WALK_FORWARD: WalkForwardDraft = {
  on: false,
  trainDays: '30',
  testDays: '10',
  metric: 'total_pnl',
}

/** What POST /api/backtests/ takes as `walk_forward`. */
export type WalkForwardPlan = { train_days: number; test_days: number; metric: WalkForwardMetric }

export type CheckedWalkForward = {
  ok: boolean
  /** What to send; null when off (or wrong). */
  plan: WalkForwardPlan | null
  trainError: string | undefined
  testError: string | undefined
  /** The walk-forward is on without a sweep to choose from. */
  sweepError: string | undefined
}

function wholeDays(text: string): number | undefined {
  const trimmed = text.trim()
  if (!/^\d+$/.test(trimmed)) return undefined
  const days = Number(trimmed)
  return days >= 1 ? days : undefined
}

/**
 * The form's walk-forward checked as the server checks it: whole days, at least 1 each, and a
 * sweep to choose from (the period's length is left to the server, which knows the user's dates).
 */
export function checkWalkForward(draft: WalkForwardDraft, sweptAxes: number): CheckedWalkForward {
  if (!draft.on) {
    return { ok: true, plan: null, trainError: undefined, testError: undefined, sweepError: undefined }
  }
  const train = wholeDays(draft.trainDays)
  const test = wholeDays(draft.testDays)
  const trainError = train === undefined ? s.walkForwardBadDays : undefined
  const testError = test === undefined ? s.walkForwardBadDays : undefined
  const sweepError = sweptAxes === 0 ? s.walkForwardNeedsSweep : undefined
  const ok = train !== undefined && test !== undefined && sweepError === undefined
  return {
    ok,
    plan: ok ? { train_days: train, test_days: test, metric: draft.metric } : null,
    trainError,
    testError,
    sweepError,
  }
}

/** A chosen cell as text: each swept setting's label and value ("Stop loss % 2, Leverage 5"). */
export function chosenLabel(axes: readonly { field: string }[], values: readonly unknown[] | null): string {
  if (!values) return s.walkForwardNoCell
  return axes.map((axis, index) => `${overrideLabel(axis.field)} ${String(values[index])}`).join(', ')
}

/** "1,234.50 (123.45/day)": a window's pnl and its pnl a day. */
export function pnlWithDaily(total: number, perDay: number): string {
  return `${formatNumber(total, 2)} (${s.perDay(formatNumber(perDay, 2))})`
}
