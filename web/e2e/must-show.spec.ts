import { readFile } from 'node:fs/promises'
import type { Page } from '@playwright/test'
import { axePage, fitsWidth } from './a11y'
import { CATALOGUES } from './catalogue'
import { expect, test } from './fixtures'
import { openLastingPosition } from './open-position'
import { pageApi } from './page-api'
import { tradesHistory } from './seeded-history'
import { expectVariant, follow, useVariant, variantName, VARIANTS, type Variant } from './variants'

/**
 * Issue 33's Must show, in each of the eight variants (1440 and 360 px, dark and light, EN and RU),
 * every text read from the app's catalogue of the variant's language, on one page without a reload:
 * - the confirmations of point 4: Stop Bot says how many positions stay open and where, Close all
 *   names the venue and offers "and stop the bot", Delete key asks first;
 * - the cards changing live after a close (Open Trades from the open count to 0, Open Positions
 *   empty, the bot stopped);
 * - the trades page reached from the sidebar, filtered, exported (the CSV holds the rows the filter
 *   shows) and a trade's chart opened, with axe-core on the page (and at 360 px nothing cut);
 * - the live feed coming back after a server restart, with one banner while it is down.
 *
 * The dashboard counts trades open at the wall clock's now, so this file runs its own server on a
 * market at real speed (`marketSpeed: '1'`), where fills are stamped on the wall clock too.
 */

test.use({ marketSpeed: '1' })

const main = (page: Page) => page.getByRole('main')

/** The figure of one of the dashboard's four cards (role "group" named by its title). */
const cardValue = (page: Page, title: string) =>
  page.getByRole('group', { name: title, exact: true }).locator('p').first()

async function closeAllAndStop(page: Page, variant: Variant) {
  const t = CATALOGUES[variant.language]
  const board = t.dashboard
  const positions = page.getByRole('region', { name: board.openPositions.title })
  // The open trades once the API and the card agree: on a slow machine a position the last
  // alert opens can still be on its way when the first count is read.
  let open = 0
  await expect(async () => {
    const openTrades = await pageApi<{ results: unknown[] }>(
      page,
      'GET',
      '/api/trades/?status=open&page_size=100',
    )
    open = openTrades.results.length
    expect(open, 'positions open before Close all').toBeGreaterThan(0)
    await expect(cardValue(page, board.openTrades)).toHaveText(String(open), { timeout: 3_000 })
  }).toPass({ timeout: 30_000 })

  // Point 4: Stop Bot says what it leaves open, and where.
  const stopBot = page.getByRole('button', { name: board.botStatus.stopBot, exact: true })
  await expect(stopBot).toHaveAccessibleDescription(board.botStatus.stopLeavesOpen(open, t.venue.paper))
  const botStatus = page.getByRole('region', { name: board.botStatus.title })
  await expect(botStatus).toContainText(board.botStatus.venueLabel)
  await expect(botStatus).toContainText(t.venue.paper)

  // Close all names the venue, says the bot runs on, and offers to stop it too.
  await positions.getByRole('button', { name: board.openPositions.closeAll, exact: true }).click()
  const dialog = page.getByRole('alertdialog', { name: board.openPositions.closeAllTitle(t.venue.paper) })
  await expect(dialog).toContainText(board.openPositions.closeAllDescription(open))
  await expect(dialog).toContainText(board.openPositions.closeAllBotRuns)
  await dialog.getByRole('button', { name: board.openPositions.closeAllAndStop, exact: true }).click()
  await expect(page.getByText(board.openPositions.closedAllToast(open), { exact: true })).toBeVisible()

  // The cards follow the closes through the live feed.
  await expect(cardValue(page, board.openTrades)).toHaveText('0')
  await expect(positions.getByText(board.openPositions.empty, { exact: true })).toBeVisible()
  await expect(botStatus.getByText(board.botStatus.stopped, { exact: true })).toBeVisible()
}

async function deleteKeyAfterConfirming(page: Page, variant: Variant) {
  const s = CATALOGUES[variant.language].apiKeys
  await follow(page, '/api-keys', variant.language)
  const keys = main(page).getByRole('list', { name: s.listTitle }).getByRole('listitem')
  await expect(keys).toHaveCount(1)
  const deleteButton = keys.first().getByRole('button', { name: s.delete, exact: true })
  const confirm = page.getByRole('alertdialog', { name: s.deleteTitle })

  // Cancel keeps the key.
  await deleteButton.click()
  await confirm.getByRole('button', { name: s.cancel, exact: true }).click()
  await expect(confirm).toBeHidden()
  await expect(keys).toHaveCount(1)

  await deleteButton.click()
  await confirm.getByRole('button', { name: s.deleteConfirm, exact: true }).click()
  await expect(page.getByText(s.deletedToast, { exact: true })).toBeVisible()
  await expect(main(page).getByText(s.empty, { exact: true })).toBeVisible()
}

async function filterAndExport(page: Page, variant: Variant) {
  const s = CATALOGUES[variant.language].trades
  await follow(page, '/trades', variant.language)
  await expect(page.getByRole('heading', { level: 1, name: s.title })).toBeVisible()
  const phone = variant.width < 768
  const rows = phone
    ? main(page).getByRole('list', { name: s.tableLabel }).getByRole('listitem')
    : main(page).getByRole('table', { name: s.tableLabel }).locator('tbody tr')

  // The imported ETHUSDT short, and whatever the bot shorted on ETHUSDT meanwhile.
  await page.getByLabel(s.side, { exact: true }).selectOption('short')
  await page.getByLabel(s.symbol, { exact: true }).fill('ETHUSDT')
  // The imported BTCUSDT short is gone once the symbol filter applies.
  await expect(rows.filter({ hasText: 'ETHUSDT' }).first()).toBeVisible()
  await expect(rows.filter({ hasNotText: 'ETHUSDT' })).toHaveCount(0)
  const shown = await rows.count()
  const lost = rows.filter({ hasText: /-7[.,]25/ })
  await expect(lost).toHaveCount(1)

  const downloading = page.waitForEvent('download')
  await page.getByRole('link', { name: s.exportCsv, exact: true }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^trades-paper-\d{4}-\d{2}-\d{2}\.csv$/)
  const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n')
  expect(lines[0]).toMatch(/^id,symbol,side,status,/)
  expect(lines.slice(1)).toHaveLength(shown)
  expect(lines.slice(1).every((line) => line.includes(',ETHUSDT,short,'))).toBe(true)
  expect(lines.filter((line) => line.includes(',-7.25,'))).toHaveLength(1)

  // A trade's chart, on the paper market's candles.
  const id = Number(lines.find((line) => line.includes(',-7.25,'))?.split(',')[0])
  await lost.getByRole('button', { name: s.showChart(id), exact: true }).click()
  await expect(main(page).getByTestId('trade-chart')).toBeVisible()
  const name = `/trades with a chart open (${variantName(variant)})`
  await axePage(page, name)
  if (phone) await fitsWidth(page, main(page), name)
}

async function reconnectAfterRestart(
  page: Page,
  variant: Variant,
  restart: (whileDown: () => Promise<void>) => Promise<void>,
) {
  const t = CATALOGUES[variant.language]
  await follow(page, '/dashboard', variant.language)
  const badge = main(page).getByText(new RegExp(`^(${t.dashboard.connected}|${t.dashboard.disconnected})$`))
  await expect(badge).toHaveText(t.dashboard.connected)
  const banner = page.getByTestId('connection-lost')
  await expect(banner).toBeHidden()
  let navigations = 0
  page.on('framenavigated', () => {
    navigations += 1
  })

  await restart(async () => {
    await expect(badge).toHaveText(t.dashboard.disconnected)
    // "Connection lost since HH:MM (Europe/Moscow)." in the language, any HH:MM.
    const escaped = t.layout.connectionLost
      .title('HH:MM', 'Europe/Moscow')
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    await expect(banner).toContainText(new RegExp(escaped.replace('HH:MM', '\\d\\d:\\d\\d')))
    // Past the settings poll's 5 s: the banner stands alone, no repeating toast.
    await page.waitForTimeout(6_000)
    await expect(page.getByText(t.dashboard.botStatus.fetchFailed)).toHaveCount(0)
    await expect(banner).toHaveCount(1)
  })
  // The next quick try could be up to 16 s away: the browser coming back online tries now.
  await page.evaluate(() => window.dispatchEvent(new Event('online')))
  await expect(badge).toHaveText(t.dashboard.connected, { timeout: 10_000 })
  await expect(banner).toBeHidden()
  expect(navigations, 'no reload').toBe(0)
}

test.describe('issue 33 must show, in every variant', () => {
  for (const variant of VARIANTS) {
    test(variantName(variant), async ({ page, login, account, server }) => {
      test.setTimeout(150_000)
      await server.importHistory(account.username, tradesHistory())
      await useVariant(page, variant)
      await login(page, account)
      await expectVariant(page, variant)

      await test.step('an open position, then Close all and stop, the cards following', async () => {
        await openLastingPosition(page, page.request, server.url)
        await closeAllAndStop(page, variant)
      })
      await test.step('Delete key asks first', () => deleteKeyAfterConfirming(page, variant))
      await test.step('the trades page filtered and exported', () => filterAndExport(page, variant))
      await test.step('reconnect after a server restart', () =>
        reconnectAfterRestart(page, variant, server.restart))
    })
  }
})
