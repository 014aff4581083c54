import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Alert } from '@/types/api'

/** GET /api/alerts/: the raised alerts (newest first), then the most recent cleared ones. */
export function getAlerts({ signal }: { signal?: AbortSignal } = {}): Promise<Alert[]> {
  return call(client.GET('/api/alerts/', { signal }))
}

export const alertsQueryKey = ['alerts'] as const

export function alertsQueryOptions() {
  return queryOptions({ queryKey: alertsQueryKey, queryFn: ({ signal }) => getAlerts({ signal }) })
}

export function useAlerts() {
  return useQuery(alertsQueryOptions())
}

/**
 * An `alert` live message: a raised alert is put first; a cleared one replaces its raised entry
 * (same id, or the same kind while active when it was sent unsaved with id 0).
 */
export function applyLiveAlert(queryClient: QueryClient, alert: Alert) {
  queryClient.setQueryData<Alert[]>(alertsQueryKey, (current) => {
    const rest = (current ?? []).filter(
      (a) => !(a.id === alert.id && alert.id !== 0) && !(a.active && a.kind === alert.kind),
    )
    return [alert, ...rest]
  })
}
