import type { Page } from '@playwright/test'

/**
 * Runs `page` in `language` from its next load on: sets localStorage `language` before any page
 * script (as the language switch stores it), so any spec can run in Russian.
 */
export async function setLanguage(page: Page, language: 'ru' | 'en') {
  await page.addInitScript((value) => {
    localStorage.setItem('language', value)
  }, language)
}
