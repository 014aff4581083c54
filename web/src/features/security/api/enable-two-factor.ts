import { useMutation, useQueryClient } from '@tanstack/react-query'
import { call, client } from '@/lib/api-client'
import { invalidateTwoFactor } from '@/features/security/api/get-two-factor'
import type { TwoFactorEnabled } from '@/types/api'

/** POST /api/auth/2fa/enable/ with a current code: turns 2FA on; answers the recovery codes once. */
export function enableTwoFactor(code: string): Promise<TwoFactorEnabled> {
  return call(client.POST('/api/auth/2fa/enable/', { body: { code } }))
}

export function useEnableTwoFactor() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: enableTwoFactor,
    gcTime: 0,
    onSuccess: () => invalidateTwoFactor(queryClient),
  })
}
