import { TriangleAlert } from 'lucide-react'
import { useId, useRef, useState } from 'react'
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
} from '@/components/ui/alert-dialog'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { dashboardStrings } from '@/features/dashboard/strings'
import { REAL_CONFIRMATION_WORD } from '@/features/dashboard/utils/real-confirmation'

const s = dashboardStrings.botStatus.realDialog

type RealConfirmDialogProps = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** Called once REAL has been typed and the confirm button pressed; the dialog closes itself. */
  onConfirm: () => void
}

/**
 * Asked before Start Bot on Bybit Real: says plainly that the bot trades real money on the Bybit
 * mainnet account, and enables its confirm button only once REAL is typed (exactly, in capitals).
 * Cancel, Escape or closing starts nothing. The field starts empty every time it opens.
 */
export function RealConfirmDialog({ open, onOpenChange, onConfirm }: RealConfirmDialogProps) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [typed, setTyped] = useState('')
  const confirmed = typed.trim() === REAL_CONFIRMATION_WORD

  const change = (next: boolean) => {
    setTyped('')
    onOpenChange(next)
  }

  return (
    <AlertDialog open={open} onOpenChange={change}>
      <AlertDialogContent
        onOpenAutoFocus={(event) => {
          event.preventDefault()
          input.current?.focus()
        }}
      >
        <form
          className="grid gap-4"
          onSubmit={(event) => {
            event.preventDefault()
            if (!confirmed) return
            change(false)
            onConfirm()
          }}
        >
          <div className="flex gap-3">
            <span className="flex size-9 shrink-0 items-center justify-center rounded-full bg-amber-100 text-amber-900 dark:bg-amber-400/15 dark:text-amber-200">
              <TriangleAlert aria-hidden="true" className="size-5" />
            </span>
            <div className="space-y-2">
              <AlertDialogTitle>{s.title}</AlertDialogTitle>
              <AlertDialogDescription>{s.description}</AlertDialogDescription>
            </div>
          </div>
          <div className="space-y-2">
            <Label htmlFor={`${id}-word`}>{s.inputLabel}</Label>
            <Input
              ref={input}
              id={`${id}-word`}
              value={typed}
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              className="font-mono tracking-widest"
              onChange={(event) => {
                setTyped(event.target.value)
              }}
            />
          </div>
          <AlertDialogFooter>
            <AlertDialogCancel type="button">{s.cancel}</AlertDialogCancel>
            <Button type="submit" variant="destructive" disabled={!confirmed}>
              {s.confirm}
            </Button>
          </AlertDialogFooter>
        </form>
      </AlertDialogContent>
    </AlertDialog>
  )
}
