import type { Page } from '@playwright/test'
import { CATALOGUES } from './catalogue'
import { expect } from './fixtures'

/**
 * Issue 33's Must show runs each flow at 1440 and 360 px, in both themes and both languages: the
 * eight variants, how a page is put in one, and how a page is reached from the sidebar.
 */

export const VARIANTS = [1440, 360].flatMap((width) =>
  (['dark', 'light'] as const).flatMap((theme) =>
    (['en', 'ru'] as const).map((language) => ({ width, theme, language })),
  ),
)
export type Variant = (typeof VARIANTS)[number]

export const variantName = (v: Variant) => `${String(v.width)} px, ${v.theme}, ${v.language}`

/**
 * Opens `page` in `variant` from its next load on: the viewport, and the theme and language
 * stored as the app's switches store them.
 */
export async function useVariant(page: Page, variant: Variant) {
  await page.setViewportSize({ width: variant.width, height: 900 })
  await page.addInitScript((stored) => {
    localStorage.setItem('theme', stored.theme)
    localStorage.setItem('language', stored.language)
  }, variant)
}

/** The loaded app is in `variant`'s language and theme. */
export async function expectVariant(page: Page, variant: Variant) {
  await expect(page.locator('html')).toHaveAttribute('lang', variant.language)
  if (variant.theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
  else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
}

/** Follows the page's sidebar link, on a phone in the drawer the menu button opens. */
export async function follow(page: Page, path: string, language: Variant['language']) {
  const menu = page.getByRole('button', { name: CATALOGUES[language].layout.openMenu, exact: true })
  const sidebar = page.locator(`aside nav a[href="${path}"]`).first()
  // Wait for the layout first: right after a navigation neither may be shown yet, and an
  // instant check that missed the menu button clicked the hidden sidebar until the timeout.
  await expect(menu.or(sidebar).filter({ visible: true }).first()).toBeVisible()
  if (await menu.isVisible()) {
    await menu.click()
    const drawer = page.getByRole('dialog')
    await drawer.locator(`nav a[href="${path}"]`).click()
    await expect(drawer).toBeHidden()
  } else {
    await sidebar.click()
  }
  await expect(page).toHaveURL(new RegExp(`${path}$`))
}
