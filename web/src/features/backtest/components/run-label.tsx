import { useEffect, useId, useRef, useState } from 'react'
import { Pencil } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { ApiError } from '@/lib/api-client'
import { MAX_LABEL_CHARS, useLabelBacktest } from '@/features/backtest/api/backtests'
import { backtestStrings as s } from '@/features/backtest/strings'

/**
 * A run's label, edited in place: Rename opens a field (Enter or Save saves, Escape or Cancel
 * cancels; empty clears the label), and focus returns to Rename after.
 */
export function RunLabel({ id, label }: { id: number; label: string | null }) {
  const [draft, setDraft] = useState<string | null>(null)
  const save = useLabelBacktest()
  const renameRef = useRef<HTMLButtonElement>(null)
  // Set on closing the field: Rename takes the focus back once it is shown again.
  const refocus = useRef(false)
  const hintId = useId()
  const errorId = useId()
  const tooLong = draft !== null && draft.trim().length > MAX_LABEL_CHARS
  const serverError =
    save.error instanceof ApiError ? (save.error.fields?.label?.join(' ') ?? save.error.message) : null
  const error = tooLong
    ? s.labelTooLong(MAX_LABEL_CHARS)
    : save.isError
      ? (serverError ?? s.labelFailed)
      : null

  useEffect(() => {
    if (draft === null && refocus.current) {
      refocus.current = false
      renameRef.current?.focus()
    }
  }, [draft])

  const close = () => {
    refocus.current = true
    setDraft(null)
    save.reset()
  }
  const submit = () => {
    if (draft === null || tooLong) return
    save.mutate({ id, label: draft.trim() }, { onSuccess: close })
  }

  if (draft === null) {
    return (
      <div className="flex min-w-0 items-center gap-2">
        <p className={label ? 'min-w-0 break-words' : 'text-muted-foreground'} data-testid="run-label">
          {label ?? s.noLabel}
        </p>
        <Button
          ref={renameRef}
          size="sm"
          variant="ghost"
          aria-label={s.renameOf(id)}
          onClick={() => {
            setDraft(label ?? '')
          }}
        >
          <Pencil aria-hidden="true" />
          {s.rename}
        </Button>
      </div>
    )
  }
  return (
    <form
      className="flex flex-wrap items-start gap-2"
      onSubmit={(event) => {
        event.preventDefault()
        submit()
      }}
    >
      <div className="min-w-0 flex-1 space-y-1">
        <Input
          // Opened by the trader's own click on Rename: the field takes the focus.
          autoFocus
          aria-label={s.labelOf(id)}
          aria-describedby={error ? `${hintId} ${errorId}` : hintId}
          aria-invalid={error ? true : undefined}
          value={draft}
          maxLength={MAX_LABEL_CHARS + 20}
          onChange={(event) => {
            setDraft(event.target.value)
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault()
              close()
            }
          }}
        />
        <p id={hintId} className="text-xs text-muted-foreground">
          {s.labelHint}
        </p>
        {error ? (
          <p id={errorId} role="alert" className="text-xs text-destructive">
            {error}
          </p>
        ) : null}
      </div>
      <Button type="submit" size="sm" disabled={save.isPending || tooLong}>
        {s.labelSave}
      </Button>
      <Button type="button" size="sm" variant="outline" onClick={close}>
        {s.labelCancel}
      </Button>
    </form>
  )
}
