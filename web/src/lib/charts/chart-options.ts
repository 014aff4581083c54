import {
  ColorType,
  type ChartOptions,
  type DeepPartial,
  type TickMarkType,
  type Time,
} from 'lightweight-charts'
import type { ChartPalette } from '@/lib/charts/chart-colors'
import { crosshairTimeLabel, tickMarkLabel } from '@/lib/charts/chart-time'

/** The options that follow the theme: text, grid and borders (the background stays the card's). */
export function themeOptions(palette: ChartPalette): DeepPartial<ChartOptions> {
  return {
    layout: {
      background: { type: ColorType.Solid, color: 'transparent' },
      textColor: palette.text,
    },
    grid: { vertLines: { color: palette.grid }, horzLines: { color: palette.grid } },
    rightPriceScale: { borderColor: palette.grid },
    timeScale: { borderColor: palette.grid },
  }
}

/**
 * Every chart of the app: sized by its container (and resized with it), times in the browser's
 * zone, the theme's colours.
 */
export function baseChartOptions(palette: ChartPalette): DeepPartial<ChartOptions> {
  const theme = themeOptions(palette)
  return {
    ...theme,
    autoSize: true,
    localization: { timeFormatter: (time: Time) => crosshairTimeLabel(time) },
    timeScale: {
      ...theme.timeScale,
      timeVisible: true,
      secondsVisible: false,
      tickMarkFormatter: (time: Time, type: TickMarkType) => tickMarkLabel(time, type),
    },
  }
}
