import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { ApiKey, NewApiKey } from '@/types/api'
import { invalidateApiKeys } from '@/features/api-keys/api/get-api-keys'

export type CreateApiKeyInput = NewApiKey

/** POST /api/api-keys/: 201 with the stored key, masked; 400 with `fields` when key or secret is empty. */
export function createApiKey(input: CreateApiKeyInput): Promise<ApiKey> {
  return call(client.POST('/api/api-keys/', { body: input }))
}

/**
 * gcTime 0: the mutation, whose variables hold the key and the secret, leaves the cache as soon as
 * the form lets go of it (the form resets it after a success), so no secret stays in memory.
 */
export function useCreateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createApiKey,
    gcTime: 0,
    onSuccess: () => invalidateApiKeys(queryClient),
  })
}
