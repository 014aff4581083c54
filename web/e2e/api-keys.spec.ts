import { expect, test } from './fixtures'

test.describe('API keys', () => {
  test('adding a key resets the form and lists it masked, never the secret', async ({
    page,
    login,
    account,
  }) => {
    const key = `e2e-key-${Date.now()}`
    const secret = `e2e-secret-${Date.now()}`
    await login(page, account)
    await page.goto('/api-keys')
    await expect(page.getByText('No API keys found')).toBeVisible()
    await expect(page.getByLabel('Mode')).toHaveValue('demo')
    await expect(page.getByLabel('API Key', { exact: true })).toHaveAttribute('type', 'password')
    await expect(page.getByLabel('API Secret')).toHaveAttribute('type', 'password')

    await page.getByLabel('API Key', { exact: true }).fill(key)
    await page.getByLabel('API Secret').fill(secret)
    await page.getByLabel('Mode').selectOption('Real')
    await page.getByRole('button', { name: 'Add API Key' }).click()

    await expect(page.getByText('API key added successfully')).toBeVisible()
    await expect(page.getByLabel('API Key', { exact: true })).toHaveValue('')
    await expect(page.getByLabel('API Secret')).toHaveValue('')
    await expect(page.getByLabel('Mode')).toHaveValue('demo')
    const rows = page.getByRole('list', { name: 'Existing API Keys' }).getByRole('listitem')
    await expect(rows).toHaveCount(1)
    await expect(rows.first()).toContainText('Real')
    await expect(rows.first()).toContainText('Inactive')
    await expect(rows.first()).toContainText('Added')
    await expect(rows.first()).toContainText('********')
    await expect(page.getByText('No API keys found')).toHaveCount(0)

    for (const text of [await page.locator('body').innerText(), await page.content()]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(key)
    }
    await page.reload()
    await expect(rows).toHaveCount(1)
    expect(await page.content()).not.toContain(secret)
  })

  test('empty fields give "Please fill in all fields" and send nothing', async ({ page, login, account }) => {
    await login(page, account)
    await page.goto('/api-keys')
    await expect(page.getByText('No API keys found')).toBeVisible()
    const sent: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/api/api-keys/') && request.method() !== 'GET') sent.push(request.method())
    })
    const add = page.getByRole('button', { name: 'Add API Key' })
    await add.click()
    await expect(page.getByText('Please fill in all fields')).toBeVisible()
    await page.getByLabel('API Key', { exact: true }).fill('only-a-key')
    await add.click()
    await page.getByLabel('API Key', { exact: true }).fill('')
    await page.getByLabel('API Secret').fill('only-a-secret')
    await add.click()
    await page.getByLabel('API Key', { exact: true }).fill('   ')
    await add.click()
    await expect(page.getByText('Please fill in all fields').first()).toBeVisible()
    // Give a stray request the time to show up.
    await page.waitForTimeout(300)
    expect(sent).toEqual([])
    await expect(page.getByText('No API keys found')).toBeVisible()
  })

  test('Set Active and Delete, with their toasts', async ({ page, login, account }) => {
    await login(page, account)
    await page.goto('/api-keys')
    const rows = page.getByRole('list', { name: 'Existing API Keys' }).getByRole('listitem')
    for (const mode of ['Demo', 'Real']) {
      await page.getByLabel('API Key', { exact: true }).fill(`key-${mode}`)
      await page.getByLabel('API Secret').fill(`secret-${mode}`)
      await page.getByLabel('Mode').selectOption(mode)
      // Paper keys: Set Active checks a Bybit key with Bybit, which this machine cannot reach.
      await page.getByLabel('Exchange').selectOption('Paper')
      await page.getByRole('button', { name: 'Add API Key' }).click()
      await expect(page.getByText('API key added successfully').first()).toBeVisible()
    }
    await expect(rows).toHaveCount(2)
    // Newest first.
    const real = rows.filter({ hasText: 'Real' })
    const demo = rows.filter({ hasText: 'Demo' })
    await expect(rows.first()).toContainText('Real')

    const activeBefore = await rows.filter({ hasText: /\bActive\b/ }).count()
    await demo.getByRole('button', { name: 'Set Active' }).click()
    await expect(page.getByText('API key set as active')).toBeVisible()
    await expect(demo).toContainText('Active')
    await expect(demo).not.toContainText('Inactive')
    await expect(demo.getByRole('button', { name: 'Set Active' })).toHaveCount(0)
    await expect(real).toContainText('Inactive')
    expect(activeBefore).toBeLessThanOrEqual(1)

    await real.getByRole('button', { name: 'Set Active' }).click()
    await expect(real).not.toContainText('Inactive')
    await expect(demo).toContainText('Inactive')

    await demo.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete key' }).click()
    await expect(page.getByText('API key deleted successfully')).toBeVisible()
    await expect(rows).toHaveCount(1)
    await expect(rows.first()).toContainText('Real')

    await real.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete key' }).click()
    await expect(page.getByText('No API keys found')).toBeVisible()
  })
})
