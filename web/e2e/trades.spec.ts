import { readFile } from 'node:fs/promises'
import { expect, test } from './fixtures'
import { tradesHistory } from './seeded-history'

/**
 * The Trades page (issue 33 point 2) against the real server at 1440 px: an imported history
 * filtered by side and symbol, exported as CSV (the download's rows are the filter's), a trade's
 * chart on the live market's candles. The same flow in all eight variants (widths, themes,
 * languages), with axe-core, is in must-show.spec.ts.
 */

test('filter, export what the filter shows, and open a trade chart at 1440 px', async ({
  page,
  login,
  account,
  server,
}) => {
  await server.importHistory(account.username, tradesHistory())
  await page.setViewportSize({ width: 1440, height: 900 })
  await login(page, account)
  await page.getByRole('navigation', { name: 'More pages' }).getByRole('link', { name: 'Trades' }).click()
  await expect(page).toHaveURL(/\/trades$/)
  const table = page.getByRole('table', { name: 'Trades' })
  await expect(table.getByRole('row')).toHaveCount(5)
  await expect(page.getByRole('columnheader', { name: 'Opened (Europe/Moscow)' })).toBeVisible()
  await expect(page.getByText('1–4 of 4')).toBeVisible()

  await page.getByLabel('Side', { exact: true }).selectOption('short')
  await expect(table.getByRole('row')).toHaveCount(3)
  await page.getByLabel('Symbol', { exact: true }).fill('eth')
  await expect(page.getByText('No trades match this filter.')).toBeVisible()
  await page.getByLabel('Symbol', { exact: true }).fill('ethusdt')
  await expect(table.getByRole('row')).toHaveCount(2)
  await expect(table.getByRole('row').nth(1)).toContainText('-7.25 USDT')

  const downloading = page.waitForEvent('download')
  await page.getByRole('link', { name: 'Export CSV' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^trades-paper-\d{4}-\d{2}-\d{2}\.csv$/)
  const text = await readFile(await download.path(), 'utf8')
  const lines = text.trimEnd().split('\r\n')
  expect(lines[0]).toMatch(/^id,symbol,side,status,/)
  expect(lines).toHaveLength(2)
  expect(lines[1]).toContain(',ETHUSDT,short,CLOSED,')
  expect(lines[1]).toContain(',-7.25,')
  expect(lines[1]).toContain('Europe/Moscow')

  // The newest trade's chart, on the paper market's candles.
  await page.getByLabel('Side', { exact: true }).selectOption('')
  await page.getByLabel('Symbol', { exact: true }).fill('')
  await expect(table.getByRole('row')).toHaveCount(5)
  const newest = table.getByRole('row').nth(1)
  await expect(newest).toContainText('BTCUSDT')
  await newest.getByRole('button', { name: /Show the chart of trade/ }).click()
  const chart = page.getByRole('region', { name: /Price chart of trade/ })
  await expect(chart.getByTestId('trade-chart')).toBeVisible()
  await expect(chart.getByRole('list', { name: 'Markers' })).toContainText('Entry 50000')
})
