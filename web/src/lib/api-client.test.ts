import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError, call, client, pathUrl, setUnauthorizedHandler } from '@/lib/api-client'
import { getStoredUser, getToken, setSession } from '@/lib/session'

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

function mockFetch(response: () => Response): FetchMock {
  const fetchMock = vi.fn<typeof fetch>(() => Promise.resolve(response()))
  vi.stubGlobal('fetch', fetchMock)
  return fetchMock
}

/** The last request the client sent, as a Request (the client calls fetch with a path and init). */
function lastRequest(fetchMock: FetchMock): Request {
  const call = fetchMock.mock.calls.at(-1)
  if (!call) throw new Error('fetch was not called')
  const [path, init] = call
  if (typeof path !== 'string') throw new Error('the client calls fetch with a path')
  return new Request(new URL(path, window.location.origin), init)
}

const user = { id: 1, username: 'admin' }

describe('typed api client', () => {
  let onUnauthorized: ReturnType<typeof vi.fn<() => void>>
  let restoreHandler: () => void

  beforeEach(() => {
    onUnauthorized = vi.fn<() => void>()
    restoreHandler = setUnauthorizedHandler(onUnauthorized)
  })

  afterEach(() => {
    restoreHandler()
    document.cookie = 'csrftoken=; max-age=0'
  })

  it('calls the typed path with credentials included and answers its data', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, user))
    await expect(call(client.GET('/api/auth/me/'))).resolves.toEqual(user)
    const request = lastRequest(fetchMock)
    expect(new URL(request.url).pathname).toBe('/api/auth/me/')
    expect(request.method).toBe('GET')
    expect(request.credentials).toBe('include')
    expect(request.headers.get('Accept')).toBe('application/json')
  })

  it('fills path parameters and leaves undefined query parameters out', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, []))
    await call(client.POST('/api/api-keys/{id}/set_active/', { params: { path: { id: 7 } } }))
    expect(new URL(lastRequest(fetchMock).url).pathname).toBe('/api/api-keys/7/set_active/')
    await call(client.GET('/api/logs/', { params: { query: { level: undefined, limit: 5 } } }))
    expect(new URL(lastRequest(fetchMock).url).search).toBe('?limit=5')
  })

  it('builds download URLs by path, without empty values', () => {
    expect(pathUrl('/api/trades/export.csv', { period: 'all', symbol: undefined, sort: 'newest' })).toBe(
      '/api/trades/export.csv?period=all&sort=newest',
    )
  })

  it('sends Authorization: Token <t> when a token is stored, and none without', async () => {
    setSession('abc123', user)
    const fetchMock = mockFetch(() => jsonResponse(200, user))
    await call(client.GET('/api/auth/me/'))
    expect(lastRequest(fetchMock).headers.get('Authorization')).toBe('Token abc123')
    localStorage.clear()
    await call(client.GET('/api/auth/check/'))
    expect(lastRequest(fetchMock).headers.has('Authorization')).toBe(false)
  })

  it('copies the csrftoken cookie into X-CSRFToken on POST, PUT and DELETE but not GET', async () => {
    document.cookie = 'csrftoken=csrf-value-1'
    const fetchMock = mockFetch(() => jsonResponse(200, {}))
    await call(client.POST('/api/auth/logout/'))
    expect(lastRequest(fetchMock).headers.get('X-CSRFToken')).toBe('csrf-value-1')
    await call(client.PUT('/api/bot-settings/{id}/', { params: { path: { id: 1 } }, body: { leverage: 5 } }))
    expect(lastRequest(fetchMock).headers.get('X-CSRFToken')).toBe('csrf-value-1')
    await call(client.DELETE('/api/api-keys/{id}/', { params: { path: { id: 1 } } }))
    expect(lastRequest(fetchMock).headers.get('X-CSRFToken')).toBe('csrf-value-1')
    await call(client.GET('/api/dashboard/'))
    expect(lastRequest(fetchMock).headers.has('X-CSRFToken')).toBe(false)
  })

  it('sends bodies as JSON', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { token: 't', user }))
    await call(client.POST('/api/auth/login/', { body: { username: 'admin', password: 'secret' } }))
    const request = lastRequest(fetchMock)
    await expect(request.text()).resolves.toBe(JSON.stringify({ username: 'admin', password: 'secret' }))
    expect(request.headers.get('Content-Type')).toBe('application/json')
  })

  it('throws an ApiError with the message of the error field, the status and the fields', async () => {
    mockFetch(() =>
      jsonResponse(400, { error: 'Invalid settings', fields: { leverage: ['must be between 1 and 100'] } }),
    )
    const error = await call(
      client.PUT('/api/bot-settings/{id}/', { params: { path: { id: 1 } }, body: { leverage: 500 } }),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 400,
      message: 'Invalid settings',
      fields: { leverage: ['must be between 1 and 100'] },
    })
  })

  it('falls back to a status message when the body has no error field', async () => {
    mockFetch(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }))
    await expect(call(client.GET('/api/dashboard/'))).rejects.toMatchObject({
      status: 502,
      message: 'Request failed with status 502 Bad Gateway',
    })
  })

  it('on a 401 clears token and user and calls the unauthorized handler', async () => {
    setSession('expired', user)
    mockFetch(() => jsonResponse(401, { error: 'Authentication required' }))
    await expect(call(client.GET('/api/dashboard/'))).rejects.toMatchObject({
      status: 401,
      message: 'Authentication required',
    })
    expect(getToken()).toBeNull()
    expect(getStoredUser()).toBeNull()
    expect(onUnauthorized).toHaveBeenCalledTimes(1)
  })

  it('on a 403 keeps the session unless the call opted in', async () => {
    setSession('valid', user)
    mockFetch(() => jsonResponse(403, { error: 'Forbidden' }))
    await expect(call(client.GET('/api/bot-settings/'))).rejects.toMatchObject({ status: 403 })
    expect(getToken()).toBe('valid')
    expect(onUnauthorized).not.toHaveBeenCalled()
    await expect(call(client.GET('/api/bot-settings/'), { logoutOn403: true })).rejects.toMatchObject({
      status: 403,
    })
    expect(getToken()).toBeNull()
    expect(onUnauthorized).toHaveBeenCalledTimes(1)
  })

  it('reports a 503 to the store health and leaves the session alone on other errors', async () => {
    const health = await import('@/lib/store-health')
    const degraded = vi.spyOn(health, 'setStoreDegraded').mockImplementation(() => undefined)
    setSession('valid', user)
    mockFetch(() => jsonResponse(503, { error: 'The database is unreachable' }))
    await expect(call(client.GET('/api/dashboard/'))).rejects.toMatchObject({ status: 503 })
    expect(degraded).toHaveBeenCalledWith(true)
    expect(getToken()).toBe('valid')
    degraded.mockRestore()
  })

  it('reports an unreachable server as an ApiError with status 0', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() => Promise.reject(new TypeError('Failed to fetch'))),
    )
    await expect(call(client.GET('/api/dashboard/'))).rejects.toMatchObject({ status: 0 })
  })

  it('passes the caller’s abort signal', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}))
    const controller = new AbortController()
    await call(client.GET('/api/dashboard/', { signal: controller.signal }))
    expect(lastRequest(fetchMock).signal.aborted).toBe(false)
    controller.abort()
    expect(lastRequest(fetchMock).signal.aborted).toBe(true)
  })

  it('refuses, at type-check time, a path, parameter or body the contract does not have', () => {
    // Never called: tsc checks these lines (the build runs it); each must be an error.
    const unchecked = () => [
      // @ts-expect-error no such path
      client.GET('/api/no-such-path/'),
      // @ts-expect-error the id is a number
      client.DELETE('/api/api-keys/{id}/', { params: { path: { id: 'one' } } }),
      // @ts-expect-error login takes a username and a password
      client.POST('/api/auth/login/', { body: { user: 'admin' } }),
      // @ts-expect-error GET /api/logs/ has no `page` parameter
      client.GET('/api/logs/', { params: { query: { page: 2 } } }),
    ]
    expect(typeof unchecked).toBe('function')
  })
})
