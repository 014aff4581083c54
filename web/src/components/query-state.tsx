import type { UseQueryResult } from '@tanstack/react-query'
import { RotateCw, type LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/utils'

/**
 * The app's one loading / error / empty look. `QueryState` picks the state of a TanStack query;
 * the three pieces are for the places whose state is not one query (a boot screen, a paged search
 * that keeps its last page). The caller owns every text (from its feature's catalogue section).
 */

/**
 * `block`: centred in a page or a card, with room above and below (`className` sets how much);
 * `inline`: a small line at the start, for a section inside a card.
 */
type Layout = 'block' | 'inline'

/** A spinner and `label` (role "status" named by it, announced politely; shown unless `labelHidden`). */
export function LoadingState({
  label,
  labelHidden = false,
  layout = 'block',
  className,
}: {
  label: string
  labelHidden?: boolean
  layout?: Layout
  className?: string
}) {
  return (
    <div
      role="status"
      aria-live="polite"
      aria-label={label}
      className={cn(
        'flex items-center gap-3 text-muted-foreground',
        layout === 'block' ? 'justify-center py-12' : 'py-2 text-sm',
        className,
      )}
    >
      <Spinner className={cn('text-primary', layout === 'inline' && 'size-4')} />
      <span className={labelHidden ? 'sr-only' : undefined}>{label}</span>
    </div>
  )
}

export type Retry = { label: string; busy: boolean; onRetry: () => void }

/** An error box (role "alert"): `title`, the failure's `message` when there is one, and Retry when given. */
export function ErrorState({
  title,
  message,
  retry,
  className,
}: {
  title: string
  message?: string | null
  retry?: Retry
  className?: string
}) {
  return (
    <ErrorAlert className={className}>
      <p className="font-medium">{title}</p>
      {message ? <p className="mt-1 text-destructive/90">{message}</p> : null}
      {retry ? (
        <Button variant="outline" size="sm" className="mt-3" disabled={retry.busy} onClick={retry.onRetry}>
          <RotateCw aria-hidden="true" />
          {retry.label}
        </Button>
      ) : null}
    </ErrorAlert>
  )
}

/** A dashed box saying there is nothing to show, with the feature's `icon` above `text` when given. */
export function EmptyState({
  text,
  icon: Icon,
  className,
}: {
  text: string
  icon?: LucideIcon
  className?: string
}) {
  return (
    <div
      className={cn(
        'flex flex-col items-center justify-center gap-3 rounded-lg border border-dashed py-10 text-center',
        className,
      )}
    >
      {Icon ? (
        <span className="flex size-10 items-center justify-center rounded-full bg-muted text-muted-foreground">
          <Icon aria-hidden="true" className="size-5" />
        </span>
      ) : null}
      <p className="text-sm text-muted-foreground">{text}</p>
    </div>
  )
}

export type QueryStateStrings = {
  loading: string
  loadFailed: string
  /** Without it the error box has no Retry button. */
  retry?: string
  /** Shown (with `emptyIcon`) when `isEmpty(data)`. */
  empty?: string
}

type QueryStateProps<T> = {
  query: UseQueryResult<T, unknown>
  strings: QueryStateStrings
  isEmpty?: (data: T) => boolean
  emptyIcon?: LucideIcon
  /** False where the page shows only its own title on failure. */
  showErrorMessage?: boolean
  layout?: Layout
  /** The room the loading and empty states take (padding, height). */
  className?: string
  children: (data: T) => ReactNode
}

/**
 * A query's loading state, its failure with the error's message and Retry, the empty state when
 * `isEmpty(data)`, else `children(data)`.
 */
export function QueryState<T>({
  query,
  strings,
  isEmpty,
  emptyIcon,
  showErrorMessage = true,
  layout = 'block',
  className,
  children,
}: QueryStateProps<T>) {
  if (query.isPending) return <LoadingState label={strings.loading} layout={layout} className={className} />
  if (query.isError) {
    return (
      <ErrorState
        title={strings.loadFailed}
        message={showErrorMessage && query.error instanceof Error ? query.error.message : null}
        retry={
          strings.retry === undefined
            ? undefined
            : { label: strings.retry, busy: query.isFetching, onRetry: () => void query.refetch() }
        }
      />
    )
  }
  if (isEmpty?.(query.data) && strings.empty !== undefined) {
    return <EmptyState text={strings.empty} icon={emptyIcon} className={className} />
  }
  return <>{children(query.data)}</>
}
