import { expect, test } from './fixtures'

/**
 * Screenshots for a person to look at (`SCREENSHOTS=1 npm run e2e`), written to
 * test-results/screenshots/. Not part of the normal run.
 */
test.describe('screenshots', () => {
  test.skip(!process.env.SCREENSHOTS, 'set SCREENSHOTS=1 to take them')

  const shot = (name: string) => ({ path: `test-results/screenshots/${name}.png` })

  test('login and dashboard, desktop and 375 px, dark and light', async ({ page, login }) => {
    await page.goto('/login')
    await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible()
    await page.screenshot(shot('login-desktop-dark'))
    await page.getByRole('button', { name: 'Войти' }).click()
    await page.screenshot(shot('login-desktop-dark-required'))
    await page.getByLabel('Имя пользователя').fill('trader')
    await page.getByLabel('Пароль').fill('wrong')
    await page.getByRole('button', { name: 'Войти' }).click()
    await expect(page.getByText('Неверный логин или пароль')).toBeVisible()
    await page.screenshot(shot('login-desktop-dark-failed'))

    await login()
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await page.screenshot(shot('dashboard-desktop-dark'))
    await page.getByRole('button', { name: 'Collapse sidebar' }).click()
    await page.waitForTimeout(300)
    await page.screenshot(shot('dashboard-desktop-dark-collapsed'))
    await page.getByRole('button', { name: 'Expand sidebar' }).click()
    await page.getByRole('button', { name: 'Toggle Theme' }).click()
    await page.waitForTimeout(300)
    await page.screenshot(shot('dashboard-desktop-light'))
    await page.getByRole('button', { name: 'Toggle Theme' }).click()
    await page.getByRole('button', { name: 'Toggle Theme' }).click()

    await page.setViewportSize({ width: 375, height: 812 })
    await page.screenshot(shot('dashboard-375-dark'))
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.waitForTimeout(300)
    await page.screenshot(shot('dashboard-375-dark-drawer'))
    await page.keyboard.press('Escape')

    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/login$/)
    await page.screenshot(shot('login-375-dark'))
  })
})
