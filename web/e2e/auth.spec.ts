import { expect, test } from './fixtures'

test.describe('authentication', () => {
  test('a wrong password shows "Неверный логин или пароль"', async ({ page, server }) => {
    await page.goto('/login')
    await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible()
    await page.getByLabel('Имя пользователя').fill(server.username)
    await page.getByLabel('Пароль').fill('not-the-password')
    await page.getByRole('button', { name: 'Войти' }).click()
    await expect(page.getByText('Неверный логин или пароль')).toBeVisible()
    await expect(page).toHaveURL(/\/login$/)
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull()
  })

  test('logging in lands on /dashboard with the sidebar', async ({ page, login }) => {
    // Content-Security-Policy violations and script errors show up as console errors.
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await login()
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
    await expect(page.getByText('Welcome back to your trading dashboard')).toBeVisible()
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await expect(nav.getByRole('link', { name: 'Bot Status' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'Statistics' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'API Keys' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'Settings' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Toggle Theme' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Logout' })).toBeVisible()
    const stored = await page.evaluate(() => ({
      token: localStorage.getItem('token'),
      user: localStorage.getItem('user'),
    }))
    expect(stored.token).toMatch(/^[0-9a-f]+$/)
    expect(JSON.parse(stored.user ?? 'null')).toMatchObject({ username: 'trader' })

    await nav.getByRole('link', { name: 'Settings' }).click()
    await expect(page).toHaveURL(/\/settings$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeVisible()
    expect(problems).toEqual([])
  })

  test('a protected route while logged out goes to /login', async ({ page }) => {
    for (const path of ['/dashboard', '/api-keys', '/stats', '/']) {
      await page.goto(path)
      await expect(page).toHaveURL(/\/login$/)
      await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible()
    }
  })

  test('a logged-in user opening /login or an unknown path gets the dashboard', async ({ page, login }) => {
    await login()
    await page.goto('/login')
    await expect(page).toHaveURL(/\/dashboard$/)
    await page.goto('/no-such-page')
    await expect(page).toHaveURL(/\/dashboard$/)
    await page.goto('/logs')
    await expect(page.getByRole('heading', { level: 1, name: 'Trading Logs' })).toBeVisible()
  })

  test('logout returns to /login and forgets the session', async ({ page, login }) => {
    await login()
    await page.getByRole('button', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/login$/)
    await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible()
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('user')])).toEqual([
      null,
      null,
    ])
    await page.goto('/dashboard')
    await expect(page).toHaveURL(/\/login$/)
  })

  test('a token revoked on the server sends the user to /login', async ({ page, login, server }) => {
    await login()
    const token = await page.evaluate(() => localStorage.getItem('token'))
    const revoked = await page.request.post(`${server.url}/api/auth/logout/`, {
      headers: { Authorization: `Token ${token ?? ''}` },
    })
    expect(revoked.ok()).toBe(true)
    await page.reload()
    await expect(page).toHaveURL(/\/login$/)
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull()
  })
})
