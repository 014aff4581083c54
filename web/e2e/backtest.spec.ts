import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * /backtest against the real server: a run started from the form shows its progress bar, then its
 * figures (the /stats tiles and lists, the curve, the trades); a second run with another stop loss
 * is compared side by side; a reversed period is refused with the server's field message.
 */

function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  return date.toISOString().slice(0, 10)
}

async function runBacktest(page: Page, stopLoss: string): Promise<number> {
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(6))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('Symbols').fill('BTCUSDT, ETHUSDT')
  await form.getByLabel('Stop loss %').fill(stopLoss)
  const started = page.waitForResponse(
    (response) => response.url().endsWith('/api/backtests/') && response.request().method() === 'POST',
  )
  await form.getByRole('button', { name: 'Run backtest' }).click()
  const response = await started
  expect(response.status()).toBe(202)
  const body = (await response.json()) as { id: number }
  return body.id
}

function result(page: Page, id: number) {
  return page.getByRole('region', { name: `Backtest #${String(id)}` })
}

test('a backtest from the page: progress, then the result; two runs compared', async ({
  page,
  login,
  account,
}) => {
  test.setTimeout(180_000)
  await login(page, account)
  await page.goto('/stats')
  await page.getByRole('link', { name: 'Backtest' }).click()
  await expect(page).toHaveURL(/\/backtest$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Backtest' })).toBeVisible()
  await expect(page.getByText('No backtests yet.')).toBeVisible()

  const first = await runBacktest(page, '3')
  const firstResult = result(page, first)
  await expect(firstResult.getByRole('progressbar')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Runs' }).getByRole('row')).toHaveCount(2)
  await expect(firstResult.getByRole('group', { name: 'Max drawdown', exact: true })).toBeVisible({
    timeout: 120_000,
  })
  await expect(firstResult.getByRole('progressbar')).toHaveCount(0)
  const total = firstResult.getByRole('group', { name: 'Total trades', exact: true })
  await expect(total).toBeVisible()
  const trades = Number(await total.locator('p').first().innerText())
  expect(trades).toBeGreaterThan(0)
  await expect(firstResult.getByRole('table', { name: 'Trades' }).getByRole('row').nth(1)).toBeVisible()
  await expect(firstResult.getByRole('region', { name: 'Equity curve' })).toBeVisible()
  const runs = page.getByRole('table', { name: 'Runs' })
  await expect(runs.getByRole('row').nth(1).getByText('Done')).toBeVisible()

  const second = await runBacktest(page, '8')
  await expect(result(page, second).getByRole('group', { name: 'Max drawdown', exact: true })).toBeVisible({
    timeout: 120_000,
  })
  await page.getByRole('button', { name: `Compare #${String(first)}` }).click()
  const compared = page.getByRole('group', { name: 'Two runs side by side' })
  await expect(compared.getByRole('heading', { level: 2 })).toHaveText([
    `Backtest #${String(second)}`,
    `Backtest #${String(first)}`,
  ])
  for (const id of [first, second]) {
    await expect(result(page, id).getByRole('group', { name: 'Total trades', exact: true })).toBeVisible()
  }

  // A reversed period: the server's message under the field, and no new run.
  const form = page.getByRole('form', { name: 'New backtest' })
  await form.getByLabel('From', { exact: true }).fill(daysAgo(2))
  await form.getByLabel('To', { exact: true }).fill(daysAgo(6))
  await form.getByRole('button', { name: 'Run backtest' }).click()
  await expect(form.getByRole('alert').first()).toContainText('must end on or after date_from')
  await expect(runs.getByRole('row')).toHaveCount(3)
})
