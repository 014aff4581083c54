import { axe, fitsWidth } from './a11y'
import { expect, test } from './fixtures'

/**
 * Accessibility of issue 31's screens (axe-core, WCAG 2.1 A and AA, contrast included) at
 * desktop and phone widths in both themes, each within the phone's width: the Security
 * section of /settings with two-factor set-up open (QR code, secret, code field), and the
 * login page's second step asking for the code.
 *
 * The second step comes from a stubbed login answer, the server's own 401 for a right
 * password without a code (the real flow is two-factor.spec.ts).
 */

for (const width of [1440, 360]) {
  for (const theme of ['light', 'dark'] as const) {
    test.describe(`at ${String(width)} px, ${theme} theme`, () => {
      test.beforeEach(async ({ page }) => {
        await page.setViewportSize({ width, height: 900 })
        await page.addInitScript((t) => {
          localStorage.setItem('theme', t)
        }, theme)
      })

      test('the Security section with two-factor set-up open', async ({ page, login, account }) => {
        await login(page, account)
        await page.goto('/settings')
        if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
        else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
        const security = page.getByRole('region', { name: 'Security' })
        const twoFactor = security.getByRole('region', { name: 'Two-factor login' })
        await twoFactor.getByRole('button', { name: 'Set up two-factor login' }).click()
        await expect(twoFactor.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible()
        await expect(security.getByText('This session')).toBeVisible()
        await security.scrollIntoViewIfNeeded()
        await axe(page, security, 'security')
        await fitsWidth(page, security, 'the Security section')
        await security.screenshot({ path: test.info().outputPath(`security-${String(width)}-${theme}.png`) })
      })

      test('the login page asking for the code', async ({ page, account }) => {
        await page.route('**/api/auth/login/', (route) =>
          route.fulfill({
            status: 401,
            json: { error: 'Enter the code from your authenticator app.', otp_required: true },
          }),
        )
        await page.goto('/login')
        await page.getByLabel('Имя пользователя').fill(account.username)
        await page.getByLabel('Пароль').fill(account.password)
        await page.getByRole('button', { name: 'Войти' }).click()
        const code = page.getByLabel('Код подтверждения')
        await expect(code).toBeVisible()
        const form = page.locator('form').filter({ has: code })
        await axe(page, form, 'login code step')
        await fitsWidth(page, form, 'the code step')
        await page.screenshot({ path: test.info().outputPath(`login-code-${String(width)}-${theme}.png`) })
      })
    })
  }
}
