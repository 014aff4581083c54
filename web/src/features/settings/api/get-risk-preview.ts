import { queryOptions, skipToken, useQuery } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { BotSettingsPayload, RiskPreview } from '@/types/api'

/**
 * POST /api/bot-settings/risk-preview/ with a settings payload (the PUT's fields and format;
 * fields left out are taken from the saved settings): the martingale steps and warnings of those
 * settings. Nothing is saved, so it is read as a query, one cache entry per payload. 400
 * `{error, fields}` on invalid values.
 */
export function getRiskPreview(
  payload: BotSettingsPayload,
  { signal }: { signal?: AbortSignal } = {},
): Promise<RiskPreview> {
  return call(client.POST('/api/bot-settings/risk-preview/', { body: payload, signal }))
}

export const riskPreviewQueryKey = ['risk-preview'] as const

/** `payload` null: nothing to ask (the form's values do not parse); the query waits. */
export function riskPreviewQueryOptions(payload: BotSettingsPayload | null) {
  return queryOptions({
    queryKey: [...riskPreviewQueryKey, payload],
    queryFn: payload ? ({ signal }) => getRiskPreview(payload, { signal }) : skipToken,
  })
}

export function useRiskPreview(payload: BotSettingsPayload | null) {
  return useQuery(riskPreviewQueryOptions(payload))
}
