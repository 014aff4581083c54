import { useMutation } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import type { TwoFactorSetup } from '@/types/api'

/**
 * POST /api/auth/2fa/setup/: a new secret and its otpauth:// URL, answered this once. The caller
 * keeps them in component state only (never the query cache or localStorage).
 */
export function setupTwoFactor(): Promise<TwoFactorSetup> {
  return call(client.POST('/api/auth/2fa/setup/'))
}

export function useSetupTwoFactor() {
  return useMutation({ mutationFn: setupTwoFactor, gcTime: 0 })
}
