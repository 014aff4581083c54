import type { CandlestickData, SeriesMarker, UTCTimestamp } from 'lightweight-charts'
import { toChartTime } from '@/lib/charts/chart-time'
import { liveSection } from '@/i18n/catalogue'
import type { TradeChartCandle, TradeChartMarker } from '@/types/api'

const s = liveSection('backtest')

/**
 * The pure half of a backtest trade's price chart: the API's candles and markers (Unix
 * milliseconds) as lightweight-charts takes them (UTC seconds, strictly rising).
 */

/**
 * The candles in time order and whole seconds, one per second (the last one given of a second
 * stays); candles with a price that is not a finite number are left out.
 */
export function candleSeries(candles: readonly TradeChartCandle[]): CandlestickData<UTCTimestamp>[] {
  const sorted = candles
    .filter((candle) =>
      [candle.time, candle.open, candle.high, candle.low, candle.close].every(Number.isFinite),
    )
    .map(({ time, open, high, low, close }) => ({ time: toChartTime(time), open, high, low, close }))
    .sort((a, b) => a.time - b.time)
  const series: CandlestickData<UTCTimestamp>[] = []
  for (const candle of sorted) {
    if (series.at(-1)?.time === candle.time) series[series.length - 1] = candle
    else series.push(candle)
  }
  return series
}

/**
 * The candle a moment falls in: the last candle opening at or before `time` (the first candle
 * for a moment before them all); `time` itself when there are no candles.
 */
export function snapToCandle(times: readonly UTCTimestamp[], time: UTCTimestamp): UTCTimestamp {
  let low = 0
  let high = times.length - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if ((times[middle] ?? Infinity) <= time) {
      found = middle
      low = middle + 1
    } else {
      high = middle - 1
    }
  }
  return times[Math.max(found, 0)] ?? time
}

export type MarkerColors = { entry: string; takeProfit: string; exit: string }

/**
 * The trade's markers on its candles, in time order (markers of one candle in the API's order):
 * each at its price on the candle it falls in, with its label; the entry an arrow from the side
 * the trade was opened to (up for a long, down for a short), a take profit a circle, the exit a
 * square.
 */
export function tradeMarkers(
  markers: readonly TradeChartMarker[],
  candleTimes: readonly UTCTimestamp[],
  side: 'long' | 'short',
  colors: MarkerColors,
): SeriesMarker<UTCTimestamp>[] {
  const placed = markers
    .filter((marker) => Number.isFinite(marker.time) && Number.isFinite(marker.price))
    .map((marker, index) => ({ index, marker: seriesMarker(marker, index, candleTimes, side, colors) }))
  placed.sort((a, b) => a.marker.time - b.marker.time || a.index - b.index)
  return placed.map(({ marker }) => marker)
}

function seriesMarker(
  marker: TradeChartMarker,
  index: number,
  candleTimes: readonly UTCTimestamp[],
  side: 'long' | 'short',
  colors: MarkerColors,
): SeriesMarker<UTCTimestamp> {
  const base = {
    id: `${marker.kind}-${String(index)}`,
    time: snapToCandle(candleTimes, toChartTime(marker.time)),
    price: marker.price,
    text: marker.label,
  }
  switch (marker.kind) {
    case 'entry':
      return side === 'long'
        ? { ...base, position: 'atPriceBottom', shape: 'arrowUp', color: colors.entry }
        : { ...base, position: 'atPriceTop', shape: 'arrowDown', color: colors.entry }
    case 'take_profit':
      return { ...base, position: 'atPriceMiddle', shape: 'circle', color: colors.takeProfit }
    case 'exit':
      return { ...base, position: 'atPriceMiddle', shape: 'square', color: colors.exit }
  }
}

export type PriceLineKind = 'entry' | 'take_profit' | 'exit' | 'stop'

/** A horizontal line across the chart at one of the trade's prices. */
export type TradePriceLine = { kind: PriceLineKind; price: number; title: string }

/**
 * The trade's levels as horizontal lines: the entry, each take profit ("TP 1", "TP 2", …), the
 * exit and, when known, the stop; one line per kind and price.
 */
export function tradePriceLines(markers: readonly TradeChartMarker[], stop: number | null): TradePriceLine[] {
  const lines: TradePriceLine[] = []
  let takeProfits = 0
  for (const marker of markers) {
    if (!Number.isFinite(marker.price)) continue
    if (lines.some((line) => line.kind === marker.kind && line.price === marker.price)) continue
    if (marker.kind === 'entry') lines.push({ kind: 'entry', price: marker.price, title: s.lineEntry })
    if (marker.kind === 'exit') lines.push({ kind: 'exit', price: marker.price, title: s.lineExit })
    if (marker.kind === 'take_profit') {
      takeProfits += 1
      lines.push({ kind: 'take_profit', price: marker.price, title: s.lineTakeProfit(takeProfits) })
    }
  }
  if (stop !== null && Number.isFinite(stop)) lines.push({ kind: 'stop', price: stop, title: s.lineStop })
  return lines
}
