import { useCallback, useMemo } from 'react'
import type { UseQueryResult } from '@tanstack/react-query'
import { CandlestickSeries, createSeriesMarkers, LineStyle } from 'lightweight-charts'
import type { ChartPalette } from '@/lib/charts/chart-colors'
import { useChart, type ChartBuilder } from '@/lib/charts/use-chart'
import { serverMessage } from '@/lib/api-client'
import { browserTimeZone, formatZonedDateTime } from '@/lib/user-time'
import { QueryState } from '@/components/query-state'
import { liveSection } from '@/i18n/catalogue'
import type { Trade, TradeChart } from '@/types/api'
import {
  candleSeries,
  tradeMarkers,
  tradePriceLines,
  type PriceLineKind,
} from '@/components/trade-chart/trade-chart-data'

const s = liveSection('backtest')

function candleColors(palette: ChartPalette) {
  return {
    upColor: palette.success,
    downColor: palette.destructive,
    borderUpColor: palette.success,
    borderDownColor: palette.destructive,
    wickUpColor: palette.success,
    wickDownColor: palette.destructive,
  }
}

function markerColors(palette: ChartPalette, pnl: number) {
  return {
    entry: palette.foreground,
    takeProfit: palette.success,
    exit: pnl < 0 ? palette.destructive : palette.success,
  }
}

function lineColor(kind: PriceLineKind, palette: ChartPalette, pnl: number): string {
  switch (kind) {
    case 'entry':
      return palette.foreground
    case 'take_profit':
      return palette.success
    case 'stop':
      return palette.destructive
    case 'exit':
      return markerColors(palette, pnl).exit
  }
}

/** The candles with the trade's markers and price lines, drawn by lightweight-charts. */
function TradeCandles({ data, trade, timeZone }: { data: TradeChart; trade: Trade; timeZone: string }) {
  const candles = useMemo(() => candleSeries(data.candles), [data.candles])
  const lines = useMemo(() => tradePriceLines(data.markers, trade.stop_loss), [data.markers, trade.stop_loss])

  const build = useCallback<ChartBuilder>(
    (chart, palette) => {
      const series = chart.addSeries(CandlestickSeries, { priceLineVisible: false, ...candleColors(palette) })
      series.setData(candles)
      const times = candles.map((candle) => candle.time)
      const markers = createSeriesMarkers(
        series,
        tradeMarkers(data.markers, times, trade.side, markerColors(palette, trade.pnl)),
      )
      const priceLines = lines.map((line) => ({
        kind: line.kind,
        api: series.createPriceLine({
          price: line.price,
          title: line.title,
          color: lineColor(line.kind, palette, trade.pnl),
          lineWidth: 1,
          lineStyle: line.kind === 'stop' ? LineStyle.Dashed : LineStyle.Dotted,
          axisLabelVisible: true,
        }),
      }))
      chart.timeScale().fitContent()
      return (next) => {
        series.applyOptions(candleColors(next))
        markers.setMarkers(tradeMarkers(data.markers, times, trade.side, markerColors(next, trade.pnl)))
        for (const line of priceLines) line.api.applyOptions({ color: lineColor(line.kind, next, trade.pnl) })
      }
    },
    [candles, lines, data.markers, trade.side, trade.pnl],
  )
  const ref = useChart(build, timeZone)

  return (
    // A figure, not an img: the chart holds lightweight-charts' attribution link, and an img's
    // content may hold nothing focusable (axe nested-interactive).
    <div
      ref={ref}
      role="figure"
      aria-label={s.chartImage(data.symbol, data.interval_minutes, data.markers.length)}
      data-testid="trade-chart"
      className="h-72 w-full overflow-hidden rounded-md border bg-muted/30"
    />
  )
}

/** "Failed to load the chart", with the server's sentence after a colon when it gave one. */
function failedText(error: unknown): string {
  const message = serverMessage(error)
  return message ? `${s.chartFailed}: ${message}` : s.chartFailed
}

/**
 * A trade's price chart from a query of its chart (a backtest's, or a live trade's on the Trades
 * page): its loading, failed and empty states, the symbol's candles around the trade with markers
 * at the entry, each take profit and the exit and lines at those prices and the stop, and the
 * markers listed as text in `timeZone` (the browser's when not given).
 */
export function TradeChartBody({
  chart,
  trade,
  timeZone,
}: {
  chart: UseQueryResult<TradeChart>
  trade: Trade
  timeZone?: string
}) {
  return (
    <div role="region" aria-label={s.chartRegion(trade.id)} className="min-w-0 space-y-2">
      <QueryState
        query={chart}
        strings={{ loading: s.chartLoading, loadFailed: failedText(chart.error), empty: s.chartEmpty }}
        isEmpty={(data) => data.candles.length === 0}
        showErrorMessage={false}
        layout="inline"
      >
        {(data) => (
          <>
            <TradeCandles data={data} trade={trade} timeZone={timeZone ?? browserTimeZone()} />
            <ul
              aria-label={s.chartMarkers}
              className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground"
            >
              {data.markers
                .filter((marker) => Number.isFinite(marker.time))
                .map((marker, index) => (
                  <li key={`${marker.kind}-${String(index)}`} className="tabular-nums">
                    <span className="text-foreground">{marker.label}</span>{' '}
                    <time dateTime={new Date(marker.time).toISOString()}>
                      {formatZonedDateTime(marker.time, timeZone ?? browserTimeZone())}
                    </time>
                  </li>
                ))}
            </ul>
          </>
        )}
      </QueryState>
    </div>
  )
}
