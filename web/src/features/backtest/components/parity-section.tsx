import { Fragment, useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { ApiError } from '@/lib/api-client'
import { pnlClass } from '@/lib/pnl-class'
import { liveNumberFormat } from '@/lib/format-number'
import { cn } from '@/lib/utils'
import {
  useParity,
  type ParityPeriod,
  type ParityReport,
  type ParityRow,
  type ParitySide,
} from '@/features/backtest/api/parity'
import { backtestStrings as s } from '@/features/backtest/strings'

/** A date `days` before today, as YYYY-MM-DD (the browser's date; the server checks the user's). */
function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  const month = String(date.getMonth() + 1).padStart(2, '0')
  const day = String(date.getDate()).padStart(2, '0')
  return `${String(date.getFullYear())}-${month}-${day}`
}

/** Unix ms as `YYYY-MM-DD HH:MM:SS.mmm` UTC. */
function formatTime(ms: number | null | undefined): string {
  if (ms == null) return '–'
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
}

/**
 * The exact figures the two sides booked, to 12 significant digits (float noise cut), ungrouped as
 * the exchange writes them, with the language's decimal mark.
 */
const exactFormat = liveNumberFormat({ maximumSignificantDigits: 12, useGrouping: false })

function formatNumber(value: number | null | undefined): string {
  return value == null ? '–' : exactFormat.format(value)
}

function signed(value: number | null | undefined, unit = ''): string {
  if (value == null) return '–'
  const text = formatNumber(value)
  return `${value > 0 ? '+' : ''}${text}${unit}`
}

type Field = {
  /** The field's name in `parityFields`, read while rendering so that it follows the language. */
  name: keyof typeof s.parityFields
  live: (side: ParitySide) => string
  diff: (row: ParityRow) => { text: string; zero: boolean }
}

const FIELDS: Field[] = [
  {
    name: 'entryTime',
    live: (side) => formatTime(side.entry_at),
    diff: (row) => ({
      text: signed(row.difference?.entry_at_ms, ' ms'),
      zero: !row.difference?.entry_at_ms,
    }),
  },
  {
    name: 'entryPrice',
    live: (side) => formatNumber(side.entry_price),
    diff: (row) => ({ text: signed(row.difference?.entry_price), zero: !row.difference?.entry_price }),
  },
  {
    name: 'exitTime',
    live: (side) => formatTime(side.exit_at),
    diff: (row) => ({
      text: signed(row.difference?.exit_at_ms, ' ms'),
      zero: !row.difference?.exit_at_ms,
    }),
  },
  {
    name: 'exitPrice',
    live: (side) => formatNumber(side.exit_price),
    diff: (row) => ({ text: signed(row.difference?.exit_price), zero: !row.difference?.exit_price }),
  },
  {
    name: 'fees',
    live: (side) => formatNumber(side.fees),
    diff: (row) => ({ text: signed(row.difference?.fees), zero: !row.difference?.fees }),
  },
  {
    name: 'funding',
    live: (side) => formatNumber(side.funding),
    diff: (row) => ({ text: signed(row.difference?.funding), zero: !row.difference?.funding }),
  },
  {
    name: 'pnl',
    live: (side) => formatNumber(side.pnl),
    diff: (row) => ({ text: signed(row.difference?.pnl), zero: !row.difference?.pnl }),
  },
]

function Trade({ row }: { row: ParityRow }) {
  const traded = (row.live ?? row.backtest)?.side
  const side = traded === 'long' || traded === 'short' ? s.tradeSides[traded] : (traded ?? '')
  const title = `${row.symbol} ${side} (${s.paritySignal(row.signal_id, row.step)})`
  return (
    <Fragment>
      <TableRow className={cn(!row.agrees && 'bg-destructive/5')}>
        <TableCell colSpan={4} className="font-medium">
          {title}{' '}
          <span className={cn('text-xs', row.agrees ? 'text-muted-foreground' : 'text-destructive')}>
            {row.agrees ? s.parityAgrees : s.parityDiffers}
          </span>
          {row.reason ? <p className="text-xs font-normal text-muted-foreground">{row.reason}</p> : null}
        </TableCell>
      </TableRow>
      {FIELDS.map((field) => {
        const diff = field.diff(row)
        return (
          <TableRow key={field.name}>
            <TableCell className="pl-6 text-muted-foreground">{s.parityFields[field.name]}</TableCell>
            <TableCell className="font-mono text-xs">{row.live ? field.live(row.live) : '–'}</TableCell>
            <TableCell className="font-mono text-xs">
              {row.backtest ? field.live(row.backtest) : '–'}
            </TableCell>
            <TableCell
              className={cn('font-mono text-xs', row.difference && !diff.zero && 'text-destructive')}
            >
              {row.difference ? diff.text : '–'}
            </TableCell>
          </TableRow>
        )
      })}
    </Fragment>
  )
}

function Totals({ report }: { report: ParityReport }) {
  const t = report.totals
  const lines: [string, string, string, string][] = [
    [s.parityFields.trades, String(t.live.trades), String(t.backtest.trades), signed(t.difference.trades)],
    [
      s.parityFields.fees,
      formatNumber(t.live.fees),
      formatNumber(t.backtest.fees),
      signed(t.difference.fees),
    ],
    [
      s.parityFields.funding,
      formatNumber(t.live.funding),
      formatNumber(t.backtest.funding),
      signed(t.difference.funding),
    ],
    [s.parityFields.pnl, formatNumber(t.live.pnl), formatNumber(t.backtest.pnl), signed(t.difference.pnl)],
  ]
  return (
    <Table phoneCards aria-label={s.parityTotals}>
      <TableHeader>
        <TableRow>
          <TableHead>{s.parityTotals}</TableHead>
          <TableHead>{s.parityLive}</TableHead>
          <TableHead>{s.parityBacktest}</TableHead>
          <TableHead>{s.parityDifference}</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {lines.map(([label, live, backtest, diff]) => (
          <TableRow key={label}>
            <TableCell>{label}</TableCell>
            <TableCell
              className={cn('font-mono text-xs', label === s.parityFields.pnl && pnlClass(t.live.pnl))}
            >
              {live}
            </TableCell>
            <TableCell
              className={cn('font-mono text-xs', label === s.parityFields.pnl && pnlClass(t.backtest.pnl))}
            >
              {backtest}
            </TableCell>
            <TableCell className="font-mono text-xs">{diff}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  )
}

function Report({ report }: { report: ParityReport }) {
  return (
    <div className="space-y-4">
      <p className="text-sm">
        {s.paritySignals(report.signals, report.data)}{' '}
        <span className={cn(report.differences > 0 ? 'text-destructive' : 'text-muted-foreground')}>
          {report.differences > 0 ? s.parityDifferences(report.differences) : s.parityNoDifferences}
        </span>
      </p>
      {report.rows.length === 0 ? (
        <p className="text-sm text-muted-foreground">{s.parityNone}</p>
      ) : (
        <div className="overflow-x-auto">
          <Table phoneCards aria-label={s.parityTable}>
            <TableHeader>
              <TableRow>
                <TableHead />
                <TableHead>{s.parityLive}</TableHead>
                <TableHead>{s.parityBacktest}</TableHead>
                <TableHead>{s.parityDifference}</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {report.rows.map((row) => (
                <Trade
                  key={`${String(row.signal_id)}-${String(row.step)}-${String(row.live?.trade_id)}-${String(row.backtest?.trade_id)}`}
                  row={row}
                />
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      <Totals report={report} />
    </div>
  )
}

/**
 * "Backtest vs reality" (issue 29): pick a period, replay the bot's signals of it through a
 * backtest of the current settings and show both sets of trades side by side, the one-sided ones
 * with their reason, and the totals.
 */
export function ParitySection() {
  const id = useId()
  const [from, setFrom] = useState(() => daysAgo(7))
  const [to, setTo] = useState(() => daysAgo(1))
  const [period, setPeriod] = useState<ParityPeriod | null>(null)
  const parity = useParity(period)
  const fields = parity.error instanceof ApiError ? (parity.error.fields ?? {}) : {}
  const error = (name: string) => {
    const message = fields[name]?.join(' ')
    return message ? (
      <p role="alert" className="text-sm text-destructive">
        {message}
      </p>
    ) : null
  }

  function submit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault()
    setPeriod({ from, to })
  }

  return (
    <Card role="region" aria-label={s.parity}>
      <CardHeader>
        <CardTitle>{s.parity}</CardTitle>
        <p className="text-sm text-muted-foreground">{s.parityHint}</p>
      </CardHeader>
      <CardContent className="space-y-4">
        <form onSubmit={submit} aria-label={s.parity} className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <div className="space-y-1">
            <Label htmlFor={`${id}-from`}>{s.parityFrom}</Label>
            <Input
              id={`${id}-from`}
              type="date"
              value={from}
              onChange={(event) => {
                setFrom(event.target.value)
              }}
            />
            {error('from')}
          </div>
          <div className="space-y-1">
            <Label htmlFor={`${id}-to`}>{s.parityTo}</Label>
            <Input
              id={`${id}-to`}
              type="date"
              value={to}
              onChange={(event) => {
                setTo(event.target.value)
              }}
            />
            {error('to')}
          </div>
          <div className="flex items-end">
            <Button type="submit" disabled={parity.isFetching} className="w-full">
              {parity.isFetching ? s.parityRunning : s.parityRun}
            </Button>
          </div>
          {parity.error && Object.keys(fields).length === 0 ? (
            <p role="alert" className="text-sm text-destructive sm:col-span-3">
              {parity.error.message}
            </p>
          ) : null}
        </form>
        {parity.data ? <Report report={parity.data} /> : null}
      </CardContent>
    </Card>
  )
}
