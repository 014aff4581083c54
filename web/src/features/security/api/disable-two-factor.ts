import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateTwoFactor } from '@/features/security/api/get-two-factor'
import type { TwoFactorDisabled } from '@/types/api'

/** POST /api/auth/2fa/disable/ with a current code or a recovery code. */
export function disableTwoFactor(code: string): Promise<TwoFactorDisabled> {
  return call(client.POST('/api/auth/2fa/disable/', { body: { code } }))
}

export function useDisableTwoFactor() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: disableTwoFactor,
    onSuccess: () => invalidateTwoFactor(queryClient),
  })
}
