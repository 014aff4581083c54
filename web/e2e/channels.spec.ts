import { randomBytes } from 'node:crypto'
import type { Locator, Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { pageApi } from './page-api'
import { closedPort, signature, startReceiver, type Receiver } from './receiver'

type Channel = {
  id: number
  kind: string
  target: string
  has_secret: boolean
  secret?: string
  failures: number
  last_error: string | null
}

let receiver: Receiver

test.beforeEach(async () => {
  receiver = await startReceiver()
})

test.afterEach(async () => {
  await receiver.close()
})

async function openChannels(page: Page): Promise<Locator> {
  await page.goto('/settings')
  const card = page.getByRole('region', { name: 'Channels' })
  await expect(card.getByText('No channels yet')).toBeVisible()
  return card
}

/** The one request the receiver got since `before`, checked as a signed JSON POST of a test message. */
function lastDelivery(before: number) {
  expect(receiver.received).toHaveLength(before + 1)
  const delivery = receiver.received[before]
  expect(delivery.method).toBe('POST')
  expect(delivery.path).toBe('/hook')
  expect(delivery.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(delivery.body.toString('utf8')) as { event: string; text: string }
  expect(body.event).toBe('test')
  expect(body.text).not.toBe('')
  return delivery
}

test.describe('notification channels', () => {
  test('a webhook channel: signed test deliveries, failures shown, edited, deleted; its secret never shown back', async ({
    page,
    login,
    account,
  }) => {
    test.setTimeout(60_000)
    const secret = `first-secret-${randomBytes(8).toString('hex')}`
    const newSecret = `second-secret-${randomBytes(8).toString('hex')}`
    await login(page, account)
    const card = await openChannels(page)

    await card.getByLabel('Kind').selectOption('webhook')
    await card.getByLabel('URL').fill(`${receiver.url}/hook`)
    await card.getByLabel('Signing secret').fill(secret)
    await card.getByRole('button', { name: 'Add channel' }).click()
    await expect(page.getByText('Channel added')).toBeVisible()
    // Listed with the URL masked past the host; the form is emptied.
    const row = card.getByRole('listitem', { name: 'Webhook http://127.0.0.1/********' })
    await expect(row).toContainText('Working')
    await expect(card.getByLabel('URL')).toHaveValue('')
    await expect(card.getByLabel('Signing secret')).toHaveValue('')
    // A secret the user chose is not echoed as a "made" one.
    await expect(card.getByText('The signing secret (shown once, copy it now):')).toHaveCount(0)

    // Test: a JSON POST signed with HMAC-SHA256 of the raw body under the secret.
    await row.getByRole('button', { name: 'Test' }).click()
    await expect(page.getByText('Test message sent')).toBeVisible()
    const first = lastDelivery(0)
    expect(first.headers['x-signaldesk-signature']).toBe(signature(secret, first.body))

    // The receiver answers 500: the test says so and the row shows the failure.
    receiver.status = 500
    await row.getByRole('button', { name: 'Test' }).click()
    await expect(page.getByText('The test message did not go through')).toBeVisible()
    await expect(row).toContainText(/1 failed delivery in a row, last at /)
    await expect(row).toContainText('Last error: the webhook answered 500')
    expect(receiver.received).toHaveLength(2)

    // Edit: the URL to a port nothing listens on. The secret field is empty (kept, never shown).
    await row.getByRole('button', { name: 'Edit' }).click()
    let form = row.getByRole('form', { name: 'Edit the Webhook channel' })
    await expect(form.getByLabel('URL')).toHaveValue('')
    await expect(form.getByLabel('Signing secret')).toHaveValue('')
    await form.getByLabel('URL').fill(`http://127.0.0.1:${String(await closedPort())}/hook`)
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(page.getByText('Channel saved')).toBeVisible()
    await expect(form).toHaveCount(0)
    await row.getByRole('button', { name: 'Test' }).click()
    await expect(page.getByText('The test message did not go through').first()).toBeVisible()
    await expect(row).toContainText(/2 failed deliveries in a row/)
    await expect(row).not.toContainText('the webhook answered 500')
    await expect(row.getByText(/^Last error: /)).toBeVisible()
    expect(receiver.received).toHaveLength(2)

    // Edit: back to the receiver with a new secret, which signs from now on.
    receiver.status = 200
    await row.getByRole('button', { name: 'Edit' }).click()
    form = row.getByRole('form', { name: 'Edit the Webhook channel' })
    await form.getByLabel('URL').fill(`${receiver.url}/hook`)
    await form.getByLabel('Signing secret').fill(newSecret)
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(form).toHaveCount(0)
    await row.getByRole('button', { name: 'Test' }).click()
    await expect(row).toContainText('Working')
    const third = lastDelivery(2)
    expect(third.headers['x-signaldesk-signature']).toBe(signature(newSecret, third.body))
    expect(third.headers['x-signaldesk-signature']).not.toBe(signature(secret, third.body))

    // Neither secret nor the path comes back: not in the page after a reload, not in the API.
    await page.reload()
    await expect(row).toContainText('Working')
    const html = await page.content()
    expect(html).not.toContain(secret)
    expect(html).not.toContain(newSecret)
    expect(html).not.toContain(receiver.url)
    const [listed] = await pageApi<Channel[]>(page, 'GET', '/api/notification-channels/')
    expect(listed).toMatchObject({ kind: 'webhook', target: 'http://127.0.0.1/********', has_secret: true })
    expect(listed).not.toHaveProperty('secret')
    expect(JSON.stringify(listed)).not.toContain('secret-')

    await row.getByRole('button', { name: 'Delete' }).click()
    await expect(page.getByText('Channel deleted')).toBeVisible()
    await expect(card.getByText('No channels yet')).toBeVisible()
    expect(await pageApi<Channel[]>(page, 'GET', '/api/notification-channels/')).toEqual([])
  })

  test('a secret the server makes is shown once and signs the deliveries', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    const card = await openChannels(page)
    await card.getByLabel('Kind').selectOption('webhook')
    await card.getByLabel('URL').fill(`${receiver.url}/hook`)
    await card.getByRole('button', { name: 'Add channel' }).click()
    await expect(card.getByText('The signing secret (shown once, copy it now):')).toBeVisible()
    const made = card.locator('code')
    await expect(made).toHaveText(/^[0-9a-f]{64}$/)
    const secret = (await made.textContent()) ?? ''

    const row = card.getByRole('listitem', { name: 'Webhook http://127.0.0.1/********' })
    await row.getByRole('button', { name: 'Test' }).click()
    await expect(page.getByText('Test message sent')).toBeVisible()
    const delivery = lastDelivery(0)
    expect(delivery.headers['x-signaldesk-signature']).toBe(signature(secret, delivery.body))

    // Gone once the page is left.
    await page.reload()
    await expect(row).toContainText('Working')
    await expect(card.getByText('The signing secret (shown once, copy it now):')).toHaveCount(0)
    expect(await page.content()).not.toContain(secret)
  })
})
