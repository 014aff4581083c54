import { expect, type Page } from '@playwright/test'

/** The status and JSON body of an API call made as the logged-in page (its stored token). */
export async function pageApiCall(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ([verb, target, payload]) => {
      const answer = await fetch(target, {
        method: verb,
        headers: {
          Authorization: `Token ${localStorage.getItem('token') ?? ''}`,
          'Content-Type': 'application/json',
        },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      })
      const text = await answer.text()
      return [answer.status, text ? (JSON.parse(text) as unknown) : null] as const
    },
    [method, path, body] as const,
  )
}

/**
 * Calls the API as the logged-in page does (its stored token; no cookie or CSRF needed) and
 * answers the JSON body; fails the test, with the body, on a status of 300 or more.
 */
export async function pageApi<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const [status, json] = await pageApiCall(page, method, path, body)
  expect(status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300)
  return json as T
}

/** Adds a paper-exchange key for the logged-in page's user and makes it the active one. */
export async function activatePaperKey(page: Page) {
  const key = await pageApi<{ id: number }>(page, 'POST', '/api/api-keys/', {
    key: 'paper-key',
    secret: 'paper-secret',
    is_demo: true,
    exchange: 'paper',
  })
  await pageApi(page, 'POST', `/api/api-keys/${String(key.id)}/set_active/`)
}
