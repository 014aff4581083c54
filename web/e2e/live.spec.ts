import type { Page } from '@playwright/test'
import { CANDLE_EVERY_MS, expect, test } from './fixtures'

/** Counts the live feed's messages of each type as the page receives them. */
function countLiveMessages(page: Page) {
  const counts = new Map<string, number>()
  page.on('websocket', (socket) => {
    if (!socket.url().endsWith('/ws/dashboard/')) return
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') return
      const type = (JSON.parse(payload) as { type?: string }).type ?? '?'
      counts.set(type, (counts.get(type) ?? 0) + 1)
    })
  })
  return (type: string) => counts.get(type) ?? 0
}

/** Calls the API as the logged-in page does (its token, no cookie needed); returns the JSON. */
async function apiPost(page: Page, path: string, body?: unknown): Promise<unknown> {
  const [status, json] = await page.evaluate(
    async ([target, payload]) => {
      const token = localStorage.getItem('token') ?? ''
      const answer = await fetch(target, {
        method: 'POST',
        headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      })
      return [answer.status, (await answer.json()) as unknown] as const
    },
    [path, body] as const,
  )
  expect(status, path).toBeLessThan(300)
  return json
}

/** The dominant channel of an element's text colour. */
async function hue(page: Page, text: string): Promise<'red' | 'green' | 'yellow'> {
  const rgb = await page
    .getByRole('row')
    .getByText(text, { exact: true })
    .first()
    .evaluate((element) => getComputedStyle(element).color)
  const canvas = await page.evaluate((colour) => {
    const context = document.createElement('canvas').getContext('2d')
    if (!context) return [0, 0, 0]
    context.fillStyle = colour
    context.fillRect(0, 0, 1, 1)
    return Array.from(context.getImageData(0, 0, 1, 1).data.slice(0, 3))
  }, rgb)
  const [r = 0, g = 0, b = 0] = canvas
  if (r > 120 && g > 120 && b < Math.min(r, g) * 0.7) return 'yellow'
  return r > g && r > b ? 'red' : 'green'
}

test.describe('live signals and logs', () => {
  test('Start Signals fills the dashboard card and the Trading Signals page, which keep updating without a reload', async ({
    page,
    login,
    account,
  }) => {
    const received = countLiveMessages(page)
    await login(page, account)
    await expect(page.getByText('Connected', { exact: true })).toBeVisible()
    const card = page.getByRole('region', { name: 'Trading Signals (Last 5)' })
    await expect(card.getByText('No signals available')).toBeVisible()

    await page
      .getByRole('region', { name: 'Bot Status' })
      .getByRole('button', { name: 'Start Signals' })
      .click()
    await expect(page.getByText('Signals started')).toBeVisible()
    // Within a minute (here within moments: the current ratings are stored at once).
    await expect(card.getByRole('row')).toHaveCount(6, { timeout: 60_000 })
    await expect(card.getByRole('columnheader', { name: 'Symbol' })).toBeVisible()
    await expect(card.getByRole('columnheader', { name: 'Signal' })).toBeVisible()

    await card.getByRole('link', { name: 'View all' }).click()
    await expect(page).toHaveURL(/\/trading-signals$/)
    const table = page.getByRole('region', { name: 'Trading Signals' })
    // The default universe: 20 symbols, a header row above them.
    await expect(table.getByRole('row')).toHaveCount(21)
    const firstBadge = table.getByRole('row').nth(1).getByRole('cell').nth(1)
    await expect(firstBadge).toHaveText(/^(STRONG_BUY|STRONG_SELL|NEUTRAL)$/)

    // Closed candles keep arriving over the same socket; the page is never reloaded.
    const updatesBefore = received('signals_update')
    await expect
      .poll(() => received('signals_update'), { timeout: 4 * CANDLE_EVERY_MS + 10_000 })
      .toBeGreaterThanOrEqual(updatesBefore + 2)
    await expect(table.getByRole('row')).toHaveCount(21)
  })

  test('the Logs page shows the worker entries as they happen, filtered by level', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    await page.goto('/logs')
    await expect(page.getByRole('heading', { name: 'Trading Logs' })).toBeVisible()
    const table = page.getByRole('table')
    await expect(page.getByText('No logs found')).toBeVisible()

    await apiPost(page, '/api/command/signals/start/')
    const started = page.getByRole('row').filter({ hasText: 'Signal worker started' })
    await expect(started).toHaveCount(1)
    expect(await hue(page, 'info')).toBe('green')
    for (const heading of ['Time', 'Level', 'Message']) {
      await expect(table.getByRole('columnheader', { name: heading })).toBeVisible()
    }

    // Stopping signals while the bot is stopped is an info line; a rating change is logged as
    // "SYMBOL: OLD -> NEW (…)" when a candle moves one, which the sped-up market does.
    await expect(page.getByRole('row').filter({ hasText: ' -> ' }).first()).toBeVisible({
      timeout: 20 * CANDLE_EVERY_MS,
    })

    const level = page.getByLabel('Level')
    await expect(level.locator('option')).toHaveText(['All Levels', 'Info', 'Warning', 'Error'])
    await level.selectOption({ label: 'Error' })
    await expect(page.getByText('No logs found')).toBeVisible()
    await level.selectOption({ label: 'Info' })
    await expect(page.getByRole('row').filter({ hasText: 'Signal worker started' })).toHaveCount(1)

    // Stopping the signals while the bot runs is a warning, in yellow.
    await level.selectOption({ label: 'All Levels' })
    const key = (await apiPost(page, '/api/api-keys/', {
      key: 'paper-k',
      secret: 'paper-s',
      is_demo: true,
      exchange: 'paper',
    })) as {
      id: number
    }
    await apiPost(page, `/api/api-keys/${key.id}/set_active/`)
    await apiPost(page, '/api/command/bot/start/')
    await expect(page.getByRole('row').filter({ hasText: 'Trading worker started' })).toHaveCount(1)
    await apiPost(page, '/api/command/signals/stop/')
    await expect(page.getByRole('row').filter({ hasText: 'Signal worker stopped' })).toHaveCount(1)
    await expect(page.getByRole('row').filter({ hasText: 'Signals stopped while the bot runs' })).toHaveCount(
      1,
    )
    expect(await hue(page, 'warning')).toBe('yellow')
    await level.selectOption({ label: 'Warning' })
    await expect(page.getByRole('row')).toHaveCount(2)
    await apiPost(page, '/api/command/bot/stop/')
  })
})
