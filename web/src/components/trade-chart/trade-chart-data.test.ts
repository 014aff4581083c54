import type { UTCTimestamp } from 'lightweight-charts'
import { describe, expect, it } from 'vitest'
import type { TradeChartMarker } from '@/types/api'
import {
  candleSeries,
  snapToCandle,
  tradeMarkers,
  tradePriceLines,
} from '@/components/trade-chart/trade-chart-data'

const T0 = 1767225600000 // 2026-01-01T00:00:00Z
const MIN5 = 5 * 60_000
const sec = (ms: number) => (ms / 1000) as UTCTimestamp
const candle = (time: number, close: number) => ({
  time,
  open: close,
  high: close + 1,
  low: close - 1,
  close,
})
const colors = { entry: 'white', takeProfit: 'green', exit: 'red' }

describe('trade chart data', () => {
  it('gives the candles in seconds, in time order, one per second (the last given kept), bad prices left out', () => {
    expect(
      candleSeries([
        candle(T0 + MIN5, 2),
        candle(T0, 1),
        candle(T0 + MIN5 + 300, 3),
        { time: T0 + 2 * MIN5, open: Number.NaN, high: 1, low: 1, close: 1 },
      ]),
    ).toEqual([
      { time: sec(T0), open: 1, high: 2, low: 0, close: 1 },
      { time: sec(T0 + MIN5), open: 3, high: 4, low: 2, close: 3 },
    ])
    expect(candleSeries([])).toEqual([])
  })

  it('snaps a moment to the candle it falls in', () => {
    const times = [sec(T0), sec(T0 + MIN5), sec(T0 + 2 * MIN5)]
    expect(snapToCandle(times, sec(T0))).toBe(sec(T0))
    expect(snapToCandle(times, sec(T0 + MIN5 - 1000))).toBe(sec(T0))
    expect(snapToCandle(times, sec(T0 + MIN5 + 60_000))).toBe(sec(T0 + MIN5))
    expect(snapToCandle(times, sec(T0 + 9 * MIN5))).toBe(sec(T0 + 2 * MIN5))
    expect(snapToCandle(times, sec(T0 - MIN5))).toBe(sec(T0))
    expect(snapToCandle([], sec(T0))).toBe(sec(T0))
  })

  const entry: TradeChartMarker = { time: T0 + 60_000, kind: 'entry', price: 100, label: 'Entry 100' }
  const markers: TradeChartMarker[] = [
    { time: T0 + 2 * MIN5 + 90_000, kind: 'exit', price: 104, label: 'Exit 104' },
    entry,
    { time: T0 + MIN5 + 1000, kind: 'take_profit', price: 110, label: 'TP 110' },
    { time: T0 + MIN5 + 2000, kind: 'take_profit', price: 120, label: 'TP 120' },
  ]
  const times = [sec(T0), sec(T0 + MIN5), sec(T0 + 2 * MIN5)]

  it('puts the markers on their candles at their prices, in time order, shaped by kind', () => {
    expect(tradeMarkers(markers, times, 'long', colors)).toEqual([
      {
        id: 'entry-1',
        time: sec(T0),
        price: 100,
        text: 'Entry 100',
        position: 'atPriceBottom',
        shape: 'arrowUp',
        color: 'white',
      },
      {
        id: 'take_profit-2',
        time: sec(T0 + MIN5),
        price: 110,
        text: 'TP 110',
        position: 'atPriceMiddle',
        shape: 'circle',
        color: 'green',
      },
      {
        id: 'take_profit-3',
        time: sec(T0 + MIN5),
        price: 120,
        text: 'TP 120',
        position: 'atPriceMiddle',
        shape: 'circle',
        color: 'green',
      },
      {
        id: 'exit-0',
        time: sec(T0 + 2 * MIN5),
        price: 104,
        text: 'Exit 104',
        position: 'atPriceMiddle',
        shape: 'square',
        color: 'red',
      },
    ])
  })

  it('points a short entry down from above', () => {
    const [short] = tradeMarkers([entry], times, 'short', colors)
    expect(short).toMatchObject({ position: 'atPriceTop', shape: 'arrowDown' })
  })

  it('draws a line for the entry, each take profit, the exit and the stop', () => {
    expect(tradePriceLines(markers, 95)).toEqual([
      { kind: 'exit', price: 104, title: 'Exit' },
      { kind: 'entry', price: 100, title: 'Entry' },
      { kind: 'take_profit', price: 110, title: 'TP 1' },
      { kind: 'take_profit', price: 120, title: 'TP 2' },
      { kind: 'stop', price: 95, title: 'Stop' },
    ])
    expect(tradePriceLines([entry, entry], null)).toEqual([{ kind: 'entry', price: 100, title: 'Entry' }])
  })
})
