import { expect, test } from './fixtures'
import { axe } from './a11y'

// Issue 33, point 1: every page is one click away, the spec's four links first and unchanged.
const MORE_PAGES = [
  { link: 'Signals', path: '/trading-signals', heading: 'Trading Signals' },
  { link: 'Live figures', path: '/statistics', heading: 'Live Trading Statistics' },
  { link: 'Trades', path: '/trades', heading: 'Trades' },
  { link: 'Logs', path: '/logs', heading: 'Trading Logs' },
  { link: 'Backtest', path: '/backtest', heading: 'Backtest' },
  { link: 'Audit log', path: '/audit-log', heading: 'Audit log' },
]

test.describe('navigation', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`the sidebar passes axe in the ${theme} theme, collapsed and open`, async ({
      page,
      login,
      account,
    }) => {
      await page.addInitScript((t) => {
        localStorage.setItem('theme', t)
      }, theme)
      await login(page, account)
      const sidebar = page.locator('aside').first()
      await axe(page, sidebar, `sidebar-${theme}`)
      await page.getByRole('button', { name: 'Collapse sidebar' }).click()
      await expect(
        page.getByRole('navigation', { name: 'More pages' }).getByRole('link', { name: 'Logs' }),
      ).toBeVisible()
      await axe(page, sidebar, `sidebar-collapsed-${theme}`)
    })
  }

  test('every page is reached from the sidebar at 1440 px and from the drawer at 360 px', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    const main = page.getByRole('navigation', { name: 'Main navigation' })
    await expect(main.getByRole('link')).toHaveText(['Bot Status', 'Statistics', 'API Keys', 'Settings'])
    // Each spec link's name, matched as a part, finds exactly one link in the whole frame.
    for (const name of ['Bot Status', 'Statistics', 'API Keys', 'Settings']) {
      await expect(page.getByRole('link', { name })).toHaveCount(1)
    }

    for (const target of MORE_PAGES) {
      await page
        .getByRole('navigation', { name: 'More pages' })
        .getByRole('link', { name: target.link, exact: true })
        .click()
      await expect(page).toHaveURL(new RegExp(`${target.path}$`))
      await expect(page.getByRole('heading', { level: 1, name: target.heading })).toBeVisible()
    }

    await page.setViewportSize({ width: 360, height: 800 })
    await page.goto('/dashboard')
    for (const target of MORE_PAGES) {
      await page.getByRole('button', { name: 'Open menu' }).click()
      const drawer = page.getByRole('dialog')
      await drawer
        .getByRole('navigation', { name: 'More pages' })
        .getByRole('link', { name: target.link, exact: true })
        .click()
      await expect(drawer).toBeHidden()
      await expect(page.getByRole('heading', { level: 1, name: target.heading })).toBeVisible()
    }
  })
})
