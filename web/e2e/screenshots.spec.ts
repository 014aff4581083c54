import { expect, test } from './fixtures'

/**
 * Screenshots for a person to look at (`SCREENSHOTS=1 npm run e2e`), written to
 * test-results/screenshots/. Not part of the normal run.
 */
test.describe('screenshots', () => {
  test.skip(!process.env.SCREENSHOTS, 'set SCREENSHOTS=1 to take them')

  const shot = (name: string, options: { fullPage?: boolean } = {}) => ({
    path: `test-results/screenshots/${name}.png`,
    ...options,
  })

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
    await expect(page.getByRole('region', { name: 'Bot Status' }).getByText(/Running|Stopped/)).toBeVisible()
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

  test('settings, API keys and bot status: desktop and 375 px, dark and light', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    const pages = [
      { path: '/settings', ready: () => page.getByRole('button', { name: 'Сохранить настройки' }) },
      { path: '/api-keys', ready: () => page.getByText('No API keys found') },
      {
        path: '/dashboard',
        ready: () => page.getByRole('region', { name: 'Bot Status' }).getByText('Stopped'),
      },
    ]
    const shootAll = async (suffix: string) => {
      for (const { path, ready } of pages) {
        await page.goto(path)
        await expect(ready()).toBeVisible()
        await page.waitForTimeout(200)
        await page.screenshot(shot(`${path.slice(1)}-${suffix}`))
      }
    }

    // Martingale mode, forbidden hours and days on, and two keys: every conditional part shows.
    await page.goto('/settings')
    await page.getByLabel('Режим бота').selectOption('martingale')
    await page.getByRole('checkbox', { name: 'Запретные часы' }).check()
    await page.getByLabel('Интервалы часов').fill('23.00-1.00, 6.00-8.00')
    await page.getByRole('checkbox', { name: 'Запретные дни недели' }).check()
    await page.getByRole('checkbox', { name: 'Сб' }).check()
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await expect(page.getByText('Settings saved successfully')).toBeVisible()
    await page.getByRole('button', { name: 'Close toast' }).click()

    await shootAll('desktop-dark')
    await page.goto('/settings')
    await page.getByLabel('Макс. открытых сделок').fill('0')
    await page.getByRole('button', { name: 'Сохранить настройки' }).click()
    await page.screenshot(shot('settings-desktop-dark-invalid', { fullPage: true }))
    await page.goto('/settings')
    await expect(page.getByRole('button', { name: 'Сохранить настройки' })).toBeVisible()
    await page.screenshot(shot('settings-desktop-dark-full', { fullPage: true }))

    await page.goto('/api-keys')
    for (const [mode, label] of [
      ['Demo', 'demo'],
      ['Real', 'real'],
    ] as const) {
      await page.getByLabel('API Key', { exact: true }).fill(`key-${label}`)
      await page.getByLabel('API Secret').fill(`secret-${label}`)
      await page.getByLabel('Mode').selectOption(mode)
      // Paper keys: Set Active checks a Bybit key with Bybit, which this spec has no fake of.
      await page.getByLabel('Exchange').selectOption('Paper')
      await page.getByRole('button', { name: 'Add API Key' }).click()
      await expect(page.getByText('API key added successfully').first()).toBeVisible()
    }
    const rows = page.getByRole('list', { name: 'Existing API Keys' }).getByRole('listitem')
    await expect(rows).toHaveCount(2)
    if ((await rows.last().getByRole('button', { name: 'Set Active' }).count()) > 0) {
      await rows.last().getByRole('button', { name: 'Set Active' }).click()
      await expect(page.getByText('API key set as active')).toBeVisible()
    }
    await page.screenshot(shot('api-keys-desktop-dark-listed'))
    pages[1] = { path: '/api-keys', ready: () => rows.first() }

    await page.goto('/dashboard')
    const card = page.getByRole('region', { name: 'Bot Status' })
    await card.getByRole('button', { name: 'Start Bot' }).click()
    await expect(card.getByText('Running')).toBeVisible()
    await page.screenshot(shot('dashboard-desktop-dark-running'))
    await card.getByRole('button', { name: 'Stop Bot' }).click()
    await expect(card.getByText('Stopped')).toBeVisible()
    await card.getByRole('button', { name: 'Stop Signals' }).click()
    await expect(card.getByText('Signals Inactive')).toBeVisible()

    await page.getByRole('button', { name: 'Toggle Theme' }).click()
    await shootAll('desktop-light')
    await page.setViewportSize({ width: 375, height: 812 })
    await shootAll('375-light')
    await page.goto('/settings')
    await expect(page.getByRole('button', { name: 'Сохранить настройки' })).toBeVisible()
    await page.screenshot(shot('settings-375-light-full', { fullPage: true }))
    await page.goto('/api-keys')
    await expect(rows.first()).toBeVisible()
    await page.screenshot(shot('api-keys-375-light-full', { fullPage: true }))
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Toggle Theme' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Toggle Theme' }).click()
    await page.keyboard.press('Escape')
    await shootAll('375-dark')
  })
})
