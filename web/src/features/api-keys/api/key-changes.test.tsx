import { QueryClientProvider } from '@tanstack/react-query'
import { renderHook } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { createQueryClient } from '@/lib/query-client'
import { apiKeyRecord } from '@/testing/fixtures'
import { stubServer } from '@/testing/render-app'
import { useDeactivateApiKey } from '@/features/api-keys/api/deactivate-api-key'
import { useDeleteApiKey } from '@/features/api-keys/api/delete-api-key'
import { apiKeysQueryKey } from '@/features/api-keys/api/get-api-keys'
import { useSetActiveApiKey } from '@/features/api-keys/api/set-active-api-key'
import { botStatusQueryKey } from '@/features/dashboard/api/get-bot-status'

/** A query client holding a keys list and a bot status, and a wrapper providing it. */
function seededClient() {
  const queryClient = createQueryClient()
  queryClient.setQueryData(apiKeysQueryKey, [apiKeyRecord({ id: 2, is_active: true })])
  queryClient.setQueryData(botStatusQueryKey, { venue: { exchange: 'bybit', environment: 'demo' } })
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  )
  return { queryClient, wrapper }
}

describe('API key changes', () => {
  it.each([
    ['Deactivate', useDeactivateApiKey, 'POST /api/api-keys/2/deactivate/', 200],
    ['Set Active', useSetActiveApiKey, 'POST /api/api-keys/2/set_active/', 200],
    ['Delete', useDeleteApiKey, 'DELETE /api/api-keys/2/', 204],
  ] as const)(
    '%s refreshes the keys list and the bot status (the venue follows the active key)',
    async (_name, useChange, route, status) => {
      stubServer({ [route]: () => ({ status, body: status === 204 ? undefined : apiKeyRecord({ id: 2 }) }) })
      const { queryClient, wrapper } = seededClient()
      const { result } = renderHook(() => useChange(), { wrapper })
      await result.current.mutateAsync(2)
      expect(queryClient.getQueryState(apiKeysQueryKey)?.isInvalidated).toBe(true)
      expect(queryClient.getQueryState(botStatusQueryKey)?.isInvalidated).toBe(true)
    },
  )
})
