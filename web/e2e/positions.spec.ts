import type { APIRequestContext, Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { activatePaperKey } from './page-api'
import { expect, test } from './fixtures'

/** Calls the API as the logged-in page does (its stored token; no cookie or CSRF needed). */
async function api<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  const [status, json] = await apiCall(page, method, path, body)
  expect(status, `${method} ${path}`).toBeLessThan(300)
  return json as T
}

/** The status and JSON body of an API call made as the page. */
async function apiCall(page: Page, method: string, path: string, body?: unknown) {
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

type SignalView = { symbol: string; recommendation: string }
type OpenTrades = { results: { id: number; symbol: string }[] }

/** BTCUSDT's latest signal as the server lists it (undefined before the first rating). */
async function btcSignal(page: Page): Promise<string | undefined> {
  const signals = await api<SignalView[]>(page, 'GET', '/api/signals/')
  return signals.find((signal) => signal.symbol === 'BTCUSDT')?.recommendation
}

/**
 * Sends the webhook alert that makes BTCUSDT change into a strong signal (an entry needs a
 * change): STRONG_SELL while it is STRONG_BUY, else STRONG_BUY.
 */
async function sendEntryAlert(page: Page, request: APIRequestContext, url: string) {
  const current = await btcSignal(page)
  const signal = current?.toUpperCase() === 'STRONG_BUY' ? 'STRONG_SELL' : 'STRONG_BUY'
  const answer = await request.post(url, { data: alertBody('BTCUSDT', signal) })
  expect(answer.status()).toBe(202)
}

test.describe('open positions', () => {
  test('a webhook entry shows up in Open Positions, closes from the card and is in the log', async ({
    page,
    login,
    account,
    request,
    server,
  }) => {
    test.setTimeout(120_000)
    await login(page, account)

    // The 20 symbols' ratings open positions of their own as the market moves: leave room for
    // every symbol, so that none of them uses up the slots BTCUSDT needs.
    const records = await api<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    const settingsPath = `/api/bot-settings/${String(records.at(0)?.id)}/`
    await api(page, 'PUT', settingsPath, { max_trades: 100, max_total_usdt: 100_000, max_trade_usdt: 20 })

    // An active paper key (the paper exchange), then the bot (it starts the signals first).
    await activatePaperKey(page)
    await api(page, 'POST', '/api/command/bot/start/')
    const { path } = await api<{ path: string }>(page, 'POST', '/api/webhook/')
    const webhookUrl = `${server.url}${path}`

    const card = page.getByRole('region', { name: 'Open Positions' })
    await expect(card).toBeVisible()
    // The worker knows BTCUSDT's current signal once the ratings are stored.
    await expect.poll(() => btcSignal(page), { timeout: 30_000 }).toBeTruthy()

    const btcRow = card.getByRole('row').filter({ hasText: 'BTCUSDT' })
    // A candle may move BTCUSDT's rating between the read and the alert: send again then.
    await expect(async () => {
      await sendEntryAlert(page, request, webhookUrl)
      await expect(btcRow).toBeVisible({ timeout: 15_000 })
    }).toPass({ timeout: 60_000 })
    await expect(btcRow.getByText(/^(Long|Short)$/)).toBeVisible()

    // Forbid further entries (every weekday) and close the other symbols' positions through the
    // API, so that the card ends up empty once BTCUSDT is closed.
    await api(page, 'PUT', settingsPath, {
      forbidden_days_enabled: true,
      forbidden_days: [0, 1, 2, 3, 4, 5, 6],
    })
    const open = await api<OpenTrades>(page, 'GET', '/api/trades/?status=open&page_size=100')
    for (const trade of open.results.filter((t) => t.symbol !== 'BTCUSDT')) {
      // 409 when its stop or take profit closed it meanwhile.
      const [status] = await apiCall(page, 'POST', `/api/trades/${trade.id}/close/`)
      expect([200, 409]).toContain(status)
    }

    await card.getByRole('button', { name: 'Close BTCUSDT' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Close the BTCUSDT position?' })
    await expect(confirm).toBeVisible()
    await confirm.getByRole('button', { name: 'Close position' }).click()
    await expect(page.getByText('Position closed')).toBeVisible()
    await expect(card.getByText('No open positions')).toBeVisible()
    await expect(btcRow).toHaveCount(0)

    await page.goto('/logs')
    // The log renders only the rows in view: page down through it until the entry is there.
    const opened = page.getByRole('row').filter({ hasText: 'BTCUSDT: opened' }).first()
    const scroller = page.getByTestId('logs-scroller')
    await expect(async () => {
      if ((await opened.count()) === 0) {
        await scroller.evaluate((element) => {
          element.scrollTop += element.clientHeight
        })
      }
      await expect(opened).toBeVisible({ timeout: 1_000 })
    }).toPass({ timeout: 30_000 })

    await api(page, 'POST', '/api/command/bot/stop/')
  })
  test('Close all names the venue, stops the bot first when asked, and the cards follow without a reload', async ({
    page,
    login,
    account,
    request,
    server,
  }) => {
    test.setTimeout(120_000)
    await login(page, account)
    const records = await api<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    const settingsPath = `/api/bot-settings/${String(records.at(0)?.id)}/`
    await api(page, 'PUT', settingsPath, { max_trades: 100, max_total_usdt: 100_000, max_trade_usdt: 20 })
    await api(page, 'POST', '/api/command/bot/start/')
    const { path } = await api<{ path: string }>(page, 'POST', '/api/webhook/')
    const card = page.getByRole('region', { name: 'Open Positions' })
    await expect.poll(() => btcSignal(page), { timeout: 30_000 }).toBeTruthy()
    const btcRow = card.getByRole('row').filter({ hasText: 'BTCUSDT' })
    await expect(async () => {
      await sendEntryAlert(page, request, `${server.url}${path}`)
      await expect(btcRow).toBeVisible({ timeout: 15_000 })
    }).toPass({ timeout: 60_000 })

    // Stop Bot says what it leaves open, and where.
    await expect(page.getByRole('button', { name: 'Stop Bot' })).toHaveAccessibleDescription(
      /^Stop Bot closes nothing: (1 position stays|\d+ positions stay) open on Paper, each with its stop loss/,
    )

    await card.getByRole('button', { name: 'Close all' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Close all open positions on Paper?' })
    await expect(dialog).toContainText('The bot keeps running and opens new positions on its next signals')
    // The summary cards follow the closes through the live feed: the dashboard is read again on
    // the same page. (Its counts are at the wall clock's now, while this sped-up simulated
    // market stamps fills ahead of it, so the figures themselves are checked by vitest.)
    const dashboardRead = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/api/dashboard/' && response.ok(),
    )
    await dialog.getByRole('button', { name: 'Close all and stop the bot' }).click()
    await expect(page.getByText(/^Closed \d+ positions?$/)).toBeVisible()
    const botStatus = page.getByRole('region', { name: 'Bot Status' })
    await expect(botStatus.getByText('Stopped', { exact: true })).toBeVisible()
    await expect(card.getByText('No open positions')).toBeVisible()
    await dashboardRead
  })
})
