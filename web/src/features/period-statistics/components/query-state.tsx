import { RotateCw } from 'lucide-react'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { statsStrings as s } from '@/features/period-statistics/strings'

export function LoadingState() {
  return (
    <div role="status" className="flex items-center justify-center gap-3 py-12 text-muted-foreground">
      <Spinner className="text-primary" />
      <span>{s.loading}</span>
    </div>
  )
}

export function ErrorState({
  title,
  message,
  busy,
  onRetry,
}: {
  title: string
  message: string
  busy: boolean
  onRetry: () => void
}) {
  return (
    <ErrorAlert>
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-destructive/90">{message}</p>
      <Button variant="outline" size="sm" className="mt-3" disabled={busy} onClick={onRetry}>
        <RotateCw aria-hidden="true" />
        {s.retry}
      </Button>
    </ErrorAlert>
  )
}

export function EmptyState({ text }: { text: string }) {
  return (
    <p className="rounded-lg border border-dashed py-10 text-center text-sm text-muted-foreground">{text}</p>
  )
}
