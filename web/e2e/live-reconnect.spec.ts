import { expect, test } from './fixtures'

// Issue 33, point 3: the live feed comes back after a server restart without a reload, the loss is
// one banner (no toast every 5 s), and the browser coming back online tries at once.
test('after a server restart the dashboard reconnects by itself, with one banner while it is down', async ({
  page,
  login,
  account,
  server,
}) => {
  test.setTimeout(120_000)
  await login(page, account)
  const badge = page.getByRole('main').getByText(/^(Connected|Disconnected)$/)
  await expect(badge).toHaveText('Connected')
  const banner = page.getByTestId('connection-lost')
  await expect(banner).toBeHidden()

  await server.restart(async () => {
    await expect(badge).toHaveText('Disconnected')
    await expect(banner).toContainText(/Connection lost since \d\d:\d\d \(Europe\/Moscow\)\./)
    // Past the settings poll's 5 s: the banner stands alone, no repeating toast.
    await page.waitForTimeout(6_000)
    await expect(page.getByText('Failed to fetch bot settings')).toHaveCount(0)
    await expect(banner).toHaveCount(1)
  })
  // The next quick try could be up to 16 s away: the browser coming back online tries now.
  await page.evaluate(() => window.dispatchEvent(new Event('online')))
  await expect(badge).toHaveText('Connected', { timeout: 10_000 })
  await expect(banner).toBeHidden()
  // The same page, not a reload: the feed works again (Start Bot answers through it).
  await page.getByRole('button', { name: 'Start Bot' }).click()
  await expect(page.getByText('Running', { exact: true })).toBeVisible()
})
