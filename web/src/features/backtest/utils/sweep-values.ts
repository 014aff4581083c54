import { MAX_SWEEP_CELLS } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'

export type ParsedValues = { values: number[]; error?: undefined } | { values?: undefined; error: string }

/** A number as typed: digits with an optional sign and decimals (no hex, exponents or blanks). */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

function parseNumber(text: string): number | null {
  return NUMBER.test(text) ? Number(text) : null
}

/** Rounds away the float noise of repeated additions (0.1 + 0.2). */
function tidy(value: number): number {
  return Number(value.toFixed(10))
}

/**
 * A sweep axis' values as typed: comma-separated numbers and ranges, `from..to` (step 1) or
 * `from..to:step`, e.g. "1..10" or "2..20:2, 25". Every value must be a number (a whole one when
 * `integer`), none twice, at most 400 of them.
 */
export function parseSweepValues(text: string, integer = false): ParsedValues {
  const tokens = text
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '')
  if (tokens.length === 0) return { error: s.sweepNoValues }
  const values: number[] = []
  for (const token of tokens) {
    const range = /^(.+?)\.\.(.+?)(?::(.+))?$/.exec(token)
    if (range) {
      const [, fromText = '', toText = '', stepText] = range
      const from = parseNumber(fromText.trim())
      const to = parseNumber(toText.trim())
      const step = stepText === undefined ? 1 : parseNumber(stepText.trim())
      if (from === null || to === null || step === null) return { error: s.sweepNotANumber(token) }
      if (step <= 0) return { error: s.sweepBadStep(token) }
      if (from > to) return { error: s.sweepBadRange(token) }
      const count = Math.floor(tidy((to - from) / step)) + 1
      if (values.length + count > MAX_SWEEP_CELLS) return { error: s.sweepTooManyValues(MAX_SWEEP_CELLS) }
      for (let i = 0; i < count; i++) values.push(tidy(from + i * step))
    } else {
      const value = parseNumber(token)
      if (value === null) return { error: s.sweepNotANumber(token) }
      values.push(value)
    }
    if (values.length > MAX_SWEEP_CELLS) return { error: s.sweepTooManyValues(MAX_SWEEP_CELLS) }
  }
  if (integer) {
    const fraction = values.find((value) => !Number.isInteger(value))
    if (fraction !== undefined) return { error: s.sweepNotWhole(fraction) }
  }
  const twice = values.find((value, index) => values.indexOf(value) !== index)
  if (twice !== undefined) return { error: s.sweepTwice(twice) }
  return { values }
}
