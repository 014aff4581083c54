import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { LOGS_CAP } from '@/lib/live/constants'
import type { LogEntry, LogLevel } from '@/types/api'

/** The level filter of the Logs page: every level, or one. */
export type LogLevelFilter = 'all' | LogLevel

export const LOG_LEVEL_FILTERS = [
  'all',
  'info',
  'warning',
  'error',
] as const satisfies readonly LogLevelFilter[]

/**
 * GET /api/logs/?level=<info|warning|error>&limit=1000 (no level for every level): the bot log,
 * newest first. This file owns one cache entry per level filter; the live feed prepends each
 * `new_log` to the 'all' list and to its own level's list through `prependLog`.
 */
export function getLogs({
  level,
  signal,
}: {
  level: LogLevelFilter
  signal?: AbortSignal
}): Promise<LogEntry[]> {
  return call(
    client.GET('/api/logs/', {
      params: { query: { level: level === 'all' ? undefined : level, limit: LOGS_CAP } },
      signal,
    }),
  )
}

export const logsQueryKey = ['logs'] as const

export function logsQueryOptions(level: LogLevelFilter) {
  return queryOptions({
    queryKey: [...logsQueryKey, level],
    queryFn: async ({ signal }) => (await getLogs({ level, signal })).slice(0, LOGS_CAP),
  })
}

export function useLogs(level: LogLevelFilter) {
  return useQuery(logsQueryOptions(level))
}

/** Spec section 4: a new entry goes first, the list capped at 1000; an id already listed is not added twice. */
export function withLogFirst(list: LogEntry[], entry: LogEntry, cap: number = LOGS_CAP): LogEntry[] {
  if (list.some((old) => old.id === entry.id)) return list
  return [entry, ...list].slice(0, cap)
}

/**
 * A `new_log`: prepended to the 'all' list and to its level's list. A list that was never loaded
 * is left alone; its first fetch brings the entry.
 */
export function prependLog(queryClient: QueryClient, entry: LogEntry) {
  for (const level of ['all', entry.level] as const) {
    queryClient.setQueryData(logsQueryOptions(level).queryKey, (old) =>
      old ? withLogFirst(old, entry) : undefined,
    )
  }
}
