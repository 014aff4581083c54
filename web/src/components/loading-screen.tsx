import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/utils'

/**
 * A placeholder with a spinner and a text (the caller owns the wording): the full screen, or
 * the height `className` gives.
 */
export function LoadingScreen({ label, className = 'min-h-svh' }: { label: string; className?: string }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className={cn('flex items-center justify-center gap-3 text-muted-foreground', className)}
    >
      <Spinner className="text-primary" />
      <span>{label}</span>
    </div>
  )
}
