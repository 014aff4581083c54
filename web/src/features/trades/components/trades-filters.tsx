import { useId } from 'react'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { STATS_PERIODS } from '@/features/period-statistics/api/get-stats'
import { statsStrings } from '@/features/period-statistics/strings'
import { tradesStrings as s } from '@/features/trades/strings'
import {
  CLOSE_REASONS,
  oneOf,
  PAGE_SIZES,
  TRADE_SIDES,
  TRADE_SORTS,
  TRADE_STATUSES,
  type TradesFilter,
} from '@/features/trades/utils/trades-filter'

type Props = {
  filter: TradesFilter
  onChange: (filter: TradesFilter) => void
  pageSize: number
  onPageSize: (size: number) => void
}

function Field({ id, label, children }: { id: string; label: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1.5">
      <Label htmlFor={id} className="text-muted-foreground">
        {label}
      </Label>
      {children}
    </div>
  )
}

/**
 * The filter of the Trades page: the /stats periods (Custom adds two dates, sent when both are
 * set), symbol, side, status, close reason, the server's sort and the page size. Every change
 * starts again from the first page.
 */
export function TradesFilters({ filter, onChange, pageSize, onPageSize }: Props) {
  const id = useId()
  const set = (patch: Partial<TradesFilter>) => {
    onChange({ ...filter, ...patch })
  }
  return (
    <fieldset className="grid min-w-0 grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
      <legend className="sr-only">{s.filters}</legend>
      <Field id={`${id}-period`} label={s.period}>
        <NativeSelect
          id={`${id}-period`}
          value={filter.period}
          onChange={(e) => {
            const period = oneOf(STATS_PERIODS, e.target.value)
            if (period) set({ period })
          }}
        >
          {STATS_PERIODS.map((p) => (
            <option key={p} value={p}>
              {statsStrings.periodOptions[p]}
            </option>
          ))}
        </NativeSelect>
      </Field>
      {filter.period === 'custom' ? (
        <>
          <Field id={`${id}-from`} label={s.dateFrom}>
            <Input
              id={`${id}-from`}
              type="date"
              value={filter.dateFrom}
              onChange={(e) => {
                set({ dateFrom: e.target.value })
              }}
            />
          </Field>
          <Field id={`${id}-to`} label={s.dateTo}>
            <Input
              id={`${id}-to`}
              type="date"
              value={filter.dateTo}
              onChange={(e) => {
                set({ dateTo: e.target.value })
              }}
            />
          </Field>
        </>
      ) : null}
      <Field id={`${id}-symbol`} label={s.symbol}>
        <Input
          id={`${id}-symbol`}
          value={filter.symbol}
          placeholder={s.symbolPlaceholder}
          autoCapitalize="characters"
          spellCheck={false}
          onChange={(e) => {
            set({ symbol: e.target.value.toUpperCase().replace(/[^A-Z0-9]/g, '') })
          }}
        />
      </Field>
      <Field id={`${id}-side`} label={s.side}>
        <NativeSelect
          id={`${id}-side`}
          value={filter.side}
          onChange={(e) => {
            set({ side: oneOf(TRADE_SIDES, e.target.value) ?? '' })
          }}
        >
          <option value="">{s.any}</option>
          {TRADE_SIDES.map((v) => (
            <option key={v} value={v}>
              {s.sides[v]}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <Field id={`${id}-status`} label={s.status}>
        <NativeSelect
          id={`${id}-status`}
          value={filter.status}
          onChange={(e) => {
            set({ status: oneOf(TRADE_STATUSES, e.target.value) ?? '' })
          }}
        >
          <option value="">{s.any}</option>
          {TRADE_STATUSES.map((v) => (
            <option key={v} value={v}>
              {s.statuses[v]}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <Field id={`${id}-reason`} label={s.closeReason}>
        <NativeSelect
          id={`${id}-reason`}
          value={filter.closeReason}
          onChange={(e) => {
            set({ closeReason: oneOf(CLOSE_REASONS, e.target.value) ?? '' })
          }}
        >
          <option value="">{s.any}</option>
          {CLOSE_REASONS.map((v) => (
            <option key={v} value={v}>
              {s.closeReasons[v]}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <Field id={`${id}-sort`} label={s.sort}>
        <NativeSelect
          id={`${id}-sort`}
          value={filter.sort}
          onChange={(e) => {
            const sort = oneOf(TRADE_SORTS, e.target.value)
            if (sort) set({ sort })
          }}
        >
          {TRADE_SORTS.map((v) => (
            <option key={v} value={v}>
              {s.sorts[v]}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <Field id={`${id}-size`} label={s.pageSize}>
        <NativeSelect
          id={`${id}-size`}
          value={String(pageSize)}
          onChange={(e) => {
            onPageSize(Number(e.target.value))
          }}
        >
          {PAGE_SIZES.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </NativeSelect>
      </Field>
    </fieldset>
  )
}
