import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { Backtest, BacktestInput, BacktestResult } from '@/types/api'
import type { BacktestRequest, BacktestRun } from '@/features/backtest/api/sweep'

export type { Backtest, BacktestInput, BacktestResult }

/** How often a running backtest is read again. */
export const RUNNING_POLL_MS = 500

const LIST_KEY = ['backtests'] as const

/**
 * A run as the pages read it (./sweep): the document types `kind` as a string and hour ranges as
 * arrays, which the server always sends as one of its kinds and as pairs.
 */
function readRun<T>(answer: Promise<T>): Promise<BacktestRun> {
  return answer as Promise<unknown> as Promise<BacktestRun>
}

/** GET /api/backtests/: the user's runs, newest first, without results. */
export function backtestsQueryOptions() {
  return queryOptions({
    queryKey: LIST_KEY,
    queryFn: ({ signal }) =>
      readRun(call(client.GET('/api/backtests/', { signal }))) as Promise<unknown> as Promise<BacktestRun[]>,
    refetchInterval: (query) =>
      query.state.data?.some((run) => run.status === 'running') ? RUNNING_POLL_MS : false,
  })
}

export function useBacktests() {
  return useQuery(backtestsQueryOptions())
}

/** GET /api/backtests/{id}/: one run, read again while it runs; its result once done. */
export function useBacktest(id: number | null) {
  return useQuery({
    queryKey: [...LIST_KEY, id],
    queryFn: ({ signal }) =>
      readRun(call(client.GET('/api/backtests/{id}/', { params: { path: { id: id ?? 0 } }, signal }))),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? RUNNING_POLL_MS : false),
  })
}

function refreshAll(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: LIST_KEY })
}

/** POST /api/backtests/ (a single run, or a sweep): 202 with the run; 400 with `fields`; 409 while another runs. */
export function useStartBacktest() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: BacktestRequest) => readRun(call(client.POST('/api/backtests/', { body: input }))),
    onSuccess: () => refreshAll(queryClient),
  })
}

/** POST /api/backtests/{id}/cancel/. */
export function useCancelBacktest() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: number) =>
      call(client.POST('/api/backtests/{id}/cancel/', { params: { path: { id } } })),
    onSettled: () => refreshAll(queryClient),
  })
}

/** DELETE /api/backtests/{id}/. */
export function useDeleteBacktest() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: number) => call(client.DELETE('/api/backtests/{id}/', { params: { path: { id } } })),
    onSettled: () => refreshAll(queryClient),
  })
}

/** The longest label the server takes, in characters. */
export const MAX_LABEL_CHARS = 80

/** PATCH /api/backtests/{id}/ `{"label": …}`: sets the run's label (trimmed; empty clears it). */
export function useLabelBacktest() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, label }: { id: number; label: string }) =>
      readRun(call(client.PATCH('/api/backtests/{id}/', { params: { path: { id } }, body: { label } }))),
    onSuccess: (run) => {
      queryClient.setQueryData([...LIST_KEY, run.id], run)
      return refreshAll(queryClient)
    },
  })
}
