import {
  ColorType,
  type ChartOptions,
  type DeepPartial,
  type TickMarkType,
  type Time,
} from 'lightweight-charts'
import type { ChartPalette } from '@/lib/charts/chart-colors'
import { crosshairTimeLabel, tickMarkLabel } from '@/lib/charts/chart-time'
import { formatPrice } from '@/lib/format-number'

/** Where a chart's axes are read: the language's locale (en-US, ru-RU) and the user's settings zone. */
export type ChartLocale = { locale: string; timeZone: string }

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
 * The options that follow the language and the zone: the time axis and the crosshair's time in
 * `timeZone` and `locale`, the prices in the language's number format.
 */
export function localeOptions({ locale, timeZone }: ChartLocale): DeepPartial<ChartOptions> {
  return {
    localization: {
      locale,
      timeFormatter: (time: Time) => crosshairTimeLabel(time, locale, timeZone),
      priceFormatter: formatPrice,
    },
    timeScale: {
      tickMarkFormatter: (time: Time, type: TickMarkType) => tickMarkLabel(time, type, locale, timeZone),
    },
  }
}

/**
 * Every chart of the app: sized by its container (and resized with it), times in the settings
 * zone and numbers in the language's format, the theme's colours.
 */
export function baseChartOptions(palette: ChartPalette, where: ChartLocale): DeepPartial<ChartOptions> {
  const theme = themeOptions(palette)
  const local = localeOptions(where)
  return {
    ...theme,
    ...local,
    autoSize: true,
    timeScale: { ...theme.timeScale, ...local.timeScale, timeVisible: true, secondsVisible: false },
  }
}
