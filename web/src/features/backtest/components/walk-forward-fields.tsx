import { useId } from 'react'
import { Checkbox } from '@/components/ui/checkbox'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { backtestStrings as s } from '@/features/backtest/strings'
import {
  WALK_FORWARD_METRICS,
  type CheckedWalkForward,
  type WalkForwardDraft,
  type WalkForwardMetric,
} from '@/features/backtest/utils/walk-forward'

function Alert({ children }: { children: string | undefined }) {
  return children ? (
    <p role="alert" className="text-sm text-destructive">
      {children}
    </p>
  ) : null
}

function isMetric(value: string): value is WalkForwardMetric {
  return (WALK_FORWARD_METRICS as readonly string[]).includes(value)
}

/**
 * The form's optional walk-forward of the sweep: on or off, the training and test days, and the
 * metric that picks each training window's best combination; what is wrong once a submit was refused.
 */
export function WalkForwardFields({
  draft,
  checked,
  showErrors,
  serverError,
  onChange,
}: {
  draft: WalkForwardDraft
  checked: CheckedWalkForward
  showErrors: boolean
  serverError: string | undefined
  onChange: (draft: WalkForwardDraft) => void
}) {
  const id = useId()
  return (
    <fieldset className="grid grid-cols-1 gap-4 rounded-md border p-3 sm:col-span-2 sm:grid-cols-2 lg:col-span-4 lg:grid-cols-4">
      <legend className="px-1 text-sm font-medium">{s.walkForwardOptional}</legend>
      <p className="text-xs text-muted-foreground sm:col-span-2 lg:col-span-4">{s.walkForwardHint}</p>
      <div className="flex items-center gap-2">
        <Checkbox
          id={`${id}-on`}
          checked={draft.on}
          onCheckedChange={(value) => {
            onChange({ ...draft, on: value === true })
          }}
        />
        <Label htmlFor={`${id}-on`}>{s.walkForwardOn}</Label>
      </div>
      <div className="space-y-1">
        <Label htmlFor={`${id}-train`}>{s.trainDays}</Label>
        <Input
          id={`${id}-train`}
          inputMode="numeric"
          disabled={!draft.on}
          aria-invalid={showErrors && checked.trainError ? true : undefined}
          value={draft.trainDays}
          onChange={(event) => {
            onChange({ ...draft, trainDays: event.target.value })
          }}
        />
        <Alert>{showErrors ? checked.trainError : undefined}</Alert>
      </div>
      <div className="space-y-1">
        <Label htmlFor={`${id}-test`}>{s.testDays}</Label>
        <Input
          id={`${id}-test`}
          inputMode="numeric"
          disabled={!draft.on}
          aria-invalid={showErrors && checked.testError ? true : undefined}
          value={draft.testDays}
          onChange={(event) => {
            onChange({ ...draft, testDays: event.target.value })
          }}
        />
        <Alert>{showErrors ? checked.testError : undefined}</Alert>
      </div>
      <div className="space-y-1">
        <Label htmlFor={`${id}-metric`}>{s.metric}</Label>
        <NativeSelect
          id={`${id}-metric`}
          disabled={!draft.on}
          value={draft.metric}
          onChange={(event) => {
            const value = event.target.value
            if (isMetric(value)) onChange({ ...draft, metric: value })
          }}
        >
          {WALK_FORWARD_METRICS.map((metric) => (
            <option key={metric} value={metric}>
              {s.metrics[metric]}
            </option>
          ))}
        </NativeSelect>
      </div>
      <div className="space-y-1 sm:col-span-2 lg:col-span-4">
        <Alert>{showErrors ? checked.sweepError : undefined}</Alert>
        <Alert>{serverError}</Alert>
      </div>
    </fieldset>
  )
}
