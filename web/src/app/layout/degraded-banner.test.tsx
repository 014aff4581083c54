import { QueryClientProvider } from '@tanstack/react-query'
import { act, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DegradedBanner } from '@/app/layout/degraded-banner'
import { layoutStrings } from '@/app/layout/strings'
import { call, client } from '@/lib/api-client'
import { createQueryClient } from '@/lib/query-client'
import { HEALTH_POLL_MS, HEALTH_URL, setStoreDegraded } from '@/lib/store-health'

const UNREACHABLE = {
  error: 'The database is unreachable: Signal Desk is running in degraded mode and will recover by itself.',
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

/** fetch answering `/healthz` with `health()` and every API call with `apiStatus()`. */
function stubFetch(health: () => number, apiStatus: () => number) {
  const fetchMock = vi.fn<typeof fetch>((input) => {
    const url = input instanceof Request ? input.url : input.toString()
    if (url === HEALTH_URL) {
      const status = health()
      return Promise.resolve(json(status, status === 200 ? { status: 'ok' } : { status: 'degraded' }))
    }
    const status = apiStatus()
    return Promise.resolve(json(status, status === 200 ? [] : UNREACHABLE))
  })
  vi.stubGlobal('fetch', fetchMock)
  return fetchMock
}

function renderBanner() {
  const queryClient = createQueryClient()
  const invalidate = vi.spyOn(queryClient, 'invalidateQueries')
  render(
    <QueryClientProvider client={queryClient}>
      <DegradedBanner />
    </QueryClientProvider>,
  )
  return { invalidate }
}

const banner = () => screen.queryByRole('alert')

describe('degraded-mode banner', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })

  afterEach(() => {
    act(() => {
      setStoreDegraded(false)
    })
    vi.useRealTimers()
  })

  it('appears on a 503 answer and stays while /healthz answers 503', async () => {
    const fetchMock = stubFetch(
      () => 503,
      () => 503,
    )
    renderBanner()
    expect(banner()).toBeNull()

    await act(async () => {
      await expect(call(client.GET('/api/logs/'))).rejects.toMatchObject({
        status: 503,
        message: UNREACHABLE.error,
      })
    })
    expect(banner()).toHaveTextContent(layoutStrings.degraded.title)
    expect(banner()).toHaveTextContent(layoutStrings.degraded.detail)

    await act(() => vi.advanceTimersByTimeAsync(HEALTH_POLL_MS))
    expect(fetchMock).toHaveBeenCalledWith(HEALTH_URL, expect.anything())
    expect(banner()).not.toBeNull()
  })

  it('disappears once /healthz answers 200 and fetches every query again', async () => {
    let health = 503
    stubFetch(
      () => health,
      () => 503,
    )
    const { invalidate } = renderBanner()
    await act(async () => {
      await call(client.GET('/api/dashboard/')).catch(() => undefined)
    })
    expect(banner()).not.toBeNull()

    health = 200
    await act(() => vi.advanceTimersByTimeAsync(HEALTH_POLL_MS))
    expect(banner()).toBeNull()
    expect(invalidate).toHaveBeenCalled()
  })

  it('is not shown for other failures, nor cleared by a successful API answer', async () => {
    let apiStatus = 500
    stubFetch(
      () => 503,
      () => apiStatus,
    )
    renderBanner()
    await act(async () => {
      await call(client.GET('/api/logs/')).catch(() => undefined)
    })
    expect(banner()).toBeNull()

    apiStatus = 503
    await act(async () => {
      await call(client.GET('/api/logs/')).catch(() => undefined)
    })
    apiStatus = 200
    await act(async () => {
      await call(client.GET('/api/logs/'))
    })
    expect(banner()).not.toBeNull()
  })
})
