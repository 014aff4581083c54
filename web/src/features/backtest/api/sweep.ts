import type { Backtest, BacktestInput, BacktestResult, WalkForwardResult } from '@/types/api'

export type { WalkForwardResult }

/*
 * Sweeps (issue 19, part 6): POST /api/backtests/ with `sweep` runs one backtest per combination
 * of one or two settings' values as one job. Written by hand until the server's OpenAPI document
 * has them; then these become aliases of the generated schemas in src/types/api.ts.
 */

/** The settings a sweep (and a single run's overrides) may vary. */
export type SweepField = 'initial_stop_loss_pct' | 'take_profit_first_pct' | 'leverage'

/** One axis: a setting and its values, in order. */
export type SweepAxis = { field: SweepField; values: number[] }

/** At most this many cells (the product of the axes' lengths); the server refuses more. */
export const MAX_SWEEP_CELLS = 400

/** What POST /api/backtests/ takes: a single run, or with `sweep` (1 or 2 axes) a sweep. */
export type BacktestRequest = Omit<BacktestInput, 'sweep'> & { sweep?: SweepAxis[] | null }

/** One combination's outcome: its values (one per axis), and its summary or why it failed. */
export type SweepCell = {
  values: number[]
  error: string | null
  summary: BacktestResult['summary'] | null
}

/** A finished sweep's `result`: the axes and the cells in order, the last axis fastest. */
export type SweepResult = {
  sweep: { axes: SweepAxis[]; cells: SweepCell[] }
  /** The settings every cell started from, and where its prices came from (none in old results). */
  settings?: BacktestResult['settings'] | null
  history?: BacktestResult['history'] | null
}

export type BacktestKind = 'single' | 'sweep' | 'walk_forward'

/** GET /api/backtests/ and /api/backtests/{id}/ with what sweeps add: `kind`, and a sweep's result. */
export type BacktestRun = Omit<Backtest, 'request' | 'result' | 'kind'> & {
  kind?: BacktestKind
  request: BacktestRequest
  result: BacktestResult | SweepResult | WalkForwardResult | null
}

export function isSweepResult(
  result: BacktestResult | SweepResult | WalkForwardResult,
): result is SweepResult {
  return 'sweep' in result
}

export function isWalkForwardResult(
  result: BacktestResult | SweepResult | WalkForwardResult,
): result is WalkForwardResult {
  return 'walk_forward' in result
}

export function isSweep(run: BacktestRun): boolean {
  return run.kind === 'sweep' || (run.request.sweep?.length ?? 0) > 0
}
