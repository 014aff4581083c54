import { useInfiniteQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { AuditPage } from '@/types/api'

/** Rows per request; the server allows 1 to 200. */
export const AUDIT_LOG_PAGE_SIZE = 50

/** GET /api/audit-log/?limit=&before=: the user's own rows, newest first, older than `before`. */
export function getAuditLog({
  before,
  signal,
}: {
  before?: number | null
  signal?: AbortSignal
}): Promise<AuditPage> {
  return call(
    client.GET('/api/audit-log/', {
      params: { query: { limit: AUDIT_LOG_PAGE_SIZE, before: before ?? undefined } },
      signal,
    }),
  )
}

export const auditLogQueryKey = ['audit-log'] as const

/** The pages loaded so far; "Load more" fetches the next with the last page's `next_before`. */
export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: auditLogQueryKey,
    queryFn: ({ pageParam, signal }) => getAuditLog({ before: pageParam, signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next_before ?? undefined,
  })
}
