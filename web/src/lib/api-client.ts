import createClient, { type Middleware } from 'openapi-fetch'
import { liveSection } from '@/i18n/catalogue'
import { clearSession, getToken } from '@/lib/session'
import { setStoreDegraded } from '@/lib/store-health'
import type { ErrorBody } from '@/types/api'
import type { paths } from '@/types/openapi.gen'

/**
 * The one HTTP client of the app (spec sections 6 and 7), typed by path from the server's
 * OpenAPI document (web/openapi.json -> src/types/openapi.gen.ts): a wrong path, parameter or
 * body fails `tsc`. Every call is `call(client.GET('/api/...', { params, body, signal }))`.
 *
 * - Plain objects are sent as JSON (openapi-fetch's body serializer); FormData is left as is.
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

/** The client's own failure texts, in the current language. */
const apiStrings = liveSection('api')

function errorFrom(status: number, statusText: string, body: unknown): ApiError {
  let message = apiStrings.requestFailed(statusText ? `${status} ${statusText}` : String(status))
  let fields: Record<string, string[]> | undefined
  if (body && typeof body === 'object') {
    const { error, fields: f } = body as ErrorBody
    if (typeof error === 'string' && error) message = error
    if (f && typeof f === 'object') fields = f
  }
  return new ApiError(status, message, fields, body)
}

/** Adds the session's headers to every request: Accept, the token and the CSRF cookie. */
const sessionHeaders: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has('Accept')) request.headers.set('Accept', 'application/json')
    const token = getToken()
    if (token) request.headers.set('Authorization', `Token ${token}`)
    if (!SAFE_METHODS.has(request.method)) {
      const csrf = readCookie('csrftoken')
      if (csrf) request.headers.set('X-CSRFToken', csrf)
    }
    return request
  },
}

/** The typed client; read its answers through `call`, which applies the rules above. */
export const client = createClient<paths>({
  // Absolute, because a Request needs a full URL outside the browser (tests); same origin in it.
  baseUrl: window.location.origin,
  credentials: 'include',
  // Sent on as a same-origin path with its init, as the app always has: the global fetch is
  // looked up at each call (tests stub it) and sees `(path, init)` like any other caller.
  fetch: async (request) => {
    const url = new URL(request.url)
    return fetch(url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      body: request.body === null ? undefined : await request.text(),
      credentials: request.credentials,
      signal: request.signal,
    })
  },
})
client.use(sessionHeaders)

type Answer = { data?: unknown; error?: unknown; response: Response }

export type CallOptions = {
  /** Treat a 403 like a 401: clear the session and go to /login (spec: "a 403 in one handler"). */
  logoutOn403?: boolean
}

/**
 * The data of a successful answer of `client`; otherwise the session rules above and an
 * `ApiError`. A network failure is an `ApiError` with status 0; an abort is rethrown as is.
 */
export async function call<A extends Answer>(
  request: Promise<A>,
  { logoutOn403 = false }: CallOptions = {},
): Promise<NonNullable<A['data']>> {
  let answer: A
  try {
    answer = await request
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause
    throw new ApiError(0, apiStrings.networkError)
  }
  const { response } = answer
  if (response.ok) return answer.data as NonNullable<A['data']>
  if (response.status === 401 || (response.status === 403 && logoutOn403)) {
    clearSession()
    unauthorizedHandler()
  }
  if (response.status === 503) setStoreDegraded(true)
  throw errorFrom(response.status, response.statusText, answer.error)
}

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? Q : never

/**
 * The URL of a GET path with its query, for what the browser downloads itself (the CSV export):
 * typed by path like every call; null and undefined values are left out.
 */
export function pathUrl<P extends keyof paths>(path: P, query: Query<P>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries<unknown>(query ?? {})) {
    if (value === undefined || value === null) continue
    search.append(
      key,
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value),
    )
  }
  const text = search.toString()
  return text ? `${path}?${text}` : path
}
