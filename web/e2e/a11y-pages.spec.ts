import type { Browser, Locator, Page } from '@playwright/test'
import { randomBytes } from 'node:crypto'
import { alertBody } from './alert-body'
import { axePage, fitsWidth } from './a11y'
import { expect, test, type Account, type SignalDeskServer } from './fixtures'
import { pageApi } from './page-api'
import { statsHistory } from './seeded-history'

/**
 * Issue 33 point 6: every page, reached from the sidebar (on a phone through the drawer), with
 * data in its tables, passes axe-core (WCAG 2.0/2.1 A and AA and best practices) on the whole
 * page, and its main content fits the viewport's width; the login page too, logged out. Each
 * variant of the matrix below is one walk through all pages by one user whose data is seeded
 * once per worker (an open position, signals, log lines, closed trades and chains, backtest runs,
 * a key, channels, audit entries).
 */

/**
 * The ways the app is looked at: a width and what is stored in localStorage before the first
 * page (the theme now; a `language` entry can join it as one more key).
 */
const WIDTHS = [1440, 360] as const
const STORED = [{ theme: 'dark' }, { theme: 'light' }] as const
const VARIANTS = WIDTHS.flatMap((width) => STORED.map((stored) => ({ width, stored })))
type Variant = (typeof VARIANTS)[number]

const variantName = (v: Variant) =>
  `${String(v.width)} px, ${Object.entries(v.stored)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')}`

type PageCheck = {
  /** The sidebar link's name. */
  link: string
  path: string
  heading: string
  /** Waits until the page shows its data. */
  ready: (page: Page) => Promise<void>
}

const firstRow = (page: Page, table: string) =>
  expect(page.getByRole('table', { name: table }).getByRole('row').nth(1)).toBeVisible()

const PAGES: PageCheck[] = [
  {
    link: 'Bot Status',
    path: '/dashboard',
    heading: 'Dashboard',
    ready: async (page) => {
      const positions = page.getByRole('region', { name: 'Open Positions' }).getByRole('table')
      await expect(positions.getByRole('row').filter({ hasText: 'BTCUSDT' }).first()).toBeVisible()
    },
  },
  {
    link: 'Statistics',
    path: '/stats',
    heading: 'Statistics',
    ready: async (page) => {
      await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: 'All' })
      await firstRow(page, 'Martingale chains')
    },
  },
  {
    link: 'API Keys',
    path: '/api-keys',
    heading: 'API Keys',
    ready: async (page) => {
      await expect(page.getByRole('main').getByRole('row').nth(1)).toBeVisible()
    },
  },
  {
    link: 'Settings',
    path: '/settings',
    heading: 'Настройки торговли',
    ready: async (page) => {
      await expect(page.getByText('-1001234567890').first()).toBeVisible()
      await expect(page.getByText('This session')).toBeVisible()
    },
  },
  {
    link: 'Signals',
    path: '/trading-signals',
    heading: 'Trading Signals',
    ready: async (page) => {
      await expect(page.getByRole('main').getByRole('row').nth(1)).toBeVisible()
    },
  },
  {
    link: 'Live figures',
    path: '/statistics',
    heading: 'Live Trading Statistics',
    ready: async (page) => {
      await page.waitForLoadState('networkidle')
    },
  },
  {
    link: 'Trades',
    path: '/trades',
    heading: 'Trades',
    ready: async (page) => {
      await expect(page.getByRole('main').getByRole('row').nth(1)).toBeVisible()
    },
  },
  {
    link: 'Logs',
    path: '/logs',
    heading: 'Trading Logs',
    ready: async (page) => {
      await expect(page.getByRole('main').getByRole('row').nth(1)).toBeVisible()
    },
  },
  {
    link: 'Backtest',
    path: '/backtest',
    heading: 'Backtest',
    ready: async (page) => {
      const runs = page.getByRole('table', { name: 'Runs' })
      await expect(runs.getByRole('row')).toHaveCount(3)
      // The plain run and the walk-forward (its windows and its sweep) side by side.
      const ids = await runs.getByRole('row').nth(1).getByRole('cell').first().innerText()
      const newest = /\d+/.exec(ids)?.[0] ?? ''
      await runs.getByRole('button', { name: `Open #${newest}` }).click()
      const oldest = /\d+/.exec(await runs.getByRole('row').nth(2).getByRole('cell').first().innerText())?.[0]
      await runs.getByRole('button', { name: `Compare #${oldest ?? ''}` }).click()
      await expect(page.getByRole('group', { name: 'Two runs side by side' })).toBeVisible()
      await expect(page.getByRole('progressbar')).toHaveCount(0, { timeout: 60_000 })
      await page.waitForLoadState('networkidle')
    },
  },
  {
    link: 'Audit log',
    path: '/audit-log',
    heading: 'Audit log',
    ready: async (page) => {
      await expect(page.getByRole('main').getByRole('row').nth(1)).toBeVisible()
    },
  },
]

async function logIn(page: Page, account: Account) {
  await page.goto('/login')
  await page.getByLabel('Имя пользователя').fill(account.username)
  await page.getByLabel('Пароль').fill(account.password)
  await page.getByRole('button', { name: 'Войти' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
}

/** Puts data on every page for `account` (see the file's comment). */
async function seed(browser: Browser, server: SignalDeskServer, account: Account) {
  await server.importHistory(account.username, statsHistory())
  const page = await browser.newPage({ baseURL: server.url })
  await logIn(page, account)
  const [record] = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
  const settingsPath = `/api/bot-settings/${String(record.id)}/`
  // As e2e/phone-layout.spec.ts: a position that outlives the walks (stops the market does not
  // reach), opened by a webhook alert on the paper exchange.
  await pageApi(page, 'PUT', settingsPath, {
    max_trades: 100,
    max_total_usdt: 100_000,
    max_trade_usdt: 200,
    leverage: 1,
    use_trailing_stop: false,
    initial_stop_loss_pct: 50,
    take_profit_first_pct: 50,
    take_profit_next_pct: 50,
  })
  const key = await pageApi<{ id: number }>(page, 'POST', '/api/api-keys/', {
    key: 'paper-key',
    secret: 'paper-secret',
    is_demo: true,
    exchange: 'paper',
  })
  await pageApi(page, 'POST', `/api/api-keys/${String(key.id)}/set_active/`)
  await pageApi(page, 'POST', '/api/notification-channels/', { kind: 'telegram', address: '-1001234567890' })
  await pageApi(page, 'POST', '/api/notification-channels/', {
    kind: 'webhook',
    url: 'https://hooks.example.com/signal-desk/alerts',
    secret: 'a-secret-of-enough-length',
  })
  const today = new Date()
  const daysAgo = (days: number) => new Date(today.getTime() - days * 86_400_000).toISOString().slice(0, 10)
  const period = { date_from: daysAgo(6), date_to: daysAgo(2), symbols: ['BTCUSDT', 'ETHUSDT'] }
  // One backtest runs per user at a time (409 otherwise): each is waited for.
  const runBacktest = async (body: object) => {
    const run = await pageApi<{ id: number }>(page, 'POST', '/api/backtests/', body)
    const status = async () =>
      (await pageApi<{ status: string }>(page, 'GET', `/api/backtests/${String(run.id)}/`)).status
    await expect.poll(status, { timeout: 120_000 }).toBe('done')
  }
  const sweep = [
    { field: 'initial_stop_loss_pct', values: [2, 4] },
    { field: 'take_profit_first_pct', values: [3, 6] },
  ]
  await runBacktest({ ...period, sweep, walk_forward: { train_days: 2, test_days: 1 } })
  await runBacktest({ ...period, sweep })
  await runBacktest(period)

  await pageApi(page, 'POST', '/api/command/bot/start/')
  const { path } = await pageApi<{ path: string }>(page, 'POST', '/api/webhook/')
  const btcSignal = async () => {
    const signals = await pageApi<{ symbol: string; recommendation: string }[]>(page, 'GET', '/api/signals/')
    return signals.find((signal) => signal.symbol === 'BTCUSDT')?.recommendation
  }
  await expect.poll(btcSignal, { timeout: 30_000 }).toBeTruthy()
  const openBtc = async () => {
    const open = await pageApi<{ results: { symbol: string }[] }>(
      page,
      'GET',
      '/api/trades/?status=open&page_size=100',
    )
    return open.results.some((trade) => trade.symbol === 'BTCUSDT')
  }
  await expect(async () => {
    const current = await btcSignal()
    const signal = current?.toUpperCase() === 'STRONG_BUY' ? 'STRONG_SELL' : 'STRONG_BUY'
    const answer = await page.request.post(`${server.url}${path}`, { data: alertBody('BTCUSDT', signal) })
    expect(answer.status()).toBe(202)
    await expect.poll(openBtc, { timeout: 15_000 }).toBe(true)
  }).toPass({ timeout: 60_000 })
  // No new entries from here on: the position stays while the pages are walked.
  await pageApi(page, 'PUT', settingsPath, {
    forbidden_days_enabled: true,
    forbidden_days: [0, 1, 2, 3, 4, 5, 6],
  })
  await page.close()
}

/** Follows the page's link in the sidebar, or on a phone in the drawer the menu button opens. */
async function follow(page: Page, link: string) {
  const menu = page.getByRole('button', { name: 'Open menu' })
  if (await menu.isVisible()) {
    await menu.click()
    const drawer = page.getByRole('dialog')
    await drawer.getByRole('link', { name: link, exact: true }).click()
    await expect(drawer).toBeHidden()
  } else {
    await page.locator('aside').first().getByRole('link', { name: link, exact: true }).click()
  }
}

/** fitsWidth, reported without ending the walk (so one run names every page that fails). */
async function fitsSoftly(page: Page, part: Locator, name: string) {
  try {
    await fitsWidth(page, part, name)
  } catch (error) {
    expect.soft(String(error), name).toBe('')
  }
}

async function prepare(page: Page, variant: Variant) {
  await page.setViewportSize({ width: variant.width, height: 900 })
  await page.addInitScript((stored) => {
    for (const [key, value] of Object.entries(stored)) localStorage.setItem(key, value)
  }, variant.stored)
}

test.describe('every page passes axe and fits the width', () => {
  test.describe.configure({ mode: 'serial' })
  const account: Account = {
    username: `a11y-pages-${randomBytes(4).toString('hex')}`,
    password: `pw-${randomBytes(9).toString('hex')}`,
  }

  test.beforeAll(async ({ browser, server }) => {
    test.setTimeout(240_000)
    await server.createUser(account)
    await seed(browser, server, account)
  })

  for (const variant of VARIANTS) {
    test(`logged in, ${variantName(variant)}`, async ({ page }) => {
      test.setTimeout(180_000)
      await prepare(page, variant)
      await logIn(page, account)
      const theme = variant.stored.theme
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
      else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
      for (const check of PAGES) {
        await test.step(check.path, async () => {
          await follow(page, check.link)
          await expect(page).toHaveURL(new RegExp(`${check.path}$`))
          await expect(page.getByRole('heading', { level: 1, name: check.heading })).toBeVisible()
          await check.ready(page)
          await axePage(page, `${check.path} (${variantName(variant)})`)
          await fitsSoftly(page, page.getByRole('main'), `${check.path} main`)
        })
      }
    })

    test(`the login page, ${variantName(variant)}`, async ({ page }) => {
      await prepare(page, variant)
      await page.goto('/login')
      await expect(page.getByRole('button', { name: 'Войти' })).toBeVisible()
      await axePage(page, `/login (${variantName(variant)})`)
      await fitsSoftly(page, page.locator('form'), '/login form')
    })
  }
})
