import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/** Calls the API with the page's token; returns the JSON answer. */
async function api(page: Page, method: string, path: string, body?: unknown): Promise<unknown> {
  const [status, json] = await page.evaluate(
    async ([verb, target, payload]) => {
      const token = localStorage.getItem('token') ?? ''
      const answer = await fetch(target, {
        method: verb,
        headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      })
      return [answer.status, (await answer.json()) as unknown] as const
    },
    [method, path, body] as const,
  )
  expect(status, `${method} ${path}`).toBeLessThan(300)
  return json
}

type TradePage = { count: number; results: { status: string; symbol: string }[] }

test('Start Bot: on a sped-up market the paper account opens and closes trades on its own, live in the logs', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(240_000)
  await login(page, account)
  // Tight exits so trades end within a minute or two of market at 180x.
  const [record] = (await api(page, 'GET', '/api/bot-settings/')) as [{ id: number }]
  await api(page, 'PUT', `/api/bot-settings/${record.id}/`, {
    max_trades: 5,
    initial_stop_loss_pct: 0.3,
    use_trailing_stop: true,
    trail_activation_pct: 0.15,
    trail_step_pct: 0.1,
    take_profit_first_pct: 0.5,
    take_profit_next_pct: 0.5,
  })
  const key = (await api(page, 'POST', '/api/api-keys/', {
    key: 'paper',
    secret: 'paper',
    is_demo: true,
    exchange: 'paper',
  })) as {
    id: number
  }
  await api(page, 'POST', `/api/api-keys/${key.id}/set_active/`)

  await page.goto('/dashboard')
  const status = page.getByRole('region', { name: 'Bot Status' })
  await status.getByRole('button', { name: 'Start Bot' }).click()
  await expect(status.getByText('Running')).toBeVisible()

  await page.goto('/logs')
  // The worker's own lines arrive live: an entry, then an exit.
  await expect(page.getByRole('row').filter({ hasText: 'Trading worker started' })).toHaveCount(1)
  await expect(
    page
      .getByRole('row')
      .filter({ hasText: /: opened (long|short) / })
      .first(),
  ).toBeVisible({
    timeout: 120_000,
  })
  await expect(
    page
      .getByRole('row')
      .filter({ hasText: /trade #\d+ closed/ })
      .first(),
  ).toBeVisible({
    timeout: 180_000,
  })
  const closed = (await api(page, 'GET', '/api/trades/?status=closed')) as TradePage
  expect(closed.count).toBeGreaterThan(0)

  await page.goto('/dashboard')
  await status.getByRole('button', { name: 'Stop Bot' }).click()
  await expect(status.getByText('Stopped')).toBeVisible()
})
