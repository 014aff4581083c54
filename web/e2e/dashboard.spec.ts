import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { activatePaperKey, pageApi } from './page-api'
import { dashboardHistory } from './seeded-history'

/** One of the four cards (role "group" named by its title). */
const card = (page: Page, name: string) => page.getByRole('group', { name, exact: true })

test.describe('dashboard', () => {
  test('heading, live badge, the four cards against 24 hours ago and the Balance card', async ({
    page,
    login,
    account,
    server,
  }) => {
    await server.importHistory(account.username, dashboardHistory())
    await login(page, account)

    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(page.getByText('Welcome back to your trading dashboard')).toBeVisible()
    await expect(page.getByText('Connected', { exact: true })).toBeVisible()

    // The paper wallet holds 10000 USDT; the snapshot of 24 hours ago says 8000: +25.0 %.
    const balance = card(page, 'Total Balance')
    await expect(balance).toHaveText('Total Balance10,000.00 USDT+25.0%vs 24h ago')
    await expect(balance.getByRole('img', { name: 'Up' })).toBeVisible()
    await expect(balance.getByTestId('change')).toHaveClass(/text-success/)

    // Fills: 510 + 200 + 205 = 915 in the last 24 h, 500 + 400 + 405 = 1305 before: -29.9 %.
    const volume = card(page, '24h Volume')
    await expect(volume).toHaveText('24h Volume915.00 USDT-29.9%vs 24h ago')
    await expect(volume.getByRole('img', { name: 'Down' })).toBeVisible()
    await expect(volume.getByTestId('change')).toHaveClass(/text-destructive/)

    // No trade is open now; R1 was open 24 hours ago: -100.0 %.
    const open = card(page, 'Open Trades')
    await expect(open).toHaveText('Open Trades0-100.0%vs 24h ago')
    await expect(open.getByRole('img', { name: 'Down' })).toBeVisible()

    // 4 trades now, 3 opened by 24 hours ago: +33.3 %.
    const total = card(page, 'Total Trades')
    await expect(total).toHaveText('Total Trades4+33.3%vs 24h ago')
    await expect(total.getByRole('img', { name: 'Up' })).toBeVisible()

    const wallet = page.getByRole('region', { name: 'Balance', exact: true })
    await expect(wallet.locator('dt')).toHaveText(['Equity', 'Available', 'Margin'])
    await expect(wallet.locator('dd')).toHaveText(['10,000.00 USDT', '10,000.00 USDT', '10,000.00 USDT'])

    await expect(page.getByRole('region', { name: 'Trading Signals (Last 5)' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Bot Status' })).toBeVisible()
  })

  test('without a history the cards show no percent: "—" and no trend', async ({ page, login, account }) => {
    await login(page, account)
    await expect(card(page, 'Total Balance')).toHaveText('Total Balance10,000.00 USDT— vs 24h ago')
    await expect(card(page, '24h Volume')).toHaveText('24h Volume0.00 USDT— vs 24h ago')
    await expect(card(page, 'Open Trades')).toHaveText('Open Trades0— vs 24h ago')
    await expect(card(page, 'Total Trades')).toHaveText('Total Trades0— vs 24h ago')
    for (const name of ['Total Balance', '24h Volume', 'Open Trades', 'Total Trades']) {
      await expect(card(page, name).getByRole('img')).toHaveCount(0)
    }
    await expect(page.locator('main')).not.toContainText(/Infinity|NaN/)
  })

  test('the Balance card follows the live balance messages without a reload', async ({
    page,
    login,
    account,
  }) => {
    test.setTimeout(120_000)
    await login(page, account)
    const wallet = page.getByRole('region', { name: 'Balance', exact: true })
    const available = wallet.locator('dd').nth(1)
    await expect(available).toHaveText('10,000.00 USDT')

    // The running bot opens positions on the sped-up market; each fill sends a balance message
    // whose available balance no longer holds the positions' margin.
    await activatePaperKey(page)
    let navigations = 0
    page.on('framenavigated', () => {
      navigations += 1
    })
    await pageApi(page, 'POST', '/api/command/bot/start/')
    try {
      await expect(available).not.toHaveText('10,000.00 USDT', { timeout: 90_000 })
      await expect(available).toHaveText(/^\d{1,3}(,\d{3})*\.\d\d USDT$/)
      // The Total Balance card shows the same (live) equity as the Balance card.
      await expect(async () => {
        const equity = await wallet.locator('dd').first().textContent()
        expect(await card(page, 'Total Balance').textContent()).toContain(equity ?? 'missing')
      }).toPass({ timeout: 10_000 })
      expect(navigations).toBe(0)
    } finally {
      await pageApi(page, 'POST', '/api/command/bot/stop/')
    }
  })
})
