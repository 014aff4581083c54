import { useState } from 'react'
import { PageHeader } from '@/components/page-header'
import { cn } from '@/lib/utils'
import { BacktestForm } from '@/features/backtest/components/backtest-form'
import { BacktestResultView } from '@/features/backtest/components/backtest-result'
import { ParitySection } from '@/features/backtest/components/parity-section'
import { RunsTable } from '@/features/backtest/components/runs-table'
import { backtestStrings as s } from '@/features/backtest/strings'

/**
 * /backtest (issue 19): the form, the user's runs with their progress, and one run's result (the
 * /stats figures, curve and heatmap, and its trades; a sweep's table and heatmaps), or two runs
 * side by side (a sweep and the run of one of its cells, opened by a click on the cell).
 */
export function BacktestPage() {
  const [selected, setSelected] = useState<number[]>([])

  return (
    <div className="space-y-6">
      <PageHeader title={s.title} description={s.description} />
      <BacktestForm
        onStarted={(run) => {
          setSelected([run.id])
        }}
      />
      <RunsTable
        selected={selected}
        onOpen={(id) => {
          setSelected([id])
        }}
        onCompare={(id) => {
          setSelected((old) => [...old.filter((other) => other !== id).slice(-1), id])
        }}
      />
      {selected.length > 0 ? (
        <div
          aria-label={selected.length === 2 ? s.comparing : undefined}
          role={selected.length === 2 ? 'group' : undefined}
          className={cn('grid grid-cols-1 gap-6', selected.length === 2 && 'xl:grid-cols-2')}
        >
          {selected.map((id) => (
            <BacktestResultView
              key={id}
              id={id}
              onOpenRun={(run) => {
                // A sweep's cell: the sweep stays, its run opens beside it.
                setSelected([id, run.id])
              }}
            />
          ))}
        </div>
      ) : null}
      <ParitySection />
    </div>
  )
}
