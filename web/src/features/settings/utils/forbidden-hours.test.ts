import { describe, expect, it } from 'vitest'
import {
  describeForbiddenHours,
  formatForbiddenHours,
  parseForbiddenHours,
} from '@/features/settings/utils/forbidden-hours'

describe('parseForbiddenHours', () => {
  it('reads the spec example', () => {
    expect(parseForbiddenHours('23.00-1.00, 6.00-8.00')).toEqual([
      [23, 1],
      [6, 8],
    ])
  })

  it('uses only the integer part of each hour', () => {
    expect(parseForbiddenHours('22.59-3.30')).toEqual([[22, 3]])
    expect(parseForbiddenHours('9:45-17:15')).toEqual([[9, 17]])
    expect(parseForbiddenHours('0-23')).toEqual([[0, 23]])
    expect(parseForbiddenHours('1.-2.')).toEqual([[1, 2]])
  })

  it('tolerates spaces and dashes around the bounds', () => {
    expect(parseForbiddenHours('  23.00 - 1.00 ,6.00–8.00 ,  ')).toEqual([
      [23, 1],
      [6, 8],
    ])
  })

  it('drops what cannot be parsed and keeps the rest', () => {
    expect(parseForbiddenHours('garbage, 6.00-8.00, 7-, -3, 1-2-3, a.00-b.00, 23.00-1.00')).toEqual([
      [6, 8],
      [23, 1],
    ])
    expect(parseForbiddenHours('')).toEqual([])
    expect(parseForbiddenHours('nothing here')).toEqual([])
    expect(parseForbiddenHours('-1-3, 1e2-3, 1.5.5-3')).toEqual([])
  })

  it('drops hours above 23 and empty intervals (start equal to end), like the server', () => {
    expect(parseForbiddenHours('22.00-24.00, 25-1, 3.00-3.59, 4-5')).toEqual([[4, 5]])
  })

  it('keeps an interval given twice once', () => {
    expect(parseForbiddenHours('6-8, 6.00-8.00')).toEqual([[6, 8]])
  })
})

describe('formatForbiddenHours', () => {
  it('writes the stored value in the form format', () => {
    expect(
      formatForbiddenHours([
        [23, 1],
        [6, 8],
      ]),
    ).toBe('23.00-1.00, 6.00-8.00')
    expect(formatForbiddenHours([])).toBe('')
  })

  it('round-trips', () => {
    const stored: [number, number][] = [
      [23, 1],
      [6, 8],
      [0, 12],
    ]
    expect(parseForbiddenHours(formatForbiddenHours(stored))).toEqual(stored)
    const text = '23.00-1.00, 6.00-8.00'
    expect(formatForbiddenHours(parseForbiddenHours(text))).toBe(text)
  })

  it('describes ranges as clock times for the preview', () => {
    expect(describeForbiddenHours([[23, 1]])).toBe('23:00–01:00')
  })
})
