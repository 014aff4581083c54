import { describe, expect, it } from 'vitest'
import { ApiError } from '@/lib/api-client'
import { createQueryClient, shouldRetryQuery } from '@/lib/query-client'

describe('query client defaults', () => {
  it('does not refetch on window focus and keeps the cache 5 minutes', () => {
    const defaults = createQueryClient().getDefaultOptions().queries
    expect(defaults?.refetchOnWindowFocus).toBe(false)
    expect(defaults?.gcTime).toBe(5 * 60 * 1000)
  })

  it('retries a failed query once', () => {
    const error = new ApiError(503, 'Service unavailable')
    expect(shouldRetryQuery(0, error)).toBe(true)
    expect(shouldRetryQuery(1, error)).toBe(false)
    expect(shouldRetryQuery(0, new TypeError('network'))).toBe(true)
    expect(shouldRetryQuery(1, new TypeError('network'))).toBe(false)
  })

  it('does not retry answers the server gave on purpose (4xx)', () => {
    for (const status of [400, 401, 403, 404, 409, 429]) {
      expect(shouldRetryQuery(0, new ApiError(status, 'no'))).toBe(false)
    }
  })
})

describe('live entries', () => {
  it('keeps the live feed data for as long as the app runs', () => {
    const defaults = createQueryClient().getQueryDefaults(['live', 'balance'])
    expect(defaults.gcTime).toBe(Infinity)
    expect(defaults.staleTime).toBe(Infinity)
  })
})
