import type { ReactNode } from 'react'
import { Label } from '@/components/ui/label'
import { cn } from '@/lib/utils'

export type ControlProps = {
  id: string
  'aria-invalid': true | undefined
  'aria-describedby': string | undefined
}

type FormFieldProps = {
  id: string
  label: string
  /** The API field name, shown small under the control so the field stays recognisable. */
  apiName?: string
  hint?: ReactNode
  error?: string | undefined
  className?: string
  /** Renders the control with the id and aria attributes that tie it to the label, hint and error. */
  children: (control: ControlProps) => ReactNode
}

/** A label, a control, an optional hint and the field's error, wired for screen readers. */
export function FormField({ id, label, apiName, hint, error, className, children }: FormFieldProps) {
  const hintId = hint ? `${id}-hint` : undefined
  const errorId = error ? `${id}-error` : undefined
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined
  return (
    <div className={cn('space-y-2', className)}>
      <Label htmlFor={id} className="leading-snug">
        {label}
      </Label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error ? (
        <p id={errorId} className="text-xs font-medium text-destructive">
          {error}
        </p>
      ) : null}
      {apiName || hint ? (
        <div className="space-y-1">
          {apiName ? (
            <code aria-hidden="true" className="block truncate font-mono text-[11px] text-muted-foreground">
              {apiName}
            </code>
          ) : null}
          {hint ? (
            <p id={hintId} className="text-xs leading-relaxed text-muted-foreground">
              {hint}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}
