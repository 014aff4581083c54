import type { Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { expect, test } from './fixtures'
import { pageApi } from './page-api'
import { statsHistory } from './seeded-history'

/**
 * Phones and tablets (360 to 768 px): no page scrolls sideways (the document is exactly as wide as
 * the viewport); wide tables scroll inside their card, and the open positions' symbol, side, pnl
 * and Close stay in view without scrolling. Every page is checked with data in it: an open
 * position, closed trades and chains, log lines, statistics.
 */

const WIDTHS = [360, 390, 768] as const

type Check = { path: string; heading: string; ready?: (page: Page) => Promise<void> }

const PAGES: Check[] = [
  {
    path: '/dashboard',
    heading: 'Dashboard',
    ready: async (page) => {
      await expect(positionsTable(page).getByRole('row').nth(1)).toBeVisible()
    },
  },
  { path: '/trading-signals', heading: 'Trading Signals' },
  { path: '/api-keys', heading: 'API Keys' },
  { path: '/settings', heading: 'Настройки торговли' },
  {
    path: '/logs',
    heading: 'Trading Logs',
    ready: async (page) => {
      await expect(page.getByRole('row').nth(1)).toBeVisible()
    },
  },
  { path: '/statistics', heading: 'Live Trading Statistics' },
  { path: '/backtest', heading: 'Backtest' },
  {
    path: '/stats',
    heading: 'Statistics',
    ready: async (page) => {
      await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: 'All' })
      await expect(
        page.getByRole('table', { name: 'Martingale chains' }).getByRole('row').nth(1),
      ).toBeVisible()
    },
  },
]

function positionsTable(page: Page) {
  return page.getByRole('region', { name: 'Open Positions' }).getByRole('table')
}

/** The document's and the body's scroll widths, and the viewport's width. */
function widths(page: Page) {
  return page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
    viewport: window.innerWidth,
  }))
}

/** The outermost elements that stick out of the viewport on the right (for a failure message). */
function offenders(page: Page) {
  return page.evaluate(() => {
    const limit = window.innerWidth + 1
    const out: string[] = []
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const parent = element.parentElement
      if (!parent || element.getBoundingClientRect().right <= limit) continue
      if (parent.getBoundingClientRect().right > limit) continue
      const className = typeof element.className === 'string' ? element.className : ''
      out.push(`<${element.tagName.toLowerCase()} class="${className.slice(0, 120)}">`)
      if (out.length >= 5) break
    }
    return out
  })
}

async function expectNoSidewaysScroll(page: Page, width: number, path: string) {
  try {
    await expect
      .poll(() => widths(page), { timeout: 5_000 })
      .toEqual({ document: width, body: width, viewport: width })
  } catch (error) {
    const culprits = await offenders(page)
    throw new Error(`${path} at ${String(width)} px scrolls sideways; sticking out: ${culprits.join(', ')}`, {
      cause: error,
    })
  }
}

/** Whether the element lies inside the viewport horizontally. */
async function inView(page: Page, locator: ReturnType<Page['locator']>) {
  const box = await locator.boundingBox()
  const width = page.viewportSize()?.width ?? 0
  return box !== null && box.x >= 0 && box.x + box.width <= width + 0.5
}

test.describe('phone and tablet widths', () => {
  test('no page scrolls sideways at 360, 390 and 768 px; open positions keep symbol, side, pnl and Close in view', async ({
    page,
    login,
    account,
    request,
    server,
  }) => {
    test.setTimeout(240_000)
    await server.importHistory(account.username, statsHistory())
    await login(page, account)

    // An open BTCUSDT position through a webhook alert (as e2e/positions.spec.ts does).
    const records = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
    const settingsPath = `/api/bot-settings/${String(records.at(0)?.id)}/`
    // The position must outlive the walk through every page at three widths (minutes of simulated
    // market): no trailing stop, and a stop and take profit the simulated prices do not reach;
    // at leverage 1, 200 USDT is above the smallest BTCUSDT order.
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
    await pageApi(page, 'POST', '/api/command/bot/start/')
    const { path } = await pageApi<{ path: string }>(page, 'POST', '/api/webhook/')
    const btcSignal = async () => {
      const signals = await pageApi<{ symbol: string; recommendation: string }[]>(
        page,
        'GET',
        '/api/signals/',
      )
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
      const answer = await request.post(`${server.url}${path}`, { data: alertBody('BTCUSDT', signal) })
      expect(answer.status()).toBe(202)
      await expect.poll(openBtc, { timeout: 15_000 }).toBe(true)
    }).toPass({ timeout: 60_000 })
    // No new entries from here on: the position stays while the pages are checked.
    await pageApi(page, 'PUT', settingsPath, {
      forbidden_days_enabled: true,
      forbidden_days: [0, 1, 2, 3, 4, 5, 6],
    })

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 })
      for (const check of PAGES) {
        await page.goto(check.path)
        await expect(page.getByRole('heading', { level: 1, name: check.heading })).toBeVisible()
        await check.ready?.(page)
        await expectNoSidewaysScroll(page, width, check.path)
      }

      // The dashboard's open positions: the key columns are in view without scrolling the table.
      await page.goto('/dashboard')
      const row = positionsTable(page).getByRole('row').filter({ hasText: 'BTCUSDT' }).first()
      await expect(row).toBeVisible()
      const cells = {
        symbol: row.getByRole('cell').filter({ hasText: /^BTCUSDT/ }),
        side: row.getByText(/^(Long|Short)$/),
        pnl: row.locator('[data-column="pnl"]'),
        close: row.getByRole('button', { name: 'Close BTCUSDT' }),
      }
      for (const [name, cell] of Object.entries(cells)) {
        await expect(cell, `${name} at ${String(width)} px`).toBeVisible()
        expect(await inView(page, cell), `${name} in view at ${String(width)} px`).toBe(true)
      }
      await expectNoSidewaysScroll(page, width, '/dashboard')
    }

    await pageApi(page, 'POST', '/api/command/bot/stop/')
  })
})

test('the login page does not scroll sideways at 360, 390 and 768 px', async ({ page }) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 })
    await page.goto('/login')
    await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible()
    await expectNoSidewaysScroll(page, width, '/login')
  }
})
