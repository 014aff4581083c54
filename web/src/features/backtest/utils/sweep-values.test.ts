import { describe, expect, it } from 'vitest'
import { sweepAxes, EMPTY_SWEEP } from '@/features/backtest/utils/sweep-draft'
import { parseSweepValues } from '@/features/backtest/utils/sweep-values'

describe('sweep values as typed', () => {
  it('reads comma-separated numbers and ranges from..to[:step]', () => {
    expect(parseSweepValues('1, 2.5 ,3')).toEqual({ values: [1, 2.5, 3] })
    expect(parseSweepValues('1..5')).toEqual({ values: [1, 2, 3, 4, 5] })
    expect(parseSweepValues('2..20:2')).toEqual({ values: [2, 4, 6, 8, 10, 12, 14, 16, 18, 20] })
    expect(parseSweepValues('0.1..0.5:0.1, 1')).toEqual({ values: [0.1, 0.2, 0.3, 0.4, 0.5, 1] })
    expect(parseSweepValues('1..2:0.75')).toEqual({ values: [1, 1.75] })
    expect(parseSweepValues('3..3')).toEqual({ values: [3] })
  })

  it('refuses what is not a list of distinct numbers', () => {
    expect(parseSweepValues(' , ')).toEqual({ error: 'Enter at least one value.' })
    expect(parseSweepValues('1, x')).toEqual({ error: '"x" is not a number or a range from..to[:step].' })
    expect(parseSweepValues('1e3').error).toContain('is not a number')
    expect(parseSweepValues('1..5:0')).toEqual({ error: '"1..5:0": the step must be above 0.' })
    expect(parseSweepValues('5..1')).toEqual({ error: '"5..1": from must not be above to.' })
    expect(parseSweepValues('1, 1..3')).toEqual({ error: '1 is listed twice.' })
    expect(parseSweepValues('1..1000')).toEqual({ error: 'At most 400 values.' })
    expect(parseSweepValues('2, 2.5', true)).toEqual({ error: '2.5 is not a whole number.' })
    expect(parseSweepValues('2..6:2', true)).toEqual({ values: [2, 4, 6] })
  })
})

describe('the form’s sweep', () => {
  it('is empty (a single run) when no setting is picked, whatever the values say', () => {
    expect(sweepAxes(EMPTY_SWEEP)).toMatchObject({ ok: true, axes: [], cells: 1 })
    expect(sweepAxes([{ field: '', values: 'junk' }, EMPTY_SWEEP[1]])).toMatchObject({ ok: true, axes: [] })
  })

  it('gives the axes and the number of combinations', () => {
    expect(
      sweepAxes([
        { field: 'initial_stop_loss_pct', values: '1..10' },
        { field: 'take_profit_first_pct', values: '2..20:2' },
      ]),
    ).toEqual({
      ok: true,
      axes: [
        { field: 'initial_stop_loss_pct', values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
        { field: 'take_profit_first_pct', values: [2, 4, 6, 8, 10, 12, 14, 16, 18, 20] },
      ],
      fields: ['initial_stop_loss_pct', 'take_profit_first_pct'],
      cells: 100,
      axisErrors: [undefined, undefined],
      error: undefined,
    })
    expect(sweepAxes([EMPTY_SWEEP[0], { field: 'leverage', values: '1, 5' }])).toMatchObject({
      ok: true,
      axes: [{ field: 'leverage', values: [1, 5] }],
      cells: 2,
    })
  })

  it('refuses bad values, the same setting twice, a fractional leverage and more than 400 combinations', () => {
    expect(sweepAxes([{ field: 'initial_stop_loss_pct', values: 'a' }, EMPTY_SWEEP[1]])).toMatchObject({
      ok: false,
      fields: ['initial_stop_loss_pct'],
      axisErrors: ['"a" is not a number or a range from..to[:step].', undefined],
    })
    expect(
      sweepAxes([
        { field: 'leverage', values: '1' },
        { field: 'leverage', values: '2' },
      ]),
    ).toMatchObject({ ok: false, axisErrors: [undefined, 'Pick two different settings.'] })
    expect(sweepAxes([{ field: 'leverage', values: '1.5' }, EMPTY_SWEEP[1]]).ok).toBe(false)
    expect(
      sweepAxes([
        { field: 'initial_stop_loss_pct', values: '1..21' },
        { field: 'take_profit_first_pct', values: '1..20' },
      ]),
    ).toMatchObject({ ok: false, cells: 420, error: 'The sweep has 420 combinations; at most 400.' })
    expect(
      sweepAxes([
        { field: 'initial_stop_loss_pct', values: '1..20' },
        { field: 'take_profit_first_pct', values: '1..20' },
      ]),
    ).toMatchObject({ ok: true, cells: 400 })
  })
})
