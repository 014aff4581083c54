import type { Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { expect, test } from './fixtures'

/** A new BTCUSDT STRONG_SELL alert each time (the same body twice within 10 s is a duplicate). */
const alert = () => ({ data: alertBody('BTCUSDT', 'STRONG_SELL') })

/** Starts signal fetching as the logged-in page would (its token; no cookie or CSRF needed). */
async function startSignals(page: Page) {
  const status = await page.evaluate(async () => {
    const headers = { Authorization: `Token ${localStorage.getItem('token') ?? ''}` }
    const records = (await (await fetch('/api/bot-settings/', { headers })).json()) as { id: number }[]
    const id = records[0]?.id ?? 0
    const answer = await fetch(`/api/bot-settings/${String(id)}/start_signals/`, { method: 'POST', headers })
    return answer.status
  })
  expect(status).toBe(200)
}

/** The newest stored signals (every source), read through the API as the page. */
async function latestSignals(page: Page) {
  return page.evaluate(async () => {
    const headers = { Authorization: `Token ${localStorage.getItem('token') ?? ''}` }
    const answer = await fetch('/api/signals/latest/?limit=200', { headers })
    return (await answer.json()) as { symbol: string; rating: string; source: string }[]
  })
}

test.describe('TradingView webhook', () => {
  test('a generated URL turns alerts into signals; regenerating retires the old URL, removing the new one', async ({
    page,
    context,
    login,
    account,
    request,
    server,
  }) => {
    test.setTimeout(60_000)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await login(page, account)
    await page.goto('/settings')
    const card = page.getByRole('region', { name: 'TradingView webhook' })
    await expect(card.getByText('No webhook URL yet.')).toBeVisible()
    await expect(
      card.getByText('{"symbol": "{{ticker}}", "signal": "STRONG_BUY", "time": "{{timenow}}"}'),
    ).toBeVisible()

    await card.getByRole('button', { name: 'Generate webhook URL' }).click()
    await expect(page.getByText('Webhook URL created')).toBeVisible()
    const input = card.getByLabel('Webhook URL')
    await expect(input).toHaveValue(/\/api\/webhook\/[^/]+\/$/)
    const url = await input.inputValue()
    expect(url.startsWith(`${server.url}/api/webhook/`)).toBe(true)
    await expect(card.getByText(/shown only once/)).toBeVisible()
    await expect(card.getByText(/^Created /)).toBeVisible()

    await card.getByRole('button', { name: 'Copy' }).click()
    await expect(page.getByText('Webhook URL copied')).toBeVisible()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url)

    // Refused while signal fetching is off.
    expect((await request.post(url, alert())).status()).toBe(409)
    await startSignals(page)

    // The e2e market closes a candle every few seconds, and each candle stores fresh ratings for
    // every symbol, so a webhook signal may be replaced before the page shows it: post again then.
    const table = page.getByRole('region', { name: 'Trading Signals' })
    const btcSignal = table.getByRole('row').filter({ hasText: 'BTCUSDT' }).getByRole('cell').nth(1)
    await expect(async () => {
      const answer = await request.post(url, alert())
      expect(answer.status()).toBe(202)
      expect(await answer.json()).toEqual({ symbol: 'BTCUSDT', signal: 'STRONG_SELL' })
      await page.goto('/trading-signals')
      await expect(btcSignal).toHaveText('STRONG_SELL', { timeout: 2_000 })
    }).toPass({ timeout: 30_000 })
    // Stored as the user's signal from the webhook (not a rating that happened to agree).
    expect(await latestSignals(page)).toContainEqual(
      expect.objectContaining({ symbol: 'BTCUSDT', rating: 'STRONG_SELL', source: 'webhook' }),
    )

    // Back on Settings the URL is not shown again; regenerating asks first.
    await page.goto('/settings')
    await expect(card.getByText('A webhook URL is set up.')).toBeVisible()
    await expect(card.getByLabel('Webhook URL')).toHaveCount(0)
    await card.getByRole('button', { name: 'Regenerate URL' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Regenerate the webhook URL?' })
    await expect(confirm).toBeVisible()
    await confirm.getByRole('button', { name: 'Regenerate URL' }).click()
    await expect(page.getByText('Webhook URL regenerated')).toBeVisible()
    await expect(input).toHaveValue(/\/api\/webhook\/[^/]+\/$/)
    const newUrl = await input.inputValue()
    expect(newUrl).not.toBe(url)

    expect((await request.post(url, alert())).status()).toBe(404)
    expect((await request.post(newUrl, alert())).status()).toBe(202)

    await card.getByRole('button', { name: 'Remove' }).click()
    const remove = page.getByRole('alertdialog', { name: 'Remove the webhook URL?' })
    await remove.getByRole('button', { name: 'Remove' }).click()
    await expect(page.getByText('Webhook URL removed')).toBeVisible()
    await expect(card.getByText('No webhook URL yet.')).toBeVisible()
    await expect(card.getByLabel('Webhook URL')).toHaveCount(0)
    expect((await request.post(newUrl, alert())).status()).toBe(404)
  })
})
