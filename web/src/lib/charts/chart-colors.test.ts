import { afterEach, describe, expect, it } from 'vitest'
import {
  chartColor,
  FALLBACK_PALETTE,
  oklchToRgb,
  readChartPalette,
  withAlpha,
} from '@/lib/charts/chart-colors'

describe('chart colours', () => {
  it('turns oklch() into rgb(), with percentages, degrees and an alpha', () => {
    expect(oklchToRgb('oklch(1 0 0)')).toBe('rgb(255, 255, 255)')
    expect(oklchToRgb('oklch(0 0 0)')).toBe('rgb(0, 0, 0)')
    // sRGB red, green and blue in OKLCH.
    expect(oklchToRgb('oklch(0.6279554 0.2576833 29.2338851)')).toBe('rgb(255, 0, 0)')
    expect(oklchToRgb('oklch(86.64396% 0.2948272 142.4953388deg)')).toBe('rgb(0, 255, 0)')
    expect(oklchToRgb('oklch(0.4520137 0.3132214 264.0520206 / 50%)')).toBe('rgba(0, 0, 255, 0.5)')
    expect(oklchToRgb('oklch(0.5 0 none)')).toBe('rgb(99, 99, 99)')
    expect(oklchToRgb('rgb(1, 2, 3)')).toBeNull()
    expect(oklchToRgb('oklch(nope 0 0)')).toBeNull()
  })

  it('keeps other colours as they are and uses the fallback for an empty value', () => {
    expect(chartColor(' #ff0000 ', 'x')).toBe('#ff0000')
    expect(chartColor('  ', 'rgb(1, 2, 3)')).toBe('rgb(1, 2, 3)')
    expect(chartColor('oklch(bad)', 'rgb(1, 2, 3)')).toBe('rgb(1, 2, 3)')
    expect(chartColor('OKLCH(1 0 0)', 'x')).toBe('rgb(255, 255, 255)')
  })

  it('adds an alpha to rgb() only', () => {
    expect(withAlpha('rgb(10, 20, 30)', 0.25)).toBe('rgba(10, 20, 30, 0.25)')
    expect(withAlpha('#123456', 0.25)).toBe('#123456')
  })

  describe('the palette of the theme', () => {
    afterEach(() => {
      document.documentElement.removeAttribute('style')
    })

    it('reads the CSS variables of <html>, falling back where one is missing', () => {
      document.documentElement.style.setProperty('--success', 'oklch(1 0 0)')
      document.documentElement.style.setProperty('--destructive', 'rgb(200, 0, 0)')
      expect(readChartPalette()).toEqual({
        ...FALLBACK_PALETTE,
        success: 'rgb(255, 255, 255)',
        destructive: 'rgb(200, 0, 0)',
      })
    })
  })
})
