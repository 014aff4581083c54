import { createHmac } from 'node:crypto'
import { expect, test } from './fixtures'

/** RFC 4648 base32 (no padding) to bytes. */
function base32(secret: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const char of secret.replace(/=+$/, '')) {
    const value = alphabet.indexOf(char.toUpperCase())
    if (value < 0) throw new Error(`not base32: ${char}`)
    bits += value.toString(2).padStart(5, '0')
  }
  const bytes: number[] = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

/** The RFC 6238 code (SHA-1, 6 digits, 30 s) of `secret` at time step `step`. */
function totp(secret: string, step: number): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const digest = createHmac('sha1', base32(secret)).update(counter).digest()
  const offset = digest.readUInt8(19) & 0x0f
  const binary = digest.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 1_000_000).padStart(6, '0')
}

const stepNow = () => Math.floor(Date.now() / 30_000)

test.describe('two-factor login', () => {
  test('enable 2FA from the app, log out, log in with the code', async ({ page, login, account }) => {
    await login(page, account)
    await page.goto('/settings')
    const card = page.getByRole('region', { name: 'Two-factor login' })
    await expect(card.getByText('Two-factor login is off')).toBeVisible()
    await card.getByRole('button', { name: 'Set up two-factor login' }).click()

    await expect(card.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible()
    const secret = await card.getByLabel('Secret').inputValue()
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)

    // A wrong code is refused and leaves it off.
    const wrong = totp(secret, stepNow()) === '000000' ? '111111' : '000000'
    await card.getByLabel('Code from the app').fill(wrong)
    await card.getByRole('button', { name: 'Turn on' }).click()
    await expect(card.getByRole('alert')).toHaveText('Invalid or already used code.')

    const enabledAt = stepNow()
    await card.getByLabel('Code from the app').fill(totp(secret, enabledAt))
    await card.getByRole('button', { name: 'Turn on' }).click()
    const recovery = card.getByRole('region', { name: 'Recovery codes' })
    await expect(recovery).toBeVisible()
    await expect(recovery.getByRole('listitem')).toHaveCount(10)
    await expect(card.getByText('Two-factor login is on')).toBeVisible()
    await expect(card.getByText('10 recovery codes left')).toBeVisible()
    await recovery.getByRole('button', { name: 'I have saved them' }).click()
    await expect(recovery).toBeHidden()
    // The secret is not shown again.
    await expect(card.getByLabel('Secret')).toHaveCount(0)

    await page.getByRole('button', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/login$/)

    // The password alone leads to the second step, not in.
    await page.getByLabel('Имя пользователя').fill(account.username)
    await page.getByLabel('Пароль').fill(account.password)
    await page.getByRole('button', { name: 'Войти' }).click()
    const codeField = page.getByLabel('Код подтверждения')
    await expect(codeField).toBeVisible()
    await expect(page).toHaveURL(/\/login$/)
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull()

    // The code the enable used is spent.
    await codeField.fill(totp(secret, enabledAt))
    await page.getByRole('button', { name: 'Подтвердить' }).click()
    await expect(page.getByRole('alert')).toHaveText('Неверный или уже использованный код')
    await expect(page).toHaveURL(/\/login$/)

    // The next step's code logs in.
    await codeField.fill(totp(secret, enabledAt + 1))
    await page.getByRole('button', { name: 'Подтвердить' }).click()
    await expect(page).toHaveURL(/\/dashboard$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
  })

  test('the sessions list revokes another session, whose token stops working', async ({
    page,
    login,
    account,
    server,
  }) => {
    const script = await page.request.post(`${server.url}/api/auth/token/`, {
      data: { username: account.username, password: account.password },
      headers: { 'User-Agent': 'trading-script/1.0' },
    })
    expect(script.ok()).toBe(true)
    const { token } = (await script.json()) as { token: string }
    const me = () =>
      page.request.get(`${server.url}/api/auth/me/`, { headers: { Authorization: `Token ${token}` } })
    expect((await me()).status()).toBe(200)

    await login(page, account)
    await page.goto('/settings')
    const card = page.getByRole('region', { name: 'Sessions' })
    const list = card.getByRole('list', { name: 'Sessions' })
    await expect(list.getByRole('listitem')).toHaveCount(2)
    await expect(list.getByText('This session')).toBeVisible()
    await expect(list.getByText('trading-script/1.0')).toBeVisible()

    await list.getByRole('button', { name: 'Revoke trading-script/1.0' }).click()
    await expect(list.getByRole('listitem')).toHaveCount(1)
    expect((await me()).status()).toBe(401)
    // This session goes on.
    await page.reload()
    await expect(page.getByRole('region', { name: 'Sessions' }).getByText('This session')).toBeVisible()
  })
})
