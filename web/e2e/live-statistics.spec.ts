import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { statsHistory } from './seeded-history'

const card = (page: Page, name: string) => page.getByRole('group', { name, exact: true })

/**
 * /statistics over `statsHistory` (e2e/seeded-history.ts): six trades closed between 3 and 17 days
 * ago, so none in the last 24 hours and all of them in 30 days and all time: 2 wins, 4 losses,
 * win rate 33.3 %, profit 10.25, average 1.71.
 */
test('/statistics: 24h by default, then 30d and all time from GET /api/statistics/?period=', async ({
  page,
  login,
  account,
  server,
}) => {
  await server.importHistory(account.username, statsHistory())
  const periods: string[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.pathname === '/api/statistics/') periods.push(url.searchParams.get('period') ?? '')
  })
  await login(page, account)
  await page.goto('/statistics')
  await expect(page.getByRole('heading', { level: 1, name: 'Live Trading Statistics' })).toBeVisible()
  const select = page.getByRole('combobox', { name: 'Period' })
  await expect(select.getByRole('option')).toHaveText(['24h', '7d', '30d', 'all time'])
  await expect(select).toHaveValue('24h')

  // The live statistics message (all time, 6 trades) does not overwrite the 24h figures.
  await expect(card(page, 'Total Trades')).toHaveText('Total Trades0')
  await expect(card(page, 'Win Rate %')).toHaveText('Win Rate %0.0%')
  await expect(card(page, 'Total Profit $')).toHaveText('Total Profit $0.00 USDT')

  for (const label of ['30d', 'all time']) {
    await select.selectOption({ label })
    await expect(card(page, 'Total Trades')).toHaveText('Total Trades6')
    await expect(card(page, 'Winning Trades')).toHaveText('Winning Trades2')
    await expect(card(page, 'Losing Trades')).toHaveText('Losing Trades4')
    await expect(card(page, 'Win Rate %')).toHaveText('Win Rate %33.3%')
    await expect(card(page, 'Total Profit $')).toHaveText('Total Profit $10.25 USDT')
    await expect(card(page, 'Total Profit $').getByText('10.25 USDT')).toHaveClass(/text-success/)
    await expect(card(page, 'Average Profit $')).toHaveText('Average Profit $1.71 USDT')
    await expect(card(page, 'Max Drawdown %')).toHaveText(/^Max Drawdown %\d+\.\d\d%$/)
  }
  expect(periods).toEqual(expect.arrayContaining(['24h', '30d']))
})
