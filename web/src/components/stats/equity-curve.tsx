import { useCallback, useMemo } from 'react'
import { BaselineSeries, LineStyle } from 'lightweight-charts'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { pnlClass } from '@/lib/pnl-class'
import { formatZonedDateTime } from '@/lib/user-time'
import { useChart, type ChartBuilder } from '@/lib/charts/use-chart'
import { withAlpha, type ChartPalette } from '@/lib/charts/chart-colors'
import { liveSection } from '@/i18n/catalogue'
import type { EquitySample } from '@/types/api'
import { equitySeries, type EquityPoint } from '@/components/stats/equity-points'
import { formatNumber } from '@/lib/format-number'

const s = liveSection('periodStatistics')

/** Green above zero, red below, zero as the dashed base line. */
function curveColors(palette: ChartPalette) {
  return {
    topLineColor: palette.success,
    topFillColor1: withAlpha(palette.success, 0.28),
    topFillColor2: withAlpha(palette.success, 0.04),
    bottomLineColor: palette.destructive,
    bottomFillColor1: withAlpha(palette.destructive, 0.04),
    bottomFillColor2: withAlpha(palette.destructive, 0.28),
    priceLineColor: palette.text,
  }
}

/** The cumulative pnl as a lightweight-charts baseline series around zero. */
function EquityChart({
  points,
  label,
  timeZone,
}: {
  points: EquityPoint[]
  label: string
  timeZone: string
}) {
  const build = useCallback<ChartBuilder>(
    (chart, palette) => {
      const series = chart.addSeries(BaselineSeries, {
        baseValue: { type: 'price', price: 0 },
        lineWidth: 2,
        priceLineVisible: false,
        ...curveColors(palette),
      })
      series.setData(points)
      const zero = series.createPriceLine({
        price: 0,
        color: palette.text,
        lineWidth: 1,
        lineStyle: LineStyle.Dashed,
        axisLabelVisible: false,
      })
      chart.timeScale().fitContent()
      return (next) => {
        series.applyOptions(curveColors(next))
        zero.applyOptions({ color: next.text })
      }
    },
    [points],
  )
  const ref = useChart(build, timeZone)
  return (
    // A figure, not an img, as the trade chart: it holds lightweight-charts' attribution link.
    <div
      ref={ref}
      role="figure"
      aria-label={label}
      data-testid="equity-chart"
      className="h-48 w-full overflow-hidden rounded-md border bg-muted/30"
    />
  )
}

/**
 * The equity curve card of `equity` (GET /api/stats/, a backtest's result, a walk-forward's
 * out-of-sample pnl), under `title` (the /stats page's by default), drawn with
 * lightweight-charts, its first and last times in `timeZone`; nothing when empty.
 */
export function EquityCurveCard({
  equity,
  timeZone,
  title = s.equityCurve,
}: {
  equity: EquitySample[]
  timeZone: string
  title?: string
}) {
  const points = useMemo(() => equitySeries(equity), [equity])
  // points[0] is the zero a second before the first sample; the times shown are the samples'.
  const first = points[1]
  const last = points.at(-1)
  if (!first || !last) return null

  return (
    <Card role="region" aria-label={title}>
      <CardHeader className="flex-row items-baseline justify-between gap-4">
        <CardTitle>{title}</CardTitle>
        <span className={pnlClass(last.value)} data-testid="equity-last">
          <span className="sr-only">{s.equityLast} </span>
          <span className="text-lg font-semibold tabular-nums">{formatNumber(last.value, 2)}</span>
        </span>
      </CardHeader>
      <CardContent className="space-y-2">
        <EquityChart points={points} label={s.equityCurveImage(points.length - 1)} timeZone={timeZone} />
        <div className="flex justify-between text-xs text-muted-foreground tabular-nums">
          <time dateTime={new Date(first.time * 1000).toISOString()}>
            {formatZonedDateTime(first.time * 1000, timeZone)}
          </time>
          <time dateTime={new Date(last.time * 1000).toISOString()}>
            {formatZonedDateTime(last.time * 1000, timeZone)}
          </time>
        </div>
      </CardContent>
    </Card>
  )
}
