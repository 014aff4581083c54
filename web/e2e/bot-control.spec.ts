import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

async function addActiveKey(page: Page, label: string) {
  await page.goto('/api-keys')
  await page.getByLabel('API Key', { exact: true }).fill(`paper-key-${label}`)
  await page.getByLabel('API Secret').fill(`paper-secret-${label}`)
  await page.getByLabel('Exchange').selectOption('Paper')
  await page.getByRole('button', { name: 'Add API Key' }).click()
  await expect(page.getByText('API key added successfully').first()).toBeVisible()
  const rows = page.getByRole('list', { name: 'Existing API Keys' }).getByRole('listitem')
  const newest = rows.first()
  await expect(newest).toContainText(/Active|Inactive/)
  if ((await newest.getByRole('button', { name: 'Set Active' }).count()) > 0) {
    await newest.getByRole('button', { name: 'Set Active' }).click()
    await expect(page.getByText('API key set as active')).toBeVisible()
  }
  await expect(newest).not.toContainText('Inactive')
}

test.describe('bot control', () => {
  test('Start Bot without an active key trades on the paper account', async ({ page, login, account }) => {
    await login(page, account)
    const card = page.getByRole('region', { name: 'Bot Status' })
    await expect(card.getByText('Current trading bot status and controls')).toBeVisible()
    await expect(card.getByText('Stopped')).toBeVisible()
    await expect(card.getByText('Paper', { exact: true }).first()).toBeVisible()
    await card.getByRole('button', { name: 'Start Bot' }).click()
    await expect(card.getByText('Running')).toBeVisible()
    await expect(page.getByRole('alertdialog')).toHaveCount(0)
    await card.getByRole('button', { name: 'Stop Bot' }).click()
    await expect(card.getByText('Stopped')).toBeVisible()
  })

  test('start and stop the bot and the signals', async ({ page, login, account }) => {
    await login(page, account)
    await addActiveKey(page, 'a')
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Bot Status' })
      .click()
    const card = page.getByRole('region', { name: 'Bot Status' })
    await expect(card.getByText('Stopped')).toBeVisible()
    await expect(card.getByText('Signals Inactive')).toBeVisible()

    await card.getByRole('button', { name: 'Start Bot' }).click()
    await expect(page.getByText('Bot started')).toBeVisible()
    await expect(page.getByText('Trading bot has been started or stopped successfully')).toBeVisible()
    await expect(card.getByText('Running')).toBeVisible()
    // Starting the bot starts signal fetching first.
    await expect(card.getByText('Signals Active')).toBeVisible()
    await expect(card.getByRole('button', { name: 'Stop Bot' })).toBeEnabled()

    await card.getByRole('button', { name: 'Stop Signals' }).click()
    await expect(page.getByText('Signals stopped')).toBeVisible()
    await expect(page.getByText('Signal fetching has been started or stopped successfully')).toBeVisible()
    await expect(card.getByText('Signals Inactive')).toBeVisible()

    await card.getByRole('button', { name: 'Start Signals' }).click()
    await expect(page.getByText('Signals started')).toBeVisible()
    await expect(card.getByText('Signals Active')).toBeVisible()

    // The state survives a reload (the card reads the server, not local state).
    await page.reload()
    await expect(card.getByText('Running')).toBeVisible()

    // While the bot runs, the active key can be neither deleted nor switched.
    await addActiveKeyBlocked(page)
    await page.goto('/dashboard')

    await card.getByRole('button', { name: 'Stop Bot' }).click()
    await expect(page.getByText('Bot stopped')).toBeVisible()
    await expect(card.getByText('Stopped')).toBeVisible()
    await card.getByRole('button', { name: 'Stop Signals' }).click()
    await expect(card.getByText('Signals Inactive')).toBeVisible()
  })

  test('the bot mode radios save bot_mode', async ({ page, login, account }) => {
    await login(page, account)
    const card = page.getByRole('region', { name: 'Bot Status' })
    await expect(card.getByRole('radio', { name: 'Use classic bot' })).toBeChecked()
    await card.getByRole('radio', { name: 'Use martingale' }).click()
    await expect(page.getByText('Settings saved successfully')).toBeVisible()
    await expect(card.getByRole('radio', { name: 'Use martingale' })).toBeChecked()
    await page.goto('/settings')
    await expect(page.getByLabel('Режим бота')).toHaveValue('martingale')
    await expect(page.getByLabel('Множитель шага')).toBeVisible()
    await page.goto('/dashboard')
    await expect(card.getByRole('radio', { name: 'Use martingale' })).toBeChecked()
  })
})

async function addActiveKeyBlocked(page: Page) {
  await page.goto('/api-keys')
  const rows = page.getByRole('list', { name: 'Existing API Keys' }).getByRole('listitem')
  await expect(rows).toHaveCount(1)
  await rows.first().getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete key' }).click()
  await expect(page.getByText('Failed to delete API key')).toBeVisible()
  await expect(page.getByText(/stop the bot/i)).toBeVisible()
  await expect(rows).toHaveCount(1)
}
