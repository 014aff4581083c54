import { useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { ApiError } from '@/lib/api-client'
import { useStartBacktest } from '@/features/backtest/api/backtests'
import type { BacktestRequest, BacktestRun, SweepAxis } from '@/features/backtest/api/sweep'
import { backtestStrings as s } from '@/features/backtest/strings'
import { OVERRIDES, type OverrideKey } from '@/features/backtest/utils/overrides'
import { EMPTY_SWEEP, sweepAxes, type SweepDraft } from '@/features/backtest/utils/sweep-draft'
import { SweepFields } from '@/features/backtest/components/sweep-fields'
import { WalkForwardFields } from '@/features/backtest/components/walk-forward-fields'
import {
  checkWalkForward,
  EMPTY_WALK_FORWARD,
  type WalkForwardDraft,
} from '@/features/backtest/utils/walk-forward'

type Source = 'ratings' | 'alerts'

/** A date `days` before today, as YYYY-MM-DD (the browser's date; the server checks the user's). */
function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  const month = String(date.getMonth() + 1).padStart(2, '0')
  const day = String(date.getDate()).padStart(2, '0')
  return `${String(date.getFullYear())}-${month}-${day}`
}

/**
 * The new-run form: period, symbols, signal source and a few settings to try; optionally a sweep
 * of one or two of those settings over lists of values (checked here before it is sent).
 */
export function BacktestForm({ onStarted }: { onStarted: (run: BacktestRun) => void }) {
  const id = useId()
  const start = useStartBacktest()
  const [dateFrom, setDateFrom] = useState(() => daysAgo(7))
  const [dateTo, setDateTo] = useState(() => daysAgo(1))
  const [symbols, setSymbols] = useState('')
  const [source, setSource] = useState<Source>('ratings')
  const [overrides, setOverrides] = useState<Record<OverrideKey, string>>({
    initial_stop_loss_pct: '',
    take_profit_first_pct: '',
    leverage: '',
  })
  const [sweep, setSweep] = useState<SweepDraft>(EMPTY_SWEEP)
  const [showSweepErrors, setShowSweepErrors] = useState(false)
  const [walk, setWalk] = useState<WalkForwardDraft>(EMPTY_WALK_FORWARD)
  const checked = sweepAxes(sweep)
  const walkChecked = checkWalkForward(walk, checked.axes.length)
  const swept = new Set<string>(checked.fields)

  const fields = start.error instanceof ApiError ? (start.error.fields ?? {}) : {}
  const fieldError = (name: string) => fields[name]?.join(' ')

  function submit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!checked.ok || !walkChecked.ok) {
      setShowSweepErrors(true)
      return
    }
    setShowSweepErrors(false)
    const changed: Record<string, number> = {}
    for (const { key } of OVERRIDES) {
      const value = overrides[key].trim()
      // A swept setting takes the sweep's values, not the single one.
      if (value !== '' && !swept.has(key)) changed[key] = Number(value)
    }
    const axes: SweepAxis[] = checked.axes
    const input: BacktestRequest = {
      date_from: dateFrom,
      date_to: dateTo,
      symbols: symbols
        .split(',')
        .map((symbol) => symbol.trim())
        .filter((symbol) => symbol !== ''),
      source,
      overrides: changed,
      ...(axes.length > 0 ? { sweep: axes } : {}),
      ...(walkChecked.plan ? { walk_forward: walkChecked.plan } : {}),
    }
    start.mutate(input, { onSuccess: onStarted })
  }

  const error = (name: string) => {
    const message = fieldError(name)
    return message ? (
      <p role="alert" className="text-sm text-destructive">
        {message}
      </p>
    ) : null
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>{s.form}</CardTitle>
      </CardHeader>
      <CardContent>
        <form
          onSubmit={submit}
          aria-label={s.form}
          className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4"
        >
          <div className="space-y-1">
            <Label htmlFor={`${id}-from`}>{s.dateFrom}</Label>
            <Input
              id={`${id}-from`}
              type="date"
              value={dateFrom}
              onChange={(event) => {
                setDateFrom(event.target.value)
              }}
            />
            {error('date_from')}
          </div>
          <div className="space-y-1">
            <Label htmlFor={`${id}-to`}>{s.dateTo}</Label>
            <Input
              id={`${id}-to`}
              type="date"
              value={dateTo}
              onChange={(event) => {
                setDateTo(event.target.value)
              }}
            />
            {error('date_to')}
          </div>
          <div className="space-y-1">
            <Label htmlFor={`${id}-symbols`}>{s.symbols}</Label>
            <Input
              id={`${id}-symbols`}
              placeholder={s.symbolsPlaceholder}
              value={symbols}
              onChange={(event) => {
                setSymbols(event.target.value)
              }}
            />
            <p className="text-xs text-muted-foreground">{s.symbolsHint}</p>
            {error('symbols')}
          </div>
          <div className="space-y-1">
            <Label htmlFor={`${id}-source`}>{s.source}</Label>
            <NativeSelect
              id={`${id}-source`}
              value={source}
              onChange={(event) => {
                setSource(event.target.value === 'alerts' ? 'alerts' : 'ratings')
              }}
            >
              <option value="ratings">{s.sources.ratings}</option>
              <option value="alerts">{s.sources.alerts}</option>
            </NativeSelect>
          </div>
          {OVERRIDES.map(({ key, label, step }) => (
            <div key={key} className="space-y-1">
              <Label htmlFor={`${id}-${key}`}>{label}</Label>
              <Input
                id={`${id}-${key}`}
                type="number"
                step={step}
                placeholder={swept.has(key) ? s.sweepSwept : s.savedValue}
                disabled={swept.has(key)}
                value={swept.has(key) ? '' : overrides[key]}
                onChange={(event) => {
                  const value = event.target.value
                  setOverrides((old) => ({ ...old, [key]: value }))
                }}
              />
              {error(`overrides.${key}`)}
            </div>
          ))}
          <SweepFields
            draft={sweep}
            checked={checked}
            showErrors={showSweepErrors}
            serverError={fieldError('sweep')}
            onChange={setSweep}
          />
          <WalkForwardFields
            draft={walk}
            checked={walkChecked}
            showErrors={showSweepErrors}
            serverError={fieldError('walk_forward')}
            onChange={setWalk}
          />
          <div className="flex items-end">
            <Button type="submit" disabled={start.isPending} className="w-full">
              {start.isPending
                ? s.starting
                : walkChecked.plan
                  ? s.runWalkForward
                  : checked.axes.length > 0
                    ? s.runSweep
                    : s.run}
            </Button>
          </div>
          {start.error ? (
            <p role="alert" className="text-sm text-destructive sm:col-span-2 lg:col-span-4">
              {start.error.message}
            </p>
          ) : null}
        </form>
      </CardContent>
    </Card>
  )
}
