import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { SessionInfo } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'

const OTPAUTH = 'otpauth://totp/Signal%20Desk:admin?secret=JBSWY3DPEHPK3PXP&issuer=Signal%20Desk'
const CODES = Array.from({ length: 10 }, (_, i) => `aaaa-bbbb-cccc-dd${String(i).padStart(2, '0')}`)

function session(overrides: Partial<SessionInfo>): SessionInfo {
  return {
    id: 1,
    created_at: '2026-11-27T05:00:00Z',
    last_seen_at: '2026-11-27T05:30:00Z',
    address: '127.0.0.1',
    user_agent: 'Laptop/1.0',
    browser: true,
    current: true,
    ...overrides,
  }
}

/** A server keeping the 2FA state and the sessions in memory. */
function securityServer() {
  let enabled = false
  let left = 0
  let sessions = [session({}), session({ id: 2, user_agent: 'Phone/2.0', current: false })]
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({
      status: 200,
      body: { ...admin, two_factor_enabled: enabled, recovery_codes_left: left },
    }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
    'POST /api/auth/2fa/setup/': () => ({
      status: 200,
      body: { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: OTPAUTH },
    }),
    'POST /api/auth/2fa/enable/': ({ body }) => {
      if ((body as { code: string }).code !== '123456')
        return {
          status: 400,
          body: { error: 'Invalid input.', fields: { code: ['Invalid or already used code.'] } },
        }
      enabled = true
      left = 10
      return { status: 200, body: { two_factor_enabled: true, recovery_codes: CODES } }
    },
    'POST /api/auth/2fa/disable/': () => {
      enabled = false
      left = 0
      return { status: 200, body: { two_factor_enabled: false } }
    },
    'GET /api/auth/sessions/': () => ({ status: 200, body: sessions }),
    'DELETE /api/auth/sessions/2/': () => {
      sessions = sessions.filter((s) => s.id !== 2)
      return { status: 204 }
    },
    'POST /api/auth/password/': ({ body }) =>
      (body as { current_password: string }).current_password === 'old-password'
        ? { status: 200, body: { revoked: 1 } }
        : {
            status: 400,
            body: {
              error: 'Invalid input.',
              fields: { current_password: ['The current password is wrong.'] },
            },
          },
  })
  return { fetchMock }
}

describe('Security section', () => {
  it('sets up 2FA with the QR code and secret, shows the recovery codes once, and turns it off', async () => {
    securityServer()
    storeSession()
    renderApp('/settings')
    const card = within(await screen.findByRole('region', { name: 'Two-factor login' }))
    expect(await card.findByText('Two-factor login is off')).toBeInTheDocument()
    await userEvent.click(card.getByRole('button', { name: 'Set up two-factor login' }))

    expect(await card.findByRole('img', { name: 'QR code for the authenticator app' })).toBeInTheDocument()
    expect(card.getByLabelText('Secret')).toHaveValue('JBSWY3DPEHPK3PXP')
    await userEvent.type(card.getByLabelText('Code from the app'), '000000')
    await userEvent.click(card.getByRole('button', { name: 'Turn on' }))
    expect(await card.findByRole('alert')).toHaveTextContent('Invalid or already used code.')

    await userEvent.type(card.getByLabelText('Code from the app'), '123456')
    await userEvent.click(card.getByRole('button', { name: 'Turn on' }))
    const recovery = within(await card.findByRole('region', { name: 'Recovery codes' }))
    expect(recovery.getAllByRole('listitem').map((li) => li.textContent)).toEqual(CODES)
    expect(await card.findByText('Two-factor login is on')).toBeInTheDocument()
    expect(card.getByText('10 recovery codes left')).toBeInTheDocument()
    expect(card.queryByLabelText('Secret')).not.toBeInTheDocument()
    await userEvent.click(recovery.getByRole('button', { name: 'I have saved them' }))
    expect(card.queryByRole('region', { name: 'Recovery codes' })).not.toBeInTheDocument()

    await userEvent.type(card.getByLabelText('Code from the app or a recovery code'), CODES[0] ?? '')
    await userEvent.click(card.getByRole('button', { name: 'Turn off' }))
    expect(await card.findByText('Two-factor login is off')).toBeInTheDocument()
  })

  it('lists the sessions and revokes another one', async () => {
    const { fetchMock } = securityServer()
    storeSession()
    renderApp('/settings')
    const list = within(await screen.findByRole('list', { name: 'Sessions' }))
    expect(await list.findByText('Phone/2.0')).toBeInTheDocument()
    expect(list.getByText('This session')).toBeInTheDocument()
    expect(list.queryByRole('button', { name: 'Revoke Laptop/1.0' })).not.toBeInTheDocument()
    await userEvent.click(list.getByRole('button', { name: 'Revoke Phone/2.0' }))
    await waitFor(() => expect(list.queryByText('Phone/2.0')).not.toBeInTheDocument())
    expect(
      fetchMock.mock.calls.some(
        ([url, init]) => url === '/api/auth/sessions/2/' && init?.method === 'DELETE',
      ),
    ).toBe(true)
  })

  it('changes the password with the current one, and shows a wrong one on its field', async () => {
    const { fetchMock } = securityServer()
    storeSession()
    renderApp('/settings')
    const card = within(await screen.findByRole('region', { name: 'Password' }))
    await userEvent.type(card.getByLabelText('Current password'), 'wrong-password')
    await userEvent.type(card.getByLabelText('New password'), 'brand-new-pass')
    await userEvent.type(card.getByLabelText('Repeat the new password'), 'brand-new-pass')
    await userEvent.click(card.getByRole('button', { name: 'Change password' }))
    expect(await card.findByText('The current password is wrong.')).toBeInTheDocument()

    await userEvent.clear(card.getByLabelText('Current password'))
    await userEvent.type(card.getByLabelText('Current password'), 'old-password')
    await userEvent.click(card.getByRole('button', { name: 'Change password' }))
    await waitFor(() => expect(card.getByLabelText('Current password')).toHaveValue(''))
    const sent = fetchMock.mock.calls
      .filter(([url]) => url === '/api/auth/password/')
      .map(([, init]) => sentJson(init))
    expect(sent.at(-1)).toEqual({ current_password: 'old-password', new_password: 'brand-new-pass' })
  })

  it('refuses a short or mismatched new password without a request', async () => {
    const { fetchMock } = securityServer()
    storeSession()
    renderApp('/settings')
    const card = within(await screen.findByRole('region', { name: 'Password' }))
    await userEvent.type(card.getByLabelText('Current password'), 'old-password')
    await userEvent.type(card.getByLabelText('New password'), 'short')
    await userEvent.type(card.getByLabelText('Repeat the new password'), 'other')
    await userEvent.click(card.getByRole('button', { name: 'Change password' }))
    expect(await card.findByText('At least 8 characters')).toBeInTheDocument()
    expect(card.getByText('The passwords differ')).toBeInTheDocument()
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/auth/password/')).toBe(false)
  })
})
