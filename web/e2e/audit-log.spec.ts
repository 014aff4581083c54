import { axe } from './a11y'
import { expect, test } from './fixtures'
import { pageApi } from './page-api'

/**
 * The audit log (issue 31 point 2): a setting changed in the app is on the Audit log page with
 * its old and new value, and the page passes axe-core (WCAG 2.1 A and AA, contrast included)
 * at desktop and phone widths in both themes without the page scrolling sideways.
 */

test('a setting changed in the app is listed with its old and new value', async ({
  page,
  login,
  account,
}) => {
  await login(page, account)
  const nav = page.getByRole('navigation', { name: 'Main navigation' })
  await nav.getByRole('link', { name: 'Settings' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeVisible()
  await expect(page.getByLabel('Макс. открытых сделок')).toHaveValue('3')
  await page.getByLabel('Макс. открытых сделок').fill('5')
  await page.getByRole('button', { name: 'Сохранить настройки' }).click()
  await expect(page.getByText('Settings saved successfully')).toBeVisible()

  // The spec's four links are the main navigation; the audit log is among the other pages.
  await expect(nav.getByRole('link')).toHaveText(['Bot Status', 'Statistics', 'API Keys', 'Settings'])
  const more = page.getByRole('navigation', { name: 'More pages' })
  await more.getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible()
  await expect(page.getByRole('columnheader', { name: 'Time (Europe/Moscow)' })).toBeVisible()
  const row = page.getByRole('row').filter({ hasText: 'Settings changed' })
  await expect(row).toHaveCount(1)
  await expect(row).toContainText('max_trades: 3 → 5')
  await expect(row).toContainText('127.0.0.1')
  // Newest first: the change, then the login.
  const actions = page.getByRole('table', { name: 'Audit log' }).getByRole('row')
  await expect(actions.nth(1)).toContainText('Settings changed')
  await expect(actions.nth(2)).toContainText('Login')
})

for (const width of [1440, 360]) {
  for (const theme of ['light', 'dark'] as const) {
    test(`the Audit log page at ${String(width)} px, ${theme} theme, passes axe`, async ({
      page,
      login,
      account,
    }) => {
      await page.setViewportSize({ width, height: 900 })
      await page.addInitScript((t) => {
        localStorage.setItem('theme', t)
      }, theme)
      await login(page, account)
      const records = await pageApi<{ id: number; leverage: number }[]>(page, 'GET', '/api/bot-settings/')
      const record = records.at(0)
      if (!record) throw new Error('no settings record')
      await pageApi(page, 'PUT', `/api/bot-settings/${String(record.id)}/`, {
        leverage: record.leverage === 7 ? 8 : 7,
      })
      await page.goto('/audit-log')
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
      else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
      await expect(page.getByRole('row').filter({ hasText: 'Settings changed' })).toContainText('leverage: ')
      await axe(page, page.locator('main'), 'the Audit log page')
      const widths = await page.evaluate(() => ({
        document: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
      }))
      expect(widths.document, 'the page does not scroll sideways').toBeLessThanOrEqual(widths.viewport)
    })
  }
}
