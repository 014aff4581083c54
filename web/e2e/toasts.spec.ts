import type { Locator, Page } from '@playwright/test'
import { axe } from './a11y'
import { CATALOGUES } from './catalogue'
import { expect, test } from './fixtures'

/**
 * Every kind of toast the app shows (success, warning, error) passes axe-core, contrast
 * included, in both themes. Sonner's own light rich colours are under 4.5:1 and are darkened in
 * src/styles/index.css; this is the test that fails if they come back.
 *
 * The toasts come from the API keys page: adding a paper key (success), setting it active with
 * the server's answer given a warning (as a Bybit key without an IP allow-list gets, which this
 * machine cannot check with Bybit), and deleting it with the server refusing (error).
 */

const s = CATALOGUES.en.apiKeys

/** The toast titled `title`, once shown, held open (hovering pauses Sonner's timer) and checked. */
async function checkToast(page: Page, title: string, name: string) {
  const toast: Locator = page.locator('[data-sonner-toast][data-mounted="true"]').filter({ hasText: title })
  await expect(toast).toBeVisible()
  await toast.hover()
  // Past the entrance transition, so axe reads the settled colours.
  await expect(toast).toHaveCSS('opacity', '1')
  await axe(page, toast, name)
}

for (const theme of ['dark', 'light'] as const) {
  test(`success, warning and error toasts pass axe-core, ${theme}`, async ({ page, login, account }) => {
    await page.addInitScript((stored) => {
      localStorage.setItem('theme', stored)
    }, theme)
    await login(page, account)
    await page.goto('/api-keys')

    await page.getByLabel(s.keyLabel, { exact: true }).fill('toast-key')
    await page.getByLabel(s.secretLabel, { exact: true }).fill('toast-secret')
    await page.getByLabel(s.exchangeLabel, { exact: true }).selectOption(s.paper)
    await page.getByRole('button', { name: s.add, exact: true }).click()
    await checkToast(page, s.addedToast, `success toast (${theme})`)

    await page.route('**/api/api-keys/*/set_active/', async (route) => {
      const response = await route.fetch()
      const json = (await response.json()) as Record<string, unknown>
      await route.fulfill({ response, json: { ...json, warning: 'Bind this key to an IP address.' } })
    })
    await page.getByRole('button', { name: s.setActive, exact: true }).click()
    await checkToast(page, s.noIpWarningTitle, `warning toast (${theme})`)

    await page.route('**/api/api-keys/*/', (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 409, json: { detail: 'The key is in use.' } })
        : route.fallback(),
    )
    await page.getByRole('button', { name: s.delete, exact: true }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: s.deleteConfirm, exact: true }).click()
    await checkToast(page, s.deleteFailed, `error toast (${theme})`)
  })
}
