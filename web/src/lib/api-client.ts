import { clearSession, getToken } from '@/lib/session'
import { setStoreDegraded } from '@/lib/store-health'
import type { ErrorBody } from '@/types/api'

/**
 * The one HTTP client of the app (spec sections 6 and 7).
 *
 * - Paths are relative to the base path `/api/` (`api.get('auth/me/')` calls `/api/auth/me/`).
 * - Plain objects are sent as JSON; FormData, Blob, URLSearchParams and strings are left as is.
 * - Cookies are always sent (`credentials: 'include'`).
 * - `Authorization: Token <t>` when a token is stored.
 * - `X-CSRFToken` copied from the `csrftoken` cookie on every method but GET, HEAD and OPTIONS.
 * - A 401 clears the stored session and calls the unauthorized handler (which navigates to
 *   /login); a 403 does the same only when the call passes `logoutOn403: true`.
 * - A 503 means the server's database is unreachable (degraded mode): it is reported to
 *   lib/store-health, which shows the banner until `/healthz` answers 200 again.
 * - Failures throw an `ApiError` whose message is the `error` field of the JSON body.
 * - No timeout: pass `signal` to cancel (TanStack Query does so for queries).
 */

export const API_BASE = '/api/'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export class ApiError extends Error {
  readonly status: number
  readonly fields: Record<string, string[]> | undefined
  readonly body: unknown

  constructor(status: number, message: string, fields?: Record<string, string[]>, body?: unknown) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.fields = fields
    this.body = body
  }
}

/**
 * The sentence the server itself gave (`error` of the JSON body), if any. Features use it for
 * "the server's message, or <fallback>" (spec section 8); a network failure or a body without
 * `error` gives undefined.
 */
export function serverMessage(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return undefined
  const { error: sentence } = error.body as ErrorBody
  return typeof sentence === 'string' && sentence.trim() ? sentence : undefined
}

export type QueryParams = Record<string, string | number | boolean | null | undefined>

export type RequestOptions = Omit<RequestInit, 'body' | 'method'> & {
  method?: string
  body?: unknown
  /** Query-string parameters; null and undefined values are left out. */
  params?: QueryParams
  /** Treat a 403 like a 401: clear the session and go to /login (spec: "a 403 in one handler"). */
  logoutOn403?: boolean
}

type UnauthorizedHandler = () => void

function defaultUnauthorizedHandler() {
  if (window.location.pathname !== '/login') window.location.assign('/login')
}

let unauthorizedHandler: UnauthorizedHandler = defaultUnauthorizedHandler

/**
 * Sets what happens after a 401 (or an opted-in 403) has cleared the session. The app registers a
 * router navigation; the default is a full-page load of /login. Returns a function restoring the default.
 */
export function setUnauthorizedHandler(handler: UnauthorizedHandler): () => void {
  unauthorizedHandler = handler
  return () => {
    if (unauthorizedHandler === handler) unauthorizedHandler = defaultUnauthorizedHandler
  }
}

export function readCookie(name: string): string | null {
  if (typeof document === 'undefined' || !document.cookie) return null
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        return part.slice(eq + 1).trim()
      }
    }
  }
  return null
}

export function buildUrl(path: string, params?: QueryParams): string {
  const url = path.startsWith(API_BASE) ? path : API_BASE + path.replace(/^\/+/, '')
  if (!params) return url
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.append(key, String(value))
  }
  const query = search.toString()
  return query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url
}

function isPassThroughBody(body: unknown): body is BodyInit {
  return (
    typeof body === 'string' ||
    body instanceof FormData ||
    body instanceof Blob ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream)
  )
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined
  const text = await response.text()
  if (!text) return undefined
  const type = response.headers.get('content-type') ?? ''
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      return text
    }
  }
  return text
}

function errorFrom(status: number, statusText: string, body: unknown): ApiError {
  let message = `Request failed with status ${status}${statusText ? ` ${statusText}` : ''}`
  let fields: Record<string, string[]> | undefined
  if (body && typeof body === 'object') {
    const { error, fields: f } = body as ErrorBody
    if (typeof error === 'string' && error) message = error
    if (f && typeof f === 'object') fields = f
  }
  return new ApiError(status, message, fields, body)
}

export async function apiRequest<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method: rawMethod, body, params, logoutOn403 = false, headers: extraHeaders, ...init } = options
  const method = (rawMethod ?? 'GET').toUpperCase()
  const headers = new Headers(extraHeaders)
  if (!headers.has('Accept')) headers.set('Accept', 'application/json')

  const token = getToken()
  if (token) headers.set('Authorization', `Token ${token}`)

  if (!SAFE_METHODS.has(method)) {
    const csrf = readCookie('csrftoken')
    if (csrf) headers.set('X-CSRFToken', csrf)
  }

  let requestBody: BodyInit | undefined
  if (body !== undefined && body !== null) {
    if (isPassThroughBody(body)) {
      requestBody = body
    } else {
      requestBody = JSON.stringify(body)
      if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json')
    }
  }

  let response: Response
  try {
    response = await fetch(buildUrl(path, params), {
      ...init,
      method,
      headers,
      body: requestBody,
      credentials: 'include',
    })
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause
    throw new ApiError(0, 'Network error: the server could not be reached')
  }

  const data = await readBody(response)
  if (response.ok) return data as T

  if (response.status === 401 || (response.status === 403 && logoutOn403)) {
    clearSession()
    unauthorizedHandler()
  }
  if (response.status === 503) setStoreDegraded(true)
  throw errorFrom(response.status, response.statusText, data)
}

type MethodOptions = Omit<RequestOptions, 'method' | 'body'>

export const api = {
  get: <T = unknown>(path: string, options?: MethodOptions) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T = unknown>(path: string, options?: MethodOptions) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
}
