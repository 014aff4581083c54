import { readFile } from 'node:fs/promises'
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import type { History } from './seeded-history'

/**
 * The Trades page (issue 33 point 2) against the real server: an imported history filtered by
 * side and symbol, exported as CSV (the download's rows are the filter's), a trade's chart on the
 * live market's candles, the phone layout without sideways scroll, and axe-core (WCAG 2.0/2.1 A
 * and AA and best practices) in both themes at 1440 and 360 px.
 */

const MINUTE = 60_000
const iso = (ms: number) => new Date(ms).toISOString()

/** Four closed trades; the newest a few minutes old, so its chart lies on the live market. */
function tradesHistory(now = Date.now()): History {
  const trade = (symbol: string, side: 'long' | 'short', pnl: string, minutesAgo: number) => ({
    symbol,
    side,
    status: 'CLOSED' as const,
    leverage: 10,
    margin: '50',
    qty: '0.01',
    entry_price: symbol === 'BTCUSDT' ? '50000' : '2000',
    exit_price: symbol === 'BTCUSDT' ? '50100' : '1990',
    pnl,
    fees: '0',
    opened_at: iso(now - minutesAgo * MINUTE),
    closed_at: iso(now - (minutesAgo - 10) * MINUTE),
    chain: null,
    chain_step: null,
  })
  return {
    chains: [],
    trades: [
      trade('BTCUSDT', 'long', '12.5', 30),
      trade('ETHUSDT', 'short', '-7.25', 600),
      trade('BTCUSDT', 'short', '-0.5', 1200),
      trade('ETHUSDT', 'long', '3.125', 2000),
    ],
    balance_snapshots: [],
  }
}

async function openTrades(page: Page) {
  await page.goto('/trades')
  await expect(page.getByRole('heading', { level: 1, name: 'Trades' })).toBeVisible()
}

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

for (const width of [1440, 360]) {
  for (const theme of ['light', 'dark'] as const) {
    test(`the Trades page at ${String(width)} px, ${theme} theme: filtered, exported, fits and passes axe`, async ({
      page,
      login,
      account,
      server,
    }) => {
      await server.importHistory(account.username, tradesHistory())
      await page.setViewportSize({ width, height: 900 })
      await page.addInitScript((t) => {
        localStorage.setItem('theme', t)
      }, theme)
      await login(page, account)
      await openTrades(page)
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
      else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
      const rows =
        width < 768
          ? page.getByRole('list', { name: 'Trades' }).getByRole('listitem')
          : page.getByRole('table', { name: 'Trades' }).getByRole('row')
      await expect(rows).toHaveCount(width < 768 ? 4 : 5)
      await page.getByLabel('Side', { exact: true }).selectOption('long')
      await expect(rows).toHaveCount(width < 768 ? 2 : 3)
      const downloading = page.waitForEvent('download')
      await page.getByRole('link', { name: 'Export CSV' }).click()
      const exported = await readFile(await (await downloading).path(), 'utf8')
      const lines = exported.trimEnd().split('\r\n')
      expect(lines).toHaveLength(3)
      expect(lines.slice(1).every((line) => line.includes(',long,CLOSED,'))).toBe(true)
      await rows
        .nth(width < 768 ? 0 : 1)
        .getByRole('button', { name: /Show the chart of trade/ })
        .click()
      await expect(page.getByRole('region', { name: /Price chart of trade/ })).toBeVisible()
      const results = await new AxeBuilder({ page })
        .include('main')
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
        .analyze()
      expect(
        results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        'axe violations',
      ).toEqual([])
      const widths = await page.evaluate(() => ({
        document: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
      }))
      expect(widths.document, 'the page does not scroll sideways').toBeLessThanOrEqual(widths.viewport)
    })
  }
}
