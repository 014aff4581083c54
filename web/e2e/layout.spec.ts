import { expect, test } from './fixtures'

test.describe('app frame', () => {
  test('the theme toggle persists across a reload', async ({ page, login }) => {
    await login()
    const html = page.locator('html')
    const storedTheme = () => page.evaluate(() => localStorage.getItem('theme'))

    // Default: dark.
    await expect(html).toHaveClass(/\bdark\b/)

    const toggle = page.getByRole('button', { name: 'Toggle Theme' })
    await toggle.click()
    await expect(html).not.toHaveClass(/\bdark\b/)
    expect(await storedTheme()).toBe('light')

    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(html).not.toHaveClass(/\bdark\b/)
    expect(await storedTheme()).toBe('light')

    // light -> system: follows the browser preference (dark in this config, then light).
    await toggle.click()
    expect(await storedTheme()).toBe('system')
    await expect(html).toHaveClass(/\bdark\b/)
    await page.emulateMedia({ colorScheme: 'light' })
    await expect(html).not.toHaveClass(/\bdark\b/)
    await page.emulateMedia({ colorScheme: 'dark' })

    // system -> dark, kept after a reload.
    await toggle.click()
    expect(await storedTheme()).toBe('dark')
    await page.reload()
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(html).toHaveClass(/\bdark\b/)
  })

  test('the sidebar collapses from w-64 to w-20', async ({ page, login }) => {
    await login()
    const sidebar = page.getByTestId('sidebar')
    await expect(sidebar).toBeVisible()
    await expect.poll(async () => (await sidebar.boundingBox())?.width).toBe(256)

    await page.getByRole('button', { name: 'Collapse sidebar' }).click()
    await expect.poll(async () => (await sidebar.boundingBox())?.width).toBe(80)
    // Collapsed links keep their names and still navigate.
    await page.getByRole('link', { name: 'API Keys' }).click()
    await expect(page).toHaveURL(/\/api-keys$/)
    await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible()

    await page.getByRole('button', { name: 'Expand sidebar' }).click()
    await expect.poll(async () => (await sidebar.boundingBox())?.width).toBe(256)
  })

  test('at 375 px the sidebar is a drawer opened by the menu button', async ({ page, login }) => {
    await page.setViewportSize({ width: 375, height: 812 })
    await login()
    await expect(page.getByTestId('sidebar')).toBeHidden()
    await expect(page.getByRole('link', { name: 'Settings' })).toHaveCount(0)

    const menu = page.getByRole('button', { name: 'Open menu' })
    await menu.click()
    const drawer = page.getByRole('dialog')
    await expect(drawer).toBeVisible()
    await expect(drawer.getByRole('link', { name: 'Bot Status' })).toBeVisible()
    await expect(drawer.getByRole('button', { name: 'Toggle Theme' })).toBeVisible()
    await expect(drawer.getByRole('button', { name: 'Logout' })).toBeVisible()

    // A click outside the drawer closes it.
    await page.mouse.click(350, 400)
    await expect(drawer).toBeHidden()

    // Following a link closes it too.
    await menu.click()
    await page.getByRole('dialog').getByRole('link', { name: 'Statistics' }).click()
    await expect(page).toHaveURL(/\/stats$/)
    await expect(page.getByRole('dialog')).toBeHidden()
    await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible()
  })
})
