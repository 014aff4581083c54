import { useId } from 'react'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { backtestStrings as s } from '@/features/backtest/strings'
import { isOverrideKey, OVERRIDES } from '@/features/backtest/utils/overrides'
import type { CheckedSweep, SweepDraft, SweepDraftAxis } from '@/features/backtest/utils/sweep-draft'

function Alert({ children }: { children: string | undefined }) {
  return children ? (
    <p role="alert" className="text-sm text-destructive">
      {children}
    </p>
  ) : null
}

/**
 * The form's optional sweep: up to two of the settings a run may change, each with a list of
 * values; the number of runs it makes, and what is wrong with it once a submit was refused.
 */
export function SweepFields({
  draft,
  checked,
  showErrors,
  serverError,
  onChange,
}: {
  draft: SweepDraft
  checked: CheckedSweep
  showErrors: boolean
  serverError: string | undefined
  onChange: (draft: SweepDraft) => void
}) {
  const id = useId()
  const update = (index: number, change: Partial<SweepDraftAxis>) => {
    const [first, second] = draft
    onChange(index === 0 ? [{ ...first, ...change }, second] : [first, { ...second, ...change }])
  }

  return (
    <fieldset className="grid grid-cols-1 gap-4 rounded-md border p-3 sm:col-span-2 sm:grid-cols-2 lg:col-span-4 lg:grid-cols-4">
      <legend className="px-1 text-sm font-medium">{s.sweepOptional}</legend>
      <p className="text-xs text-muted-foreground sm:col-span-2 lg:col-span-4">{s.sweepHint}</p>
      {draft.map((axis, index) => {
        const number = index + 1
        const axisError = showErrors ? checked.axisErrors[index] : undefined
        return (
          <div key={number} className="contents">
            <div className="space-y-1">
              <Label htmlFor={`${id}-field-${String(number)}`}>{s.sweepField(number)}</Label>
              <NativeSelect
                id={`${id}-field-${String(number)}`}
                value={axis.field}
                onChange={(event) => {
                  const value = event.target.value
                  update(index, { field: isOverrideKey(value) ? value : '' })
                }}
              >
                <option value="">{s.sweepNone}</option>
                {OVERRIDES.map(({ key, label }) => (
                  <option key={key} value={key}>
                    {label}
                  </option>
                ))}
              </NativeSelect>
            </div>
            <div className="space-y-1">
              <Label htmlFor={`${id}-values-${String(number)}`}>{s.sweepValues(number)}</Label>
              <Input
                id={`${id}-values-${String(number)}`}
                placeholder={index === 0 ? '1..10' : '2..20:2'}
                disabled={axis.field === ''}
                aria-invalid={axisError ? true : undefined}
                value={axis.values}
                onChange={(event) => {
                  update(index, { values: event.target.value })
                }}
              />
              <Alert>{axisError}</Alert>
            </div>
          </div>
        )
      })}
      <div className="space-y-1 sm:col-span-2 lg:col-span-4">
        {checked.axes.length > 0 && checked.error === undefined ? (
          <p className="text-sm text-muted-foreground" data-testid="sweep-cells">
            {s.sweepCells(checked.cells)}
          </p>
        ) : null}
        <Alert>{showErrors ? checked.error : undefined}</Alert>
        <Alert>{serverError}</Alert>
      </div>
    </fieldset>
  )
}
