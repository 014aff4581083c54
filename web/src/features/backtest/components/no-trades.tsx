import type { BacktestResult } from '@/features/backtest/api/backtests'
import { backtestStrings as s } from '@/features/backtest/strings'

type NoTrades = NonNullable<BacktestResult['no_trades']>

/** Why a run traded nothing, as the server told it from what the run saw; shown instead of an empty table. */
export function NoTradesReason({ reason }: { reason: NoTrades }) {
  return (
    <section
      aria-label={s.noTrades}
      data-code={reason.code}
      className="rounded-md border border-dashed p-4 text-sm"
    >
      <h3 className="font-semibold">{s.noTrades}</h3>
      <p className="mt-1">{reason.text}</p>
      {reason.skips.length > 0 ? (
        <ul aria-label={s.noTradesSkips} className="mt-2 list-inside list-disc text-muted-foreground">
          {reason.skips.map((skip) => (
            <li key={skip.kind}>
              {skip.label}: <span className="tabular-nums">{skip.count}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}
