import { Spinner } from '@/components/ui/spinner'

/** A full-screen placeholder with a spinner and a text (the caller owns the wording). */
export function LoadingScreen({ label }: { label: string }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className="flex min-h-svh items-center justify-center gap-3 text-muted-foreground"
    >
      <Spinner className="text-primary" />
      <span>{label}</span>
    </div>
  )
}
