import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { ApiKey } from '@/types/api'
import { admin, apiKeyRecord, storeSession } from '@/testing/fixtures'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'

type Reply = { status: number; body?: unknown }

/** A keys server keeping its list in memory; `override` answers a route instead. */
function keysServer(initial: ApiKey[], override: Record<string, () => Reply | Promise<Reply>> = {}) {
  let keys = [...initial]
  let nextId = 100
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/api-keys/': () => ({ status: 200, body: keys }),
    'POST /api/api-keys/': ({ body }) => {
      const { is_demo, exchange = 'bybit' } = body as Pick<ApiKey, 'is_demo'> &
        Partial<Pick<ApiKey, 'exchange'>>
      const record = apiKeyRecord({ id: nextId++, is_demo, exchange, created_at: '2026-11-22T05:00:00Z' })
      keys = [record, ...keys]
      return { status: 201, body: record }
    },
    ...Object.fromEntries(
      initial.flatMap((key) => [
        [
          `DELETE /api/api-keys/${key.id}/`,
          () => {
            keys = keys.filter((k) => k.id !== key.id)
            return { status: 204 }
          },
        ],
        [
          `POST /api/api-keys/${key.id}/set_active/`,
          () => {
            keys = keys.map((k) => ({ ...k, is_active: k.id === key.id }))
            return { status: 200, body: keys.find((k) => k.id === key.id) }
          },
        ],
        [
          `POST /api/api-keys/${key.id}/deactivate/`,
          () => {
            keys = keys.map((k) => (k.id === key.id ? { ...k, is_active: false } : k))
            return { status: 200, body: keys.find((k) => k.id === key.id) }
          },
        ],
      ]),
    ),
    ...override,
  })
  const calls = (method: string, url: string) =>
    fetchMock.mock.calls.filter(([u, init]) => u === url && (init?.method ?? 'GET') === method)
  return { fetchMock, calls }
}

async function openKeys() {
  storeSession()
  renderApp('/api-keys')
  return screen.findByRole('button', { name: 'Add API Key' })
}

function rows() {
  return within(screen.getByRole('list', { name: 'Existing API Keys' })).getAllByRole('listitem')
}

function row(index: number): HTMLElement {
  const found = rows()[index]
  if (!found) throw new Error(`no row ${index}`)
  return found
}

/** The open delete confirmation. */
function deleteDialog() {
  return within(screen.getByRole('alertdialog', { name: 'Delete this API key?' }))
}

describe('API keys page', () => {
  it('has the form of the spec: masked key and secret, mode Demo by default; Exchange Bybit by default', async () => {
    keysServer([])
    await openKeys()
    expect(screen.getByRole('heading', { name: 'Add New API Key' })).toBeInTheDocument()
    expect(screen.getByLabelText('API Key')).toHaveAttribute('type', 'password')
    expect(screen.getByLabelText('API Secret')).toHaveAttribute('type', 'password')
    const mode = screen.getByLabelText('Mode')
    expect(mode).toHaveDisplayValue('Demo')
    expect(
      within(mode)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Demo', 'Real'])
    const exchange = screen.getByLabelText('Exchange')
    expect(exchange).toHaveDisplayValue('Bybit')
    expect(
      within(exchange)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Bybit', 'Paper'])
    expect(await screen.findByText('No API keys found')).toBeInTheDocument()
  })

  it.each([
    ['both empty', '', ''],
    ['no secret', 'abc', ''],
    ['no key', '', 'shh'],
    ['only spaces', '   ', '  '],
  ])('%s: toast "Please fill in all fields" and no request', async (_case, key, secret) => {
    const { calls } = keysServer([])
    await openKeys()
    if (key) await userEvent.type(screen.getByLabelText('API Key'), key)
    if (secret) await userEvent.type(screen.getByLabelText('API Secret'), secret)
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(await screen.findByText('Please fill in all fields')).toBeInTheDocument()
    expect(calls('POST', '/api/api-keys/')).toHaveLength(0)
  })

  it('adds a key: sends it once, toasts, resets the form to Demo and refetches the list', async () => {
    const { calls } = keysServer([])
    await openKeys()
    await screen.findByText('No API keys found')
    await userEvent.type(screen.getByLabelText('API Key'), '  my-key  ')
    await userEvent.type(screen.getByLabelText('API Secret'), 'my-secret')
    await userEvent.selectOptions(screen.getByLabelText('Mode'), 'Real')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))

    expect(await screen.findByText('API key added successfully')).toBeInTheDocument()
    const posts = calls('POST', '/api/api-keys/')
    expect(posts).toHaveLength(1)
    expect(sentJson(posts[0]?.[1])).toEqual({
      key: 'my-key',
      secret: 'my-secret',
      is_demo: false,
      exchange: 'bybit',
    })
    expect(screen.getByLabelText('API Key')).toHaveValue('')
    expect(screen.getByLabelText('API Secret')).toHaveValue('')
    expect(screen.getByLabelText('Mode')).toHaveDisplayValue('Demo')
    await waitFor(() => {
      expect(rows()).toHaveLength(1)
    })
    expect(calls('GET', '/api/api-keys/')).toHaveLength(2)
    expect(rows()[0]).toHaveTextContent('Real')
    expect(document.body).not.toHaveTextContent('my-secret')
    expect(document.body).not.toHaveTextContent('my-key')
  })

  it('sends the chosen Exchange in the create payload, then resets it to Bybit', async () => {
    const { calls } = keysServer([])
    await openKeys()
    await screen.findByText('No API keys found')
    await userEvent.type(screen.getByLabelText('API Key'), 'paper-key')
    await userEvent.type(screen.getByLabelText('API Secret'), 'paper-secret')
    await userEvent.selectOptions(screen.getByLabelText('Exchange'), 'Paper')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))

    expect(await screen.findByText('API key added successfully')).toBeInTheDocument()
    const posts = calls('POST', '/api/api-keys/')
    expect(posts).toHaveLength(1)
    expect(sentJson(posts[0]?.[1])).toEqual({
      key: 'paper-key',
      secret: 'paper-secret',
      is_demo: true,
      exchange: 'paper',
    })
    expect(screen.getByLabelText('Exchange')).toHaveDisplayValue('Bybit')
    await waitFor(() => {
      expect(rows()).toHaveLength(1)
    })
    expect(row(0)).toHaveTextContent('Paper')
  })

  it('reads "Adding..." while the key is sent', async () => {
    let answer: (reply: Reply) => void = () => undefined
    keysServer([], { 'POST /api/api-keys/': () => new Promise<Reply>((resolve) => (answer = resolve)) })
    await openKeys()
    await userEvent.type(screen.getByLabelText('API Key'), 'k')
    await userEvent.type(screen.getByLabelText('API Secret'), 's')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(await screen.findByRole('button', { name: 'Adding...' })).toBeDisabled()
    answer({ status: 201, body: apiKeyRecord() })
    expect(await screen.findByRole('button', { name: 'Add API Key' })).toBeEnabled()
  })

  it('"Failed to add API key" with the server\'s sentence; the form keeps the values', async () => {
    keysServer([], {
      'POST /api/api-keys/': () => ({
        status: 400,
        body: {
          error: 'Invalid input. key: At most 256 characters.',
          fields: { key: ['At most 256 characters.'] },
        },
      }),
    })
    await openKeys()
    await userEvent.type(screen.getByLabelText('API Key'), 'k')
    await userEvent.type(screen.getByLabelText('API Secret'), 's')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(await screen.findByText('Failed to add API key')).toBeInTheDocument()
    expect(screen.getByText('Invalid input. key: At most 256 characters.')).toBeInTheDocument()
    expect(screen.getByLabelText('API Key')).toHaveValue('k')
  })

  it('lists each key: exchange, mode, state, "Added" date and the masked key; the active one highlighted', async () => {
    keysServer([
      apiKeyRecord({ id: 2, is_demo: false, is_active: true, created_at: '2026-11-22T04:30:00Z' }),
      apiKeyRecord({ id: 1, is_demo: true, is_active: false, created_at: '2026-11-21T10:00:00Z' }),
      apiKeyRecord({ id: 3, exchange: 'paper', is_demo: false, created_at: '2026-11-20T10:00:00Z' }),
    ])
    await openKeys()
    await waitFor(() => {
      expect(rows()).toHaveLength(3)
    })
    const [active, inactive, paper] = rows()
    if (!active || !inactive || !paper) throw new Error('three rows expected')
    expect(active).toHaveTextContent('Bybit')
    expect(active).toHaveTextContent('Real')
    expect(active).toHaveTextContent('Active')
    expect(active).toHaveTextContent(/Added .*2026/)
    expect(active).toHaveTextContent('********')
    expect(active).toHaveAttribute('data-active', 'true')
    expect(within(active).queryByRole('button', { name: 'Set Active' })).not.toBeInTheDocument()
    expect(within(active).getByRole('button', { name: 'Deactivate' })).toBeInTheDocument()
    expect(within(active).getByRole('button', { name: 'Delete' })).toBeInTheDocument()

    expect(inactive).toHaveTextContent('Bybit')
    expect(inactive).toHaveTextContent('Demo')
    expect(inactive).toHaveTextContent('Inactive')
    expect(inactive).toHaveAttribute('data-active', 'false')
    expect(within(inactive).getByRole('button', { name: 'Set Active' })).toBeInTheDocument()
    expect(within(inactive).queryByRole('button', { name: 'Deactivate' })).not.toBeInTheDocument()

    // A paper key shows its exchange and, as every row (spec section 2), its mode.
    expect(paper).toHaveTextContent('Paper')
    expect(paper).not.toHaveTextContent('Bybit')
    expect(paper).toHaveTextContent('Real')
    expect(paper).not.toHaveTextContent('Demo')
  })

  it('Deactivate calls the endpoint on the active key, toasts and refetches', async () => {
    const { calls } = keysServer([
      apiKeyRecord({ id: 2, is_active: true }),
      apiKeyRecord({ id: 1, is_active: false }),
    ])
    await openKeys()
    await waitFor(() => {
      expect(rows()).toHaveLength(2)
    })
    await userEvent.click(within(row(0)).getByRole('button', { name: 'Deactivate' }))
    expect(
      await screen.findByText('API key deactivated: the bot now trades on your paper account'),
    ).toBeInTheDocument()
    const posts = calls('POST', '/api/api-keys/2/deactivate/')
    expect(posts).toHaveLength(1)
    expect(posts[0]?.[1]?.body).toBeUndefined()
    await waitFor(() => {
      expect(rows()[0]).toHaveAttribute('data-active', 'false')
    })
    expect(screen.queryByRole('button', { name: 'Deactivate' })).not.toBeInTheDocument()
  })

  it("Deactivate shows the server's sentence when it is refused", async () => {
    keysServer([apiKeyRecord({ id: 2, is_active: true })], {
      'POST /api/api-keys/2/deactivate/': () => ({
        status: 409,
        body: { error: 'Close your open trades before leaving this key.' },
      }),
    })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Deactivate' }))
    expect(await screen.findByText('Close your open trades before leaving this key.')).toBeInTheDocument()
    expect(screen.getByText('Failed to deactivate API key')).toBeInTheDocument()
    expect(row(0)).toHaveAttribute('data-active', 'true')
  })

  it('"Failed to deactivate API key" without a sentence', async () => {
    keysServer([apiKeyRecord({ id: 2, is_active: true })], {
      'POST /api/api-keys/2/deactivate/': () => ({ status: 500 }),
    })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Deactivate' }))
    expect(await screen.findByText('Failed to deactivate API key')).toBeInTheDocument()
  })

  it('sets a key active, toasts and refetches', async () => {
    const { calls } = keysServer([
      apiKeyRecord({ id: 2, is_active: true }),
      apiKeyRecord({ id: 1, is_active: false }),
    ])
    await openKeys()
    await waitFor(() => {
      expect(rows()).toHaveLength(2)
    })
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Set Active' }))
    expect(await screen.findByText('API key set as active')).toBeInTheDocument()
    expect(calls('POST', '/api/api-keys/1/set_active/')).toHaveLength(1)
    await waitFor(() => {
      expect(rows()[1]).toHaveAttribute('data-active', 'true')
    })
    expect(rows()[0]).toHaveAttribute('data-active', 'false')
  })

  it('shows the server\'s sentence first, then "Failed to set active API key", when Set Active fails', async () => {
    keysServer([apiKeyRecord({ id: 1 })], {
      'POST /api/api-keys/1/set_active/': () => ({
        status: 409,
        body: { error: 'Stop the bot before deleting or switching the active API key.' },
      }),
    })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Set Active' }))
    expect(
      await screen.findByText('Stop the bot before deleting or switching the active API key.'),
    ).toBeInTheDocument()
    expect(await screen.findByText('Failed to set active API key')).toBeInTheDocument()
  })

  it("shows each key's permissions and IP restriction as the exchange reported them", async () => {
    keysServer([
      apiKeyRecord({
        id: 4,
        permissions: { ContractTrade: ['Order', 'Position'], Spot: ['SpotTrade'], Wallet: [] },
        ips: ['*'],
        ip_restricted: false,
        permissions_checked_at: '2026-11-22T06:00:00Z',
      }),
      apiKeyRecord({
        id: 3,
        permissions: { ContractTrade: ['Order', 'Position'], Wallet: ['Withdraw'] },
        ips: ['203.0.113.7', '198.51.100.2'],
        ip_restricted: true,
        permissions_checked_at: '2026-11-22T06:00:00Z',
      }),
      apiKeyRecord({ id: 2 }),
      apiKeyRecord({ id: 1, exchange: 'paper' }),
    ])
    await openKeys()
    await waitFor(() => {
      expect(rows()).toHaveLength(4)
    })
    const [open, bound, unchecked, paper] = rows()
    if (!open || !bound || !unchecked || !paper) throw new Error('four rows expected')
    expect(open).toHaveTextContent('Permissions: ContractTrade: Order, Position · Spot: SpotTrade')
    expect(open).not.toHaveTextContent('Wallet')
    expect(open).toHaveTextContent('No IP restriction')
    expect(
      within(open)
        .getByText(/ContractTrade/)
        .closest('p'),
    ).toHaveAttribute('title', expect.stringMatching(/^Checked .*2026/))

    expect(bound).toHaveTextContent('Permissions: ContractTrade: Order, Position · Wallet: Withdraw')
    expect(bound).toHaveTextContent('IP: 203.0.113.7, 198.51.100.2')
    expect(bound).not.toHaveTextContent('No IP restriction')

    expect(unchecked).toHaveTextContent('Permissions: Not checked yet: read from Bybit at Set Active')
    expect(unchecked).not.toHaveTextContent('No IP restriction')
    expect(paper).toHaveTextContent('Permissions: Not applicable (paper key)')
    expect(paper).not.toHaveTextContent('No IP restriction')
  })

  it("shows the server's sentence when Set Active refuses a key that can withdraw; the key stays inactive", async () => {
    const refusal =
      'This API key can withdraw or transfer funds. Remove the Withdraw permission (Wallet) from this key on Bybit, then try again.'
    keysServer([apiKeyRecord({ id: 1 })], {
      'POST /api/api-keys/1/set_active/': () => ({ status: 400, body: { error: refusal } }),
    })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Set Active' }))
    expect(await screen.findByText(refusal)).toBeInTheDocument()
    expect(screen.queryByText('API key set as active')).not.toBeInTheDocument()
    expect(row(0)).toHaveAttribute('data-active', 'false')
  })

  it('warns after Set Active when the server says the key has no IP allow-list, and only then', async () => {
    const warning =
      "This key has no IP allow-list: anyone who steals it can trade from anywhere. Bind it to this server's IP on Bybit."
    keysServer([apiKeyRecord({ id: 2 }), apiKeyRecord({ id: 1 })], {
      'POST /api/api-keys/2/set_active/': () => ({
        status: 200,
        body: { ...apiKeyRecord({ id: 2, is_active: true }), warning },
      }),
      'POST /api/api-keys/1/set_active/': () => ({
        status: 200,
        body: { ...apiKeyRecord({ id: 1, is_active: true }), warning: null },
      }),
    })
    await openKeys()
    await waitFor(() => {
      expect(rows()).toHaveLength(2)
    })
    await userEvent.click(within(row(1)).getByRole('button', { name: 'Set Active' }))
    expect(await screen.findByText('API key set as active')).toBeInTheDocument()
    expect(screen.queryByText('This key has no IP allow-list')).not.toBeInTheDocument()

    await userEvent.click(within(row(0)).getByRole('button', { name: 'Set Active' }))
    expect(await screen.findByText('This key has no IP allow-list')).toBeInTheDocument()
    expect(screen.getByText(warning)).toBeInTheDocument()
  })

  it('"Failed to set active API key" without a sentence', async () => {
    keysServer([apiKeyRecord({ id: 1 })], { 'POST /api/api-keys/1/set_active/': () => ({ status: 500 }) })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Set Active' }))
    expect(await screen.findByText('Failed to set active API key')).toBeInTheDocument()
  })

  it('Delete asks first, and Cancel sends nothing', async () => {
    const { calls } = keysServer([apiKeyRecord({ id: 1, is_demo: false })])
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Delete' }))
    const dialog = deleteDialog()
    expect(
      dialog.getByText(/^The Bybit Real key added .*2026.* is removed from Signal Desk\./),
    ).toBeInTheDocument()
    expect(calls('DELETE', '/api/api-keys/1/')).toHaveLength(0)

    await userEvent.click(dialog.getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('DELETE', '/api/api-keys/1/')).toHaveLength(0)
    expect(rows()).toHaveLength(1)

    // Escape cancels too.
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }))
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('DELETE', '/api/api-keys/1/')).toHaveLength(0)
  })

  it('deletes a key once confirmed, toasts and refetches', async () => {
    const { calls } = keysServer([apiKeyRecord({ id: 1 })])
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Delete' }))
    await userEvent.click(deleteDialog().getByRole('button', { name: 'Delete key' }))
    expect(await screen.findByText('API key deleted successfully')).toBeInTheDocument()
    expect(calls('DELETE', '/api/api-keys/1/')).toHaveLength(1)
    expect(await screen.findByText('No API keys found')).toBeInTheDocument()
  })

  it('"Failed to delete API key" with the server\'s sentence', async () => {
    keysServer([apiKeyRecord({ id: 1, is_active: true })], {
      'DELETE /api/api-keys/1/': () => ({
        status: 409,
        body: { error: 'Stop the bot before deleting or switching the active API key.' },
      }),
    })
    await openKeys()
    await userEvent.click(await screen.findByRole('button', { name: 'Delete' }))
    await userEvent.click(deleteDialog().getByRole('button', { name: 'Delete key' }))
    expect(await screen.findByText('Failed to delete API key')).toBeInTheDocument()
    expect(
      screen.getByText('Stop the bot before deleting or switching the active API key.'),
    ).toBeInTheDocument()
  })

  it('"Failed to load API keys" when the list cannot be read', async () => {
    keysServer([], { 'GET /api/api-keys/': () => ({ status: 404, body: { error: 'Not found' } }) })
    await openKeys()
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load API keys')
  })
})
