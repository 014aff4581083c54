import type { APIRequestContext, Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { activatePaperKey, pageApi, pageApiCall } from './page-api'
import { expect, test } from './fixtures'

type SignalView = { symbol: string; recommendation: string }
type OpenTrades = { results: { id: number; symbol: string }[] }

/** BTCUSDT's latest signal as the server lists it (undefined before the first rating). */
async function btcSignal(page: Page): Promise<string | undefined> {
  const signals = await pageApi<SignalView[]>(page, 'GET', '/api/signals/')
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
    const records = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    const settingsPath = `/api/bot-settings/${String(records.at(0)?.id)}/`
    await pageApi(page, 'PUT', settingsPath, { max_trades: 100, max_total_usdt: 100_000, max_trade_usdt: 20 })

    // An active paper key (the paper exchange), then the bot (it starts the signals first).
    await activatePaperKey(page)
    await pageApi(page, 'POST', '/api/command/bot/start/')
    const { path } = await pageApi<{ path: string }>(page, 'POST', '/api/webhook/')
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
    await pageApi(page, 'PUT', settingsPath, {
      forbidden_days_enabled: true,
      forbidden_days: [0, 1, 2, 3, 4, 5, 6],
    })
    const open = await pageApi<OpenTrades>(page, 'GET', '/api/trades/?status=open&page_size=100')
    for (const trade of open.results.filter((t) => t.symbol !== 'BTCUSDT')) {
      // 409 when its stop or take profit closed it meanwhile.
      const [status] = await pageApiCall(page, 'POST', `/api/trades/${trade.id}/close/`)
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

    await pageApi(page, 'POST', '/api/command/bot/stop/')
  })
})
