import { useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { ApiError } from '@/lib/api-client'
import { useStartBacktest, type Backtest, type BacktestInput } from '@/features/backtest/api/backtests'
import { backtestStrings as s } from '@/features/backtest/strings'

type Source = 'ratings' | 'alerts'

/** A date `days` before today, as YYYY-MM-DD (the browser's date; the server checks the user's). */
function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  const month = String(date.getMonth() + 1).padStart(2, '0')
  const day = String(date.getDate()).padStart(2, '0')
  return `${String(date.getFullYear())}-${month}-${day}`
}

/** The settings a run may change; empty means the saved value. */
const OVERRIDES = [
  { key: 'initial_stop_loss_pct', label: s.stopLoss, step: '0.01' },
  { key: 'take_profit_first_pct', label: s.takeProfit, step: '0.01' },
  { key: 'leverage', label: s.leverage, step: '1' },
] as const

type OverrideKey = (typeof OVERRIDES)[number]['key']

/** The new-run form: period, symbols, signal source and a few settings to try. */
export function BacktestForm({ onStarted }: { onStarted: (run: Backtest) => void }) {
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

  const fields = start.error instanceof ApiError ? (start.error.fields ?? {}) : {}
  const fieldError = (name: string) => fields[name]?.join(' ')

  function submit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault()
    const changed: Record<string, number> = {}
    for (const { key } of OVERRIDES) {
      const value = overrides[key].trim()
      if (value !== '') changed[key] = Number(value)
    }
    const input: BacktestInput = {
      date_from: dateFrom,
      date_to: dateTo,
      symbols: symbols
        .split(',')
        .map((symbol) => symbol.trim())
        .filter((symbol) => symbol !== ''),
      source,
      overrides: changed,
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
              placeholder="BTCUSDT, ETHUSDT"
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
                placeholder={s.savedValue}
                value={overrides[key]}
                onChange={(event) => {
                  const value = event.target.value
                  setOverrides((old) => ({ ...old, [key]: value }))
                }}
              />
              {error(`overrides.${key}`)}
            </div>
          ))}
          <div className="flex items-end">
            <Button type="submit" disabled={start.isPending} className="w-full">
              {start.isPending ? s.starting : s.run}
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
