import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { activatePaperKey, pageApi } from './page-api'
import { statsHistory } from './seeded-history'

/**
 * /stats over the history of e2e/seeded-history.ts (`statsHistory`), read in the "All" period.
 * By Moscow close time the six closed trades give (worked out by hand):
 *
 * - totals: 6 trades, 2 wins (40, 12.5), 4 losses (-10, -2.25, 0, -30); win rate 33.3 %;
 *   pnl 10.25, average 10.25 / 6 = 1.708… -> 1.71
 * - weekdays: Monday 30 (1 win, 1 loss), Wednesday 10.25 (1, 1), Friday 0 (0, 1), Sunday -30 (0, 1)
 * - hours: 9:00 30 (1, 1), 13:00 10.25 (1, 1), 15:00 0 (0, 1), 22:00 -30 (0, 1)
 * - cumulative pnl by close: 40, 30, 42.5, 40.25, 40.25, 10.25
 * - chains by first trade: c1 CLOSED [40], c2 CLOSED [12.5, -2.25] = 10.25, c3 OPEN [0]
 */

async function openStats(page: Page, period?: string) {
  await page.goto('/stats')
  await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible()
  if (period) await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: period })
}

const tile = (page: Page, name: string) => page.getByRole('group', { name, exact: true })
const listRows = (page: Page, name: string) =>
  page.getByRole('list', { name, exact: true }).getByRole('listitem')

test.describe('statistics with period filter', () => {
  test('a fresh account: the periods, This month by default, "No statistics available for this period." and "No chain data"', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    await openStats(page)
    const select = page.getByRole('combobox', { name: 'Period' })
    await expect(select.getByRole('option')).toHaveText([
      'All',
      'Last 24 hours',
      'Last 3 days',
      'Last 7 days',
      'This month',
      'Custom',
    ])
    await expect(select).toHaveValue('month')
    await expect(page.getByText('No statistics available for this period.')).toBeVisible()
    await expect(page.getByText('No chain data')).toBeVisible()
    await expect(page.getByRole('region', { name: 'Equity curve' })).toHaveCount(0)

    await select.selectOption({ label: 'Custom' })
    await expect(page.getByLabel('From', { exact: true })).toBeVisible()
    await expect(page.getByLabel('To', { exact: true })).toBeVisible()
  })

  test('All: the tiles (win rate 1 decimal, PnL 2 decimals, green), best and worst weekdays in Russian, hours as H:00', async ({
    page,
    login,
    account,
    server,
  }) => {
    await server.importHistory(account.username, statsHistory())
    await login(page, account)
    await openStats(page, 'All')

    await expect(tile(page, 'Total trades')).toHaveText('Total trades6')
    await expect(tile(page, 'Winning trades')).toHaveText('Winning trades2')
    await expect(tile(page, 'Losing trades')).toHaveText('Losing trades4')
    await expect(tile(page, 'Win rate')).toHaveText('Win rate33.3%')
    await expect(tile(page, 'Total PnL')).toHaveText('Total PnL10.25')
    await expect(tile(page, 'Total PnL').getByText('10.25')).toHaveClass(/text-success/)
    await expect(tile(page, 'Average PnL')).toHaveText('Average PnL1.71')
    await expect(tile(page, 'Average PnL').getByText('1.71')).toHaveClass(/text-success/)

    await expect(listRows(page, 'Best weekdays')).toHaveText([
      'Понедельник30.0050.0% success50.0% fail',
      'Среда10.2550.0% success50.0% fail',
    ])
    await expect(listRows(page, 'Worst weekdays')).toHaveText(['Воскресенье-30.000.0% success100.0% fail'])
    await expect(listRows(page, 'Best hours')).toHaveText([
      '9:0030.0050.0% success50.0% fail',
      '13:0010.2550.0% success50.0% fail',
    ])
    // Each list takes only its side: 15:00 broke even, so it is in neither.
    await expect(listRows(page, 'Worst hours')).toHaveText(['22:00-30.000.0% success100.0% fail'])
    const sunday = listRows(page, 'Worst weekdays').first()
    await expect(sunday.getByText('-30.00')).toHaveClass(/text-destructive/)
  })

  test('Custom without dates is the whole history; the dates go only when both are set', async ({
    page,
    login,
    account,
    server,
  }) => {
    await server.importHistory(account.username, statsHistory())
    await login(page, account)
    const statsAnswers: number[] = []
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/stats/') statsAnswers.push(response.status())
    })
    const customAlone = page.waitForResponse(
      (response) => new URL(response.url()).search === '?period=custom',
    )
    await openStats(page, 'Custom')
    expect((await customAlone).status()).toBe(200)
    await expect(tile(page, 'Total trades')).toHaveText('Total trades6')
    await expect(tile(page, 'Total PnL')).toHaveText('Total PnL10.25')
    await expect(page.getByText('Failed to load statistics')).toHaveCount(0)

    // One date alone sends nothing new: the figures stay the whole history's.
    await page.getByLabel('From', { exact: true }).fill('2000-01-01')
    await expect(tile(page, 'Total trades')).toHaveText('Total trades6')
    const bounded = page.waitForResponse((response) => {
      const url = new URL(response.url())
      return url.pathname === '/api/stats/' && url.searchParams.get('date_to') === '2000-01-02'
    })
    await page.getByLabel('To', { exact: true }).fill('2000-01-02')
    expect((await bounded).status()).toBe(200)
    await expect(page.getByText('No statistics available for this period.')).toBeVisible()
    expect(statsAnswers.every((status) => status === 200)).toBe(true)
  })

  test('the chains table: Russian headings, by first trade, PnL with 4 decimals, green and red', async ({
    page,
    login,
    account,
    server,
  }) => {
    const history = statsHistory()
    await server.importHistory(account.username, history)
    await login(page, account)
    await openStats(page, 'All')

    const table = page.getByRole('table', { name: 'Martingale chains' })
    await expect(table.getByRole('columnheader')).toHaveText([
      'ID цепочки',
      'Статус',
      'Количество сделок',
      'Общий PnL',
      'Сделки',
    ])
    const column = (n: number) => table.locator(`tbody tr > td:nth-child(${String(n)})`)
    await expect(column(1)).toHaveText([/^\d+$/, /^\d+$/, /^\d+$/])
    await expect(column(2)).toHaveText(['Закрыта', 'Закрыта', 'Открыта'])
    await expect(column(3)).toHaveText(['1', '2', '1'])
    await expect(column(4)).toHaveText(['40.0000', '10.2500', '0.0000'])

    const tradePnls = (row: number) =>
      table.locator(`tbody tr:nth-child(${String(row)}) li > span:nth-child(2)`)
    await expect(tradePnls(1)).toHaveText(['40.0000'])
    await expect(tradePnls(1)).toHaveClass([/text-success/])
    await expect(tradePnls(2)).toHaveText(['12.5000', '-2.2500'])
    await expect(tradePnls(2)).toHaveClass([/text-success/, /text-destructive/])
    await expect(tradePnls(3)).toHaveText(['0.0000'])
    await expect(tradePnls(3)).not.toHaveClass(/text-(success|destructive)/)

    // Each trade's creation time (its opening) in the settings zone (the default, Europe/Moscow),
    // labelled with it.
    const opened = history.trades.filter((trade) => trade.chain === 'c2').map((trade) => trade.opened_at)
    const zone = 'Europe/Moscow'
    const inZone = new Intl.DateTimeFormat('en-US', {
      dateStyle: 'medium',
      timeStyle: 'short',
      hourCycle: 'h23',
      timeZone: zone,
    })
    const shown = opened.map((time) => `${inZone.format(new Date(time))} (${zone})`)
    await expect(table.locator('tbody tr:nth-child(2) li time')).toHaveText(shown)
  })

  test('the equity curve and the weekday x hour heatmap of the period', async ({
    page,
    login,
    account,
    server,
  }) => {
    await server.importHistory(account.username, statsHistory())
    await login(page, account)
    await openStats(page, 'All')

    const curve = page.getByRole('region', { name: 'Equity curve' })
    const chart = curve.getByRole('figure', { name: 'Cumulative PnL of the period over 6 points' })
    await expect(chart).toBeVisible()
    await expect(curve.getByTestId('equity-last')).toHaveText('Cumulative PnL 10.25')
    await expect(curve.getByTestId('equity-last')).toHaveClass(/text-success/)
    // Drawn by lightweight-charts: its canvases inside the container, with a size.
    await expect(chart.locator('canvas').first()).toBeVisible()
    const box = await chart.locator('canvas').first().boundingBox()
    expect(box?.width ?? 0).toBeGreaterThan(100)
    expect(box?.height ?? 0).toBeGreaterThan(50)

    const heatmap = page.getByRole('table', { name: 'PnL by weekday and hour' })
    await expect(heatmap.getByRole('rowheader')).toHaveText([
      'Понедельник',
      'Вторник',
      'Среда',
      'Четверг',
      'Пятница',
      'Суббота',
      'Воскресенье',
    ])
    await expect(heatmap.getByRole('columnheader')).toHaveText(
      Array.from({ length: 24 }, (_, hour) => String(hour)),
    )
    await expect(heatmap.locator('tbody td')).toHaveCount(7 * 24)
    // The largest |pnl| is 30: Monday 9:00 full green, Sunday 22:00 full red, Wednesday 13:00
    // (10.25 / 30, the second step) lighter green, Friday 15:00 (0) neutral.
    const monday9 = heatmap.getByTitle('Понедельник 9:00: PnL 30.00, 2 trades', { exact: true })
    await expect(monday9).toHaveClass(/(^|\s)bg-success(\s|$)/)
    await expect(heatmap.locator('tbody tr').first().locator('td').nth(9)).toHaveAttribute(
      'title',
      'Понедельник 9:00: PnL 30.00, 2 trades',
    )
    await expect(heatmap.getByTitle('Среда 13:00: PnL 10.25, 2 trades', { exact: true })).toHaveClass(
      /bg-success\/40/,
    )
    await expect(heatmap.getByTitle('Воскресенье 22:00: PnL -30.00, 1 trade', { exact: true })).toHaveClass(
      /(^|\s)bg-destructive(\s|$)/,
    )
    const friday15 = heatmap.getByTitle('Пятница 15:00: PnL 0.00, 1 trade', { exact: true })
    await expect(friday15).not.toHaveClass(/bg-(success|destructive)/)
    const empty = heatmap.getByTitle('Вторник 5:00: no trades', { exact: true })
    await expect(empty).toHaveClass(/bg-muted/)
    await expect(empty).not.toHaveClass(/bg-(success|destructive)/)
    await expect(heatmap.locator('td[title$="no trades"]')).toHaveCount(7 * 24 - 4)
  })

  test('an open chain trade of the running bot (martingale) shows its pnl as "-", neither green nor red', async ({
    page,
    login,
    account,
  }) => {
    test.setTimeout(180_000)
    await login(page, account)
    const [record] = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    await pageApi(page, 'PUT', `/api/bot-settings/${String(record.id)}/`, { bot_mode: 'martingale' })
    await activatePaperKey(page)
    await pageApi(page, 'POST', '/api/command/bot/start/')
    try {
      type Chains = { chains: { trades: { pnl: number | null }[] }[] }
      const openChainTrade = async () => {
        const { chains } = await pageApi<Chains>(page, 'GET', '/api/martingale_chains/')
        return chains.some((chain) => chain.trades.some((trade) => trade.pnl === null))
      }
      // The sped-up market gives some symbol a strong signal within a minute or two.
      await expect.poll(openChainTrade, { timeout: 150_000, intervals: [2_000] }).toBe(true)
      // The trade may close between the check and the page's read: read again then.
      await expect(async () => {
        await openStats(page)
        const nullPnl = page.locator('li > span:nth-child(2)', { hasText: /^-$/ })
        const row = page
          .getByRole('table', { name: 'Martingale chains' })
          .locator('tbody tr')
          .filter({ has: nullPnl })
          .first()
        await expect(row).toBeVisible({ timeout: 5_000 })
        await expect(row.locator('td').nth(1)).toHaveText('Открыта')
        await expect(row.locator('li > span:nth-child(2)', { hasText: /^-$/ })).not.toHaveClass(
          /text-(success|destructive)/,
        )
      }).toPass({ timeout: 60_000 })
    } finally {
      await pageApi(page, 'POST', '/api/command/bot/stop/')
    }
  })
})
