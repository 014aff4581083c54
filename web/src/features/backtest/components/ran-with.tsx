import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import type { BacktestResult } from '@/features/backtest/api/backtests'
import type { BacktestRequest } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { overrideLabel } from '@/features/backtest/utils/overrides'
import { formatNumber } from '@/lib/format-number'

type RanWithProps = {
  request: BacktestRequest
  /** The settings the run traded with (a sweep's and a walk-forward's base settings). */
  settings: BacktestResult['settings']
  history: BacktestResult['history']
  /** The paper wallet it started with. */
  wallet?: number
}

/**
 * "Ran with": the data, period, symbols and the settings that matter, as the run used them, so a
 * result explains itself. The settings a run changed are marked; a sweep's swept ones named.
 */
export function RanWith({ request, settings, history, wallet }: RanWithProps) {
  const changed = new Set(Object.keys(request.overrides ?? {}))
  const swept = (request.sweep ?? []).map((axis) => axis.field as string)
  const symbols =
    request.symbols && request.symbols.length > 0
      ? request.symbols
      : (settings.symbols ?? []).length > 0 && request.source !== 'alerts'
        ? (settings.symbols ?? [])
        : null
  const rows: { term: string; value: string; fields?: string[] }[] = [
    { term: s.ranWithData, value: history.data === 'bybit' ? s.dataBybit : s.dataSimulated(history.seed) },
    {
      term: s.ranWithPeriod,
      value: s.periodIn(request.date_from, request.date_to, settings.user_timezone),
    },
    { term: s.ranWithSymbols, value: symbols ? symbols.join(', ') : s.allSymbols },
    { term: s.ranWithSignals, value: s.sources[request.source === 'alerts' ? 'alerts' : 'ratings'] },
    { term: s.ranWithMode, value: s.modes[settings.bot_mode] ?? settings.bot_mode },
    { term: s.ranWithLeverage, value: `${String(settings.leverage)}x`, fields: ['leverage'] },
    {
      term: s.ranWithOrder,
      value: s.usdt(formatNumber(settings.max_trade_usdt, 2)),
      fields: ['max_trade_usdt'],
    },
    {
      term: s.ranWithMaxTotal,
      value: s.usdt(formatNumber(settings.max_total_usdt, 2)),
      fields: ['max_total_usdt'],
    },
    { term: s.ranWithStop, value: s.pct(settings.initial_stop_loss_pct), fields: ['initial_stop_loss_pct'] },
    {
      term: s.ranWithTakeProfits,
      value: s.takeProfits(settings.take_profit_first_pct, settings.take_profit_next_pct),
      fields: ['take_profit_first_pct', 'take_profit_next_pct'],
    },
    {
      term: s.ranWithTrailing,
      value: settings.use_trailing_stop
        ? s.trailingOn(settings.trail_activation_pct, settings.trail_step_pct)
        : s.trailingOff,
      fields: ['use_trailing_stop', 'trail_activation_pct', 'trail_step_pct'],
    },
  ]
  if (settings.bot_mode === 'martingale') {
    rows.push({
      term: s.ranWithMartingale,
      value: s.martingaleOf(
        settings.martingale_max_depth,
        settings.martingale_step,
        formatNumber(settings.martingale_initial_margin, 2),
      ),
      fields: ['martingale_max_depth', 'martingale_step', 'martingale_initial_margin'],
    })
  }
  if (wallet !== undefined) rows.push({ term: s.ranWithWallet, value: s.usdt(formatNumber(wallet, 2)) })
  if (swept.length > 0) {
    rows.push({ term: s.ranWithSwept, value: swept.map(overrideLabel).join(' × ') })
  }

  return (
    <Card className="py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-base">{s.ranWith}</CardTitle>
      </CardHeader>
      <CardContent className="px-4">
        <dl
          aria-label={s.ranWith}
          className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr_max-content_1fr]"
        >
          {rows.map((row) => {
            const marked = row.fields?.some((field) => changed.has(field)) ?? false
            return (
              <div key={row.term} className="contents">
                <dt className="text-muted-foreground">{row.term}</dt>
                <dd className="min-w-0 break-words tabular-nums">
                  {row.value}
                  {marked ? (
                    <span className="ml-1 text-xs text-muted-foreground">({s.ranWithOverride})</span>
                  ) : null}
                </dd>
              </div>
            )
          })}
        </dl>
      </CardContent>
    </Card>
  )
}
