import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError, api, apiRequest, buildUrl, setUnauthorizedHandler } from '@/lib/api-client'
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

function lastCall(fetchMock: FetchMock): { url: string; init: RequestInit; headers: Headers } {
  const call = fetchMock.mock.calls.at(-1)
  if (!call) throw new Error('fetch was not called')
  const [url, init = {}] = call
  return { url: url instanceof Request ? url.url : url.toString(), init, headers: new Headers(init.headers) }
}

const user = { id: 1, username: 'admin' }

describe('api client', () => {
  let onUnauthorized: ReturnType<typeof vi.fn<() => void>>
  let restoreHandler: () => void

  beforeEach(() => {
    onUnauthorized = vi.fn<() => void>()
    restoreHandler = setUnauthorizedHandler(onUnauthorized)
  })

  afterEach(() => {
    restoreHandler()
  })

  it('calls paths under /api/ with credentials included', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, user))
    await expect(api.get('auth/me/')).resolves.toEqual(user)
    const { url, init } = lastCall(fetchMock)
    expect(url).toBe('/api/auth/me/')
    expect(init.method).toBe('GET')
    expect(init.credentials).toBe('include')
  })

  it('accepts paths with a leading slash or the base path and adds query parameters', () => {
    expect(buildUrl('/auth/me/')).toBe('/api/auth/me/')
    expect(buildUrl('/api/stats/', { period: 'custom', date_from: '2024-01-01', date_to: undefined })).toBe(
      '/api/stats/?period=custom&date_from=2024-01-01',
    )
  })

  it('sends Authorization: Token <t> when a token is stored', async () => {
    setSession('abc123', user)
    const fetchMock = mockFetch(() => jsonResponse(200, user))
    await api.get('auth/me/')
    expect(lastCall(fetchMock).headers.get('Authorization')).toBe('Token abc123')
  })

  it('sends no Authorization header without a stored token', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { authenticated: false, user: null }))
    await api.get('auth/check/')
    expect(lastCall(fetchMock).headers.has('Authorization')).toBe(false)
  })

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'copies the csrftoken cookie into X-CSRFToken on %s',
    async (method) => {
      document.cookie = 'csrftoken=csrf-value-1'
      const fetchMock = mockFetch(() => jsonResponse(200, {}))
      await apiRequest('bot-settings/1/', { method })
      expect(lastCall(fetchMock).init.method).toBe(method)
      expect(lastCall(fetchMock).headers.get('X-CSRFToken')).toBe('csrf-value-1')
    },
  )

  it.each(['GET', 'HEAD', 'OPTIONS'])('sends no X-CSRFToken on %s', async (method) => {
    document.cookie = 'csrftoken=csrf-value-1'
    const fetchMock = mockFetch(() => new Response(null, { status: 200 }))
    await apiRequest('bot-settings/', { method })
    expect(lastCall(fetchMock).headers.has('X-CSRFToken')).toBe(false)
  })

  it('sends no X-CSRFToken when there is no csrftoken cookie', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}))
    await api.post('auth/logout/')
    expect(lastCall(fetchMock).headers.has('X-CSRFToken')).toBe(false)
  })

  it('sends plain objects as JSON', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { token: 't', user }))
    await api.post('auth/login/', { username: 'admin', password: 'secret' })
    const { init, headers } = lastCall(fetchMock)
    expect(init.body).toBe(JSON.stringify({ username: 'admin', password: 'secret' }))
    expect(headers.get('Content-Type')).toBe('application/json')
  })

  it('leaves FormData as is, without a JSON content type', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}))
    const form = new FormData()
    form.append('key', 'value')
    await api.post('uploads/', form)
    const { init, headers } = lastCall(fetchMock)
    expect(init.body).toBe(form)
    expect(headers.has('Content-Type')).toBe(false)
  })

  it('sends no body when none is given', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { status: 'ok' }))
    await api.post('auth/logout/')
    const { init, headers } = lastCall(fetchMock)
    expect(init.body).toBeUndefined()
    expect(headers.has('Content-Type')).toBe(false)
  })

  it('throws an ApiError with the message of the error field, the status and the fields', async () => {
    mockFetch(() =>
      jsonResponse(400, { error: 'Invalid settings', fields: { leverage: ['must be between 1 and 100'] } }),
    )
    const error = await api.put('bot-settings/1/', { leverage: 500 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 400,
      message: 'Invalid settings',
      fields: { leverage: ['must be between 1 and 100'] },
    })
  })

  it('falls back to a status message when the body has no error field', async () => {
    mockFetch(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }))
    await expect(api.get('dashboard/')).rejects.toMatchObject({
      status: 502,
      message: 'Request failed with status 502 Bad Gateway',
    })
  })

  it('on a 401 clears token and user and goes to /login', async () => {
    setSession('expired', user)
    mockFetch(() => jsonResponse(401, { error: 'Authentication required' }))
    await expect(api.get('dashboard/')).rejects.toMatchObject({
      status: 401,
      message: 'Authentication required',
    })
    expect(getToken()).toBeNull()
    expect(getStoredUser()).toBeNull()
    expect(localStorage.getItem('token')).toBeNull()
    expect(localStorage.getItem('user')).toBeNull()
    expect(onUnauthorized).toHaveBeenCalledTimes(1)
  })

  it('without a registered handler a 401 loads /login', async () => {
    restoreHandler()
    const assign = vi.fn()
    vi.stubGlobal('location', { pathname: '/dashboard', assign })
    setSession('expired', user)
    mockFetch(() => jsonResponse(401, { error: 'Authentication required' }))
    await expect(api.get('dashboard/')).rejects.toBeInstanceOf(ApiError)
    expect(assign).toHaveBeenCalledWith('/login')
    expect(getToken()).toBeNull()
  })

  it('on a 403 keeps the session unless the call opted in', async () => {
    setSession('valid', user)
    mockFetch(() => jsonResponse(403, { error: 'CSRF token missing or incorrect' }))
    await expect(api.post('api-keys/1/set_active/')).rejects.toMatchObject({
      status: 403,
      message: 'CSRF token missing or incorrect',
    })
    expect(getToken()).toBe('valid')
    expect(onUnauthorized).not.toHaveBeenCalled()
  })

  it('on a 403 with logoutOn403 clears the session and goes to /login', async () => {
    setSession('valid', user)
    mockFetch(() => jsonResponse(403, { error: 'Forbidden' }))
    await expect(api.get('bot-settings/', { logoutOn403: true })).rejects.toMatchObject({ status: 403 })
    expect(getToken()).toBeNull()
    expect(getStoredUser()).toBeNull()
    expect(onUnauthorized).toHaveBeenCalledTimes(1)
  })

  it('leaves the session alone on other errors', async () => {
    setSession('valid', user)
    mockFetch(() => jsonResponse(500, { error: 'Internal error' }))
    await expect(api.get('dashboard/')).rejects.toMatchObject({ status: 500, message: 'Internal error' })
    expect(getToken()).toBe('valid')
    expect(onUnauthorized).not.toHaveBeenCalled()
  })

  it('reports an unreachable server as an ApiError with status 0', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() => Promise.reject(new TypeError('Failed to fetch'))),
    )
    await expect(api.get('dashboard/')).rejects.toMatchObject({ status: 0 })
  })

  it('sets no timeout: no abort signal unless the caller passes one', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}))
    await api.get('dashboard/')
    expect(lastCall(fetchMock).init.signal).toBeUndefined()
    const controller = new AbortController()
    await api.get('dashboard/', { signal: controller.signal })
    expect(lastCall(fetchMock).init.signal).toBe(controller.signal)
  })
})
