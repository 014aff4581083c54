import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { openLastingPosition } from './open-position'
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

    await openLastingPosition(page, request, server.url)

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
