import type { Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { MARKET_SPEED, expect, test } from './fixtures'
import { pageApi } from './page-api'

type Alert = {
  id: number
  kind: string
  title: string
  detail: string
  action: string
  raised_at: string
  cleared_at: string | null
  active: boolean
}

const MINUTE = 60_000
/**
 * How long the losses-in-a-row breaker holds entries, in market minutes: at the e2e market's
 * speed (180 simulated seconds a second) 180 minutes pass in a minute of real time, enough
 * for the page to see the trip and short enough to see it reset.
 */
const PAUSE_MINUTES = 180
const PAUSE_REAL_MS = (PAUSE_MINUTES * MINUTE) / Number(MARKET_SPEED)

/** A closed losing trade for `signaldesk history import`, closed at `closedAt` (market time, ms). */
function losingTrade(closedAt: number) {
  return {
    symbol: 'ETHUSDT',
    side: 'long',
    status: 'CLOSED',
    leverage: 10,
    margin: '50',
    qty: '0.2',
    entry_price: '2500',
    exit_price: '2480',
    pnl: '-4',
    fees: '0',
    opened_at: new Date(closedAt - 30 * MINUTE).toISOString(),
    closed_at: new Date(closedAt).toISOString(),
  }
}

/**
 * The market's clock now (the simulated market runs ahead of the wall clock): a webhook alert's
 * stored time. The 202 says the alert is kept; the signal worker stores it as a signal soon after.
 */
async function marketNow(page: Page, post: (signal: string) => Promise<number>): Promise<number> {
  expect(await post('NEUTRAL')).toBe(202)
  const storedAt = async () => {
    const latest = await pageApi<{ symbol: string; source: string; created_at: string }[]>(
      page,
      'GET',
      '/api/signals/latest/?limit=200',
    )
    return latest.find((s) => s.symbol === 'BTCUSDT' && s.source === 'webhook')?.created_at
  }
  await expect.poll(storedAt, { message: 'the webhook alert is stored', timeout: 15_000 }).toBeDefined()
  return Date.parse((await storedAt()) ?? '')
}

test.describe('alerts', () => {
  test('a tripped circuit breaker shows as a banner on every page until it resets', async ({
    page,
    login,
    account,
    server,
  }) => {
    test.setTimeout(180_000)
    await login(page, account)
    const banner = page.getByRole('region', { name: 'Alerts' })
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(banner).toHaveCount(0)
    expect(await pageApi<Alert[]>(page, 'GET', '/api/alerts/')).toEqual([])

    // Signals on demand: the user's TradingView webhook, with signal fetching on.
    const [record] = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    const { path } = await pageApi<{ path: string }>(page, 'POST', '/api/webhook/')
    await pageApi(page, 'POST', `/api/bot-settings/${String(record.id)}/start_signals/`)
    const post = async (signal: string) =>
      (await page.request.post(`${server.url}${path}`, { data: alertBody('BTCUSDT', signal) })).status()

    // Two losses in a row just now on the market's clock, and a breaker at two.
    const now = await marketNow(page, post)
    await server.importHistory(account.username, {
      trades: [losingTrade(now - 2 * MINUTE), losingTrade(now)],
    })
    await pageApi(page, 'PUT', `/api/bot-settings/${String(record.id)}/`, {
      max_losses_in_row: 2,
      losses_pause_minutes: PAUSE_MINUTES,
    })
    await pageApi(page, 'POST', `/api/bot-settings/${String(record.id)}/start_trading_worker/`)

    // An entry signal meets the breaker: the alert is raised and the banner says so, live.
    const alert = banner.getByRole('alert')
    await expect(async () => {
      expect(await post('NEUTRAL')).toBe(202)
      expect(await post('STRONG_BUY')).toBe(202)
      await expect(alert).toBeVisible({ timeout: 2_000 })
    }).toPass({ timeout: PAUSE_REAL_MS / 2 })
    await expect(alert).toHaveCount(1)
    await expect(alert).toContainText(
      'Circuit breaker tripped — the losses-in-a-row breaker tripped: 2 losing trades in a row (limit 2); ' +
        `no new entries for ${String(PAUSE_MINUTES)} min, until `,
    )
    await expect(alert).toContainText(/Since \w+ \d+, \d{4}/)
    await expect(alert).toContainText(
      'What the bot does: No new entries until the breaker resets; open positions keep their stops.',
    )
    const [raised] = await pageApi<Alert[]>(page, 'GET', '/api/alerts/')
    expect(raised).toMatchObject({ kind: 'circuit_breaker', active: true, cleared_at: null })

    // On every page, and after a reload (from GET /api/alerts/).
    await page.goto('/settings')
    await expect(alert).toContainText('Circuit breaker tripped')
    await page.reload()
    await expect(alert).toContainText('Circuit breaker tripped')

    // The pause runs out (at the worker's next check, every 30 s): cleared, and the banner goes.
    await expect(banner).toHaveCount(0, { timeout: PAUSE_REAL_MS + 45_000 })
    const [cleared] = await pageApi<Alert[]>(page, 'GET', '/api/alerts/')
    expect(cleared).toMatchObject({ id: raised.id, kind: 'circuit_breaker', active: false })
    expect(cleared.cleared_at).not.toBeNull()
    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeVisible()
    await expect(banner).toHaveCount(0)

    await pageApi(page, 'POST', `/api/bot-settings/${String(record.id)}/stop_bot/`)
  })
})
