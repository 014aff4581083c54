import type { UseQueryResult } from '@tanstack/react-query'
import { RotateCw, type LucideIcon } from 'lucide-react'
import { useId, type ReactNode } from 'react'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'

type SettingsCardProps = {
  icon: LucideIcon
  title: string
  description: string
  children: ReactNode
}

/**
 * A card of the settings page below the form (the channels, the TradingView webhook): a region
 * named by its heading, the icon, title and description, and its content in two columns from
 * the `lg` breakpoint.
 */
export function SettingsCard({ icon: Icon, title, description, children }: SettingsCardProps) {
  const headingId = useId()
  return (
    <Card role="region" aria-labelledby={headingId}>
      <CardHeader className="flex-row items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <Icon aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="space-y-1">
          <CardTitle>
            <h2 id={headingId} className="text-base">
              {title}
            </h2>
          </CardTitle>
          <CardDescription>{description}</CardDescription>
        </div>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-6 lg:grid-cols-2">{children}</CardContent>
    </Card>
  )
}

type QueryStateProps<T> = {
  query: UseQueryResult<T>
  strings: { loading: string; loadFailed: string; retry: string }
  children: (data: T) => ReactNode
}

/** A query's loading state, its failure with the server's message and Retry, else `children(data)`. */
export function QueryState<T>({ query, strings, children }: QueryStateProps<T>) {
  if (query.isPending) {
    return (
      <div role="status" className="flex items-center gap-3 py-2 text-sm text-muted-foreground">
        <Spinner className="size-4 text-primary" />
        <span>{strings.loading}</span>
      </div>
    )
  }
  if (query.isError) {
    return (
      <ErrorAlert>
        <p className="font-medium">{strings.loadFailed}</p>
        <p className="mt-1 text-destructive/90">{serverMessage(query.error)}</p>
        <Button
          variant="outline"
          size="sm"
          className="mt-3"
          disabled={query.isFetching}
          onClick={() => void query.refetch()}
        >
          <RotateCw aria-hidden="true" />
          {strings.retry}
        </Button>
      </ErrorAlert>
    )
  }
  return <>{children(query.data)}</>
}
