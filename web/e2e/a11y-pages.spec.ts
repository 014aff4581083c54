import type { Page } from '@playwright/test'
import { randomBytes } from 'node:crypto'
import { axePage, fitsWidth } from './a11y'
import { expect, logIn, test, type Account } from './fixtures'
import { openLastingPosition } from './open-position'
import { pageApi } from './page-api'
import { statsHistory } from './seeded-history'
import { expectVariant, follow, useVariant, variantName, VARIANTS, type Variant } from './variants'

/**
 * Issue 33 point 6 and its Must show: every page, reached from the sidebar (at 360 px through the
 * drawer), with data in its tables, passes axe-core (wcag2a, wcag2aa, wcag21aa, best-practice) on
 * the whole page, at 1440 and 360 px, in both themes and both languages; at 360 px the main content
 * fits the width (nothing cut). One test per variant, one login each; the user's data is seeded
 * once: closed trades and chains, an open position (with its signals and log lines), a key, two
 * alert channels and, on /backtest, a walk-forward of a sweep beside a sweep.
 */

/** The seeded backtest runs opened on /backtest: a walk-forward of a sweep, and a sweep. */
const backtestIds: number[] = []

/** Each page by its sidebar link's href (the same in both languages), and what shows it has loaded. */
const PAGES: { path: string; ready?: (page: Page, language: Variant['language']) => Promise<void> }[] = [
  { path: '/dashboard', ready: (page) => firstRow(page, 'BTCUSDT') },
  {
    path: '/stats',
    ready: async (page, language) => {
      await main(page).locator('select').first().selectOption('all')
      // The martingale chains table: the first chain's total, in the language's digits.
      const total = new Intl.NumberFormat(language === 'ru' ? 'ru-RU' : 'en-US', {
        minimumFractionDigits: 4,
        maximumFractionDigits: 4,
      }).format(40)
      await firstRow(page, total)
    },
  },
  {
    path: '/api-keys',
    ready: (page) => expect(main(page).getByRole('listitem').filter({ hasText: '********' })).toBeVisible(),
  },
  {
    path: '/settings',
    ready: (page) => expect(main(page).getByText('-1001234567890').first()).toBeVisible(),
  },
  { path: '/trading-signals', ready: (page) => firstRow(page, 'BTCUSDT') },
  { path: '/statistics' },
  { path: '/trades', ready: (page) => expect(main(page).getByText('ETHUSDT').first()).toBeVisible() },
  { path: '/logs', ready: (page) => firstRow(page) },
  {
    path: '/backtest',
    ready: async (page) => {
      // The walk-forward opened and the sweep beside it: its windows, the sweep's table and grids.
      const [walkForward, sweep] = backtestIds
      // A run's buttons in the runs table: Open, Compare, then Cancel or Delete.
      const runButtons = (id: number) =>
        main(page)
          .getByRole('table')
          .first()
          .locator(`button[aria-label$=" #${String(id)}"]`)
      await runButtons(walkForward).nth(0).click()
      await runButtons(sweep).nth(1).click()
      for (const id of backtestIds) {
        const result = main(page).getByRole('region', { name: new RegExp(` [#№]${String(id)}$`) })
        await expect(result.getByRole('row').nth(1)).toBeVisible()
      }
    },
  },
  { path: '/audit-log', ready: (page) => firstRow(page) },
]

const main = (page: Page) => page.getByRole('main')

/** A data row of a table in the page's main content (containing `text` if given) is shown. */
async function firstRow(page: Page, text?: string) {
  const rows = main(page).getByRole('row')
  await expect((text ? rows.filter({ hasText: text }) : rows.nth(1)).first()).toBeVisible()
}

/** Nothing in the page's main content is still loading. */
async function loaded(page: Page) {
  await expect(main(page).locator('.animate-spin')).toHaveCount(0)
  await expect(main(page).locator('[aria-busy="true"]')).toHaveCount(0)
}

async function seed(page: Page, account: Account, serverUrl: string) {
  await logIn(page, account)
  await openLastingPosition(page, page.request, serverUrl)
  await pageApi(page, 'POST', '/api/notification-channels/', { kind: 'telegram', address: '-1001234567890' })
  await pageApi(page, 'POST', '/api/notification-channels/', {
    kind: 'webhook',
    url: 'https://hooks.example.com/signal-desk/alerts',
    secret: 'a-secret-of-enough-length',
  })
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)
  const sweep = {
    date_from: daysAgo(6),
    date_to: daysAgo(2),
    symbols: ['BTCUSDT', 'ETHUSDT'],
    sweep: [
      { field: 'initial_stop_loss_pct', values: [2, 4] },
      { field: 'take_profit_first_pct', values: [3, 6] },
    ],
  }
  // One backtest runs per user at a time: each is waited for.
  for (const body of [{ ...sweep, walk_forward: { train_days: 2, test_days: 1 } }, sweep]) {
    const run = await pageApi<{ id: number }>(page, 'POST', '/api/backtests/', body)
    backtestIds.push(run.id)
    const status = async () =>
      (await pageApi<{ status: string }>(page, 'GET', `/api/backtests/${String(run.id)}/`)).status
    await expect.poll(status, { timeout: 60_000 }).toBe('done')
  }
}

test.describe('every page passes axe-core and fits the width', () => {
  const account: Account = {
    username: `a11y-pages-${randomBytes(4).toString('hex')}`,
    password: `pw-${randomBytes(9).toString('hex')}`,
  }

  test.beforeAll(async ({ browser, server }) => {
    test.setTimeout(180_000)
    await server.createUser(account)
    await server.importHistory(account.username, statsHistory())
    const page = await browser.newPage({ baseURL: server.url })
    await seed(page, account, server.url)
    await page.close()
  })

  for (const variant of VARIANTS) {
    test(`logged in, ${variantName(variant)}`, async ({ page, login }) => {
      test.setTimeout(90_000)
      await useVariant(page, variant)
      await login(page, account)
      await expectVariant(page, variant)
      for (const { path, ready } of PAGES) {
        await test.step(path, async () => {
          await follow(page, path, variant.language)
          await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
          await ready?.(page, variant.language)
          await loaded(page)
          const name = `${path} (${variantName(variant)})`
          await axePage(page, name)
          if (variant.width === 360) {
            await fitsWidth(page, main(page), `${name} main`).catch((error: unknown) => {
              // Reported without ending the walk, so one run names every page that fails.
              expect.soft(String(error), name).toBe('')
            })
          }
        })
      }
    })
  }
})
