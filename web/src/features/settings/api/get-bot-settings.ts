import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { shouldRetryQuery } from '@/lib/query-client'
import type { BotSettings } from '@/types/api'

/**
 * GET /api/bot-settings/: the user's settings records (exactly one; the server creates it with the
 * defaults on the first call). The first item is the record (spec section 3).
 *
 * This file owns every cache entry of that record: the settings page's query and the bot status
 * card's 5-second polling (a separate entry because only the polling logs out on a 403).
 * Mutations update and invalidate them through `setBotSettingsData` and `invalidateBotSettings`.
 */
export async function getBotSettings({
  signal,
  logoutOn403 = false,
}: { signal?: AbortSignal; logoutOn403?: boolean } = {}): Promise<BotSettings | null> {
  const records = await call(client.GET('/api/bot-settings/', { signal }), { logoutOn403 })
  // The document types hour ranges as arrays; the server sends pairs.
  return (records[0] as BotSettings | undefined) ?? null
}

export const botSettingsQueryKey = ['bot-settings'] as const

/** Spec section 8: the settings query retries once after 1 second. */
export const BOT_SETTINGS_RETRY_DELAY_MS = 1000
/** Spec section 9: the bot status card polls every 5 seconds. */
export const BOT_SETTINGS_POLL_INTERVAL_MS = 5000

export function botSettingsQueryOptions() {
  return queryOptions({
    queryKey: [...botSettingsQueryKey, 'record'],
    queryFn: ({ signal }) => getBotSettings({ signal }),
    retry: shouldRetryQuery,
    retryDelay: BOT_SETTINGS_RETRY_DELAY_MS,
  })
}

/** The bot status card's polling: the spec's one call whose 403 logs the user out. */
export function botSettingsPollingQueryOptions() {
  return queryOptions({
    queryKey: [...botSettingsQueryKey, 'polling'],
    queryFn: ({ signal }) => getBotSettings({ signal, logoutOn403: true }),
    refetchInterval: BOT_SETTINGS_POLL_INTERVAL_MS,
    retry: shouldRetryQuery,
    retryDelay: BOT_SETTINGS_RETRY_DELAY_MS,
  })
}

export function useBotSettings() {
  return useQuery(botSettingsQueryOptions())
}

export function useBotSettingsPolling() {
  return useQuery(botSettingsPollingQueryOptions())
}

/** Puts a record the server answered into every cache entry of it. */
export function setBotSettingsData(queryClient: QueryClient, record: BotSettings) {
  queryClient.setQueryData(botSettingsQueryOptions().queryKey, record)
  queryClient.setQueryData(botSettingsPollingQueryOptions().queryKey, record)
}

/** Applies a partial change (the running flags of a control answer) to every cached copy of the record. */
export function patchBotSettingsData(queryClient: QueryClient, patch: Partial<BotSettings>) {
  for (const key of [botSettingsQueryOptions().queryKey, botSettingsPollingQueryOptions().queryKey]) {
    queryClient.setQueryData(key, (old) => (old ? { ...old, ...patch } : old))
  }
}

export function invalidateBotSettings(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: botSettingsQueryKey })
}
