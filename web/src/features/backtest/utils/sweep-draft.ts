import { MAX_SWEEP_CELLS, type SweepAxis } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { isIntegerField, type OverrideKey } from '@/features/backtest/utils/overrides'
import { parseSweepValues } from '@/features/backtest/utils/sweep-values'

/** One axis as the form holds it: a setting ('' for none) and its values as typed. */
export type SweepDraftAxis = { field: OverrideKey | ''; values: string }
export type SweepDraft = readonly [SweepDraftAxis, SweepDraftAxis]

export const EMPTY_SWEEP: SweepDraft = [
  { field: '', values: '' },
  { field: '', values: '' },
]

/** The form's sweep checked: the axes to send, or what is wrong with it. */
export type CheckedSweep = {
  ok: boolean
  /** The axes with a setting, in order (empty: a single run). */
  axes: SweepAxis[]
  /** The settings picked, valid values or not (their single-value inputs are disabled). */
  fields: OverrideKey[]
  /** The number of combinations (1 without a sweep). */
  cells: number
  /** Per axis: what is wrong with its values. */
  axisErrors: [string | undefined, string | undefined]
  /** What is wrong with the sweep as a whole (too many cells). */
  error: string | undefined
}

/**
 * The sweep of the form: each axis with a setting needs valid values (numbers or ranges; whole
 * numbers for the leverage), the two settings must differ, and there are at most 400 combinations.
 */
export function sweepAxes(draft: SweepDraft): CheckedSweep {
  const axes: SweepAxis[] = []
  const fields: OverrideKey[] = []
  const axisErrors: [string | undefined, string | undefined] = [undefined, undefined]
  draft.forEach((axis, index) => {
    if (axis.field === '') return
    if (fields.includes(axis.field)) {
      axisErrors[index] = s.sweepSameField
      return
    }
    fields.push(axis.field)
    const parsed = parseSweepValues(axis.values, isIntegerField(axis.field))
    if (parsed.error !== undefined) axisErrors[index] = parsed.error
    else axes.push({ field: axis.field, values: parsed.values })
  })
  const cells = axes.reduce((product, axis) => product * axis.values.length, 1)
  const error = cells > MAX_SWEEP_CELLS ? s.sweepTooManyCells(cells, MAX_SWEEP_CELLS) : undefined
  const ok = axisErrors.every((message) => message === undefined) && error === undefined
  return { ok, axes, fields, cells, axisErrors, error }
}
