import { useEffect, useRef, useState } from 'react'
import { createChart, type IChartApi } from 'lightweight-charts'
import { readChartPalette, samePalette, type ChartPalette } from '@/lib/charts/chart-colors'
import { baseChartOptions, themeOptions } from '@/lib/charts/chart-options'
import { currentLocale } from '@/i18n/language'

/**
 * Draws the chart's series (given the palette in force) and answers how to recolour them when
 * the theme changes. Keep it stable (useCallback): a new one redraws the chart.
 */
export type ChartBuilder = (chart: IChartApi, palette: ChartPalette) => (palette: ChartPalette) => void

/** The theme's chart palette, read again whenever <html>'s class (the `dark` class) changes. */
export function useChartPalette(): ChartPalette {
  const [palette, setPalette] = useState(readChartPalette)
  useEffect(() => {
    const observer = new MutationObserver(() => {
      const next = readChartPalette()
      setPalette((old) => (samePalette(old, next) ? old : next))
    })
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class', 'style'] })
    return () => {
      observer.disconnect()
    }
  }, [])
  return palette
}

/**
 * A lightweight-charts chart in the returned ref's element: created when it mounts (and again when
 * `build` or `timeZone` changes), its times in `timeZone` (the user's settings zone) and the
 * language's locale (the app is drawn again when the language changes), resized with the element,
 * recoloured with the theme, removed on unmount.
 */
export function useChart(build: ChartBuilder, timeZone: string) {
  const ref = useRef<HTMLDivElement>(null)
  const restyle = useRef<((palette: ChartPalette) => void) | null>(null)
  const palette = useChartPalette()

  useEffect(() => {
    const element = ref.current
    if (!element) return
    const current = readChartPalette()
    const chart = createChart(element, baseChartOptions(current, { locale: currentLocale(), timeZone }))
    // lightweight-charts lays its canvases out in a table: a layout table, not data.
    element.querySelector('table')?.setAttribute('role', 'presentation')
    const restyleSeries = build(chart, current)
    restyle.current = (next) => {
      chart.applyOptions(themeOptions(next))
      restyleSeries(next)
    }
    return () => {
      restyle.current = null
      chart.remove()
    }
  }, [build, timeZone])

  useEffect(() => {
    restyle.current?.(palette)
  }, [palette])

  return ref
}
