import { axe, fitsWidth } from './a11y'
import { expect, test } from './fixtures'
import { pageApi } from './page-api'
import { closedPort } from './receiver'

/**
 * Accessibility of the alert banner, the Channels section and the protection and circuit
 * breaker settings (axe-core, WCAG 2.1 A and AA, contrast included), at desktop and phone
 * widths in both themes, and none of them wider than the phone's screen.
 *
 * The banner's alert comes from a stubbed GET /api/alerts/ (the real raising and clearing is
 * alerts.spec.ts): the words are the server's for a tripped breaker, the longest it sends.
 */

const ALERT = {
  id: 7,
  kind: 'circuit_breaker',
  title: 'Circuit breaker tripped',
  detail:
    "the daily loss breaker tripped: 412.50 USDT lost today, 4.12% of the day's starting balance of 10012.50 USDT (limit 4%); no new entries until midnight (Europe/Moscow)",
  action: 'No new entries until the breaker resets; open positions keep their stops.',
  raised_at: '2026-11-23T12:00:00Z',
  cleared_at: null,
  active: true,
}

for (const width of [1440, 360]) {
  for (const theme of ['light', 'dark'] as const) {
    test(`alert banner, Channels and breaker settings at ${String(width)} px, ${theme} theme`, async ({
      page,
      login,
      account,
    }) => {
      test.setTimeout(60_000)
      await page.setViewportSize({ width, height: 900 })
      await page.addInitScript((t) => {
        localStorage.setItem('theme', t)
      }, theme)
      await page.route('**/api/alerts/', (route) => route.fulfill({ json: [ALERT] }))
      await login(page, account)

      // A channel that failed (a closed port) and one that works, so both states are checked.
      const failing = await pageApi<{ id: number }>(page, 'POST', '/api/notification-channels/', {
        kind: 'webhook',
        url: `http://127.0.0.1:${String(await closedPort())}/a/long/path/that/is/masked`,
        secret: 'a-secret-of-enough-length',
      })
      await pageApi(page, 'POST', `/api/notification-channels/${String(failing.id)}/test/`)
      await pageApi(page, 'POST', '/api/notification-channels/', {
        kind: 'telegram',
        address: '-1001234567890',
      })

      await page.goto('/settings')
      if (theme === 'dark') await expect(page.locator('html')).toHaveClass(/\bdark\b/)
      else await expect(page.locator('html')).not.toHaveClass(/\bdark\b/)
      const banner = page.getByRole('region', { name: 'Alerts' })
      await expect(banner.getByRole('alert')).toContainText('Circuit breaker tripped')
      const channels = page.getByRole('region', { name: 'Channels' })
      const webhookRow = channels.getByRole('listitem', { name: /^Webhook / })
      await expect(webhookRow).toContainText('1 failed delivery in a row')
      await expect(channels.getByRole('listitem', { name: /^Telegram / })).toContainText('Working')
      const protection = page.getByTestId('protection-settings')
      await expect(protection.getByLabel('Пауза после убытков, мин')).toHaveValue('60')

      await axe(page, banner, 'banner')
      await fitsWidth(page, banner, 'the alert banner')

      // The add form as a webhook (its three fields), and a row's edit form open.
      await channels.getByLabel('Kind').selectOption('webhook')
      await webhookRow.getByRole('button', { name: 'Edit' }).click()
      await expect(webhookRow.getByRole('form', { name: 'Edit the Webhook channel' })).toBeVisible()
      await channels.scrollIntoViewIfNeeded()
      await axe(page, channels, 'channels')
      await fitsWidth(page, channels, 'the Channels section')

      await protection.scrollIntoViewIfNeeded()
      await axe(page, protection, 'protection')
      await fitsWidth(page, protection, 'the protection settings')

      // For a person's review: the three parts as drawn (test-results/, kept until the next run).
      for (const [part, name] of [
        [banner, 'banner'],
        [channels, 'channels'],
        [protection, 'protection'],
      ] as const) {
        await part.screenshot({ path: test.info().outputPath(`${name}-${String(width)}-${theme}.png`) })
      }
    })
  }
}
