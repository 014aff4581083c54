import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'
import type { NotificationChannel } from '@/types/api'

function channel(over: Partial<NotificationChannel>): NotificationChannel {
  return {
    id: 1,
    kind: 'discord',
    target: 'https://discord.com/********',
    events: ['trade_opened', 'trade_closed', 'daily_summary', 'alert_raised', 'alert_cleared'],
    has_secret: false,
    created_at: '2026-11-22T04:30:00Z',
    failures: 0,
    last_error: null,
    last_failure_at: null,
    last_success_at: null,
    ...over,
  }
}

/** A channels API keeping its list in memory. */
function channelsServer(initial: NotificationChannel[]) {
  let list = [...initial]
  let next = 100
  const posted: unknown[] = []
  const put: unknown[] = []
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
    'GET /api/webhook/': () => ({ status: 200, body: { configured: false, created_at: null } }),
    'GET /api/notification-channels/': () => ({ status: 200, body: list }),
    'POST /api/notification-channels/': ({ body }) => {
      posted.push(body)
      const input = body as { kind: string; url?: string }
      if (input.kind === 'webhook' && !input.url) {
        return {
          status: 400,
          body: {
            error: 'Invalid input. url: This field is required.',
            fields: { url: ['This field is required.'] },
          },
        }
      }
      const made = channel({
        id: next++,
        kind: input.kind,
        target: 'https://hooks.example.com/********',
        has_secret: true,
      })
      list = [...list, made]
      return { status: 201, body: { ...made, secret: 'made-by-the-server-0123456789abcdef' } }
    },
    'PUT /api/notification-channels/2/': ({ body }) => {
      put.push(body)
      list = list.map((c) => (c.id === 2 ? { ...c, target: 'https://other.example.com/********' } : c))
      return { status: 200, body: list.find((c) => c.id === 2) }
    },
    'DELETE /api/notification-channels/1/': () => {
      list = list.filter((c) => c.id !== 1)
      return { status: 204 }
    },
    'POST /api/notification-channels/2/test/': () => {
      list = list.map((c) =>
        c.id === 2 ? { ...c, failures: c.failures + 1, last_error: 'the webhook answered 500' } : c,
      )
      return { status: 200, body: { delivered: false, error: 'the webhook answered 500' } }
    },
  })
  return { posted, put, fetchMock }
}

async function openChannels() {
  storeSession()
  renderApp('/settings')
  const card = await screen.findByRole('region', { name: 'Channels' })
  return within(card)
}

describe('Channels section', () => {
  it('lists channels masked, with their failures', async () => {
    channelsServer([
      channel({ id: 1 }),
      channel({
        id: 2,
        kind: 'webhook',
        target: 'https://hooks.example.com/********',
        failures: 3,
        last_error: 'the webhook answered 503',
        last_failure_at: '2026-11-22T05:00:00Z',
      }),
    ])
    const card = await openChannels()
    const discord = await card.findByRole('listitem', { name: /Discord/ })
    expect(discord).toHaveTextContent('https://discord.com/********')
    expect(discord).toHaveTextContent('Working')
    const webhook = card.getByRole('listitem', { name: /Webhook/ })
    expect(webhook).toHaveTextContent(/3 failed deliveries in a row/)
    expect(webhook).toHaveTextContent('Last error: the webhook answered 503')
  })

  it('shows an empty state, adds a webhook and shows the secret the server made once', async () => {
    const { posted } = channelsServer([])
    const card = await openChannels()
    expect(await card.findByText('No channels yet')).toBeInTheDocument()
    const user = userEvent.setup()
    await user.selectOptions(card.getByLabelText('Kind'), 'webhook')
    await user.type(card.getByLabelText('URL'), 'https://hooks.example.com/in')
    await user.click(card.getByRole('button', { name: 'Add channel' }))
    await waitFor(() => {
      expect(posted).toEqual([{ kind: 'webhook', url: 'https://hooks.example.com/in' }])
    })
    expect(await card.findByText('made-by-the-server-0123456789abcdef')).toBeInTheDocument()
    expect(await card.findByRole('listitem', { name: /Webhook/ })).toBeInTheDocument()
  })

  it('says why a channel was refused', async () => {
    channelsServer([])
    const card = await openChannels()
    const user = userEvent.setup()
    await user.selectOptions(await card.findByLabelText('Kind'), 'webhook')
    await user.click(card.getByRole('button', { name: 'Add channel' }))
    expect(await screen.findByText('Failed to add the channel')).toBeInTheDocument()
    expect(await screen.findByText(/url: This field is required/)).toBeInTheDocument()
  })

  it('tests a channel, shows the failure, and deletes another', async () => {
    channelsServer([
      channel({ id: 1 }),
      channel({ id: 2, kind: 'webhook', target: 'https://hooks.example.com/********' }),
    ])
    const card = await openChannels()
    const user = userEvent.setup()
    const webhook = await card.findByRole('listitem', { name: /Webhook/ })
    await user.click(within(webhook).getByRole('button', { name: 'Test' }))
    expect(await screen.findByText('The test message did not go through')).toBeInTheDocument()
    await waitFor(() =>
      expect(card.getByRole('listitem', { name: /Webhook/ })).toHaveTextContent('1 failed delivery in a row'),
    )

    const discord = card.getByRole('listitem', { name: /Discord/ })
    await user.click(within(discord).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(card.queryByRole('listitem', { name: /Discord/ })).toBeNull()
    })
  })

  it('edits a channel: an empty secret keeps the stored one, and the secret is never filled in', async () => {
    const { put } = channelsServer([
      channel({ id: 2, kind: 'webhook', target: 'https://hooks.example.com/********', has_secret: true }),
    ])
    const card = await openChannels()
    const user = userEvent.setup()
    const row = await card.findByRole('listitem', { name: /Webhook/ })
    const edit = within(row).getByRole('button', { name: 'Edit' })
    expect(edit).toHaveAttribute('aria-expanded', 'false')
    await user.click(edit)
    expect(edit).toHaveAttribute('aria-expanded', 'true')
    const form = within(row).getByRole('form', { name: 'Edit the Webhook channel' })
    // The first field takes the focus.
    expect(within(form).getByLabelText('URL')).toHaveFocus()
    expect(within(form).getByLabelText('URL')).toHaveValue('')
    expect(within(form).getByLabelText('Signing secret')).toHaveValue('')
    expect(within(form).getByText('Leave empty to keep the current secret.')).toBeInTheDocument()
    await user.type(within(form).getByLabelText('URL'), 'https://other.example.com/in')
    await user.click(within(form).getByRole('button', { name: 'Save' }))
    await waitFor(() => {
      expect(put).toEqual([{ url: 'https://other.example.com/in' }])
    })
    expect(await screen.findByText('Channel saved')).toBeInTheDocument()
    await waitFor(() => {
      expect(card.getByRole('listitem', { name: /Webhook/ })).toHaveTextContent(
        'https://other.example.com/********',
      )
    })
    expect(card.queryByRole('form', { name: 'Edit the Webhook channel' })).toBeNull()
    // The focus goes back to the button that opened the form.
    expect(
      within(card.getByRole('listitem', { name: /Webhook/ })).getByRole('button', { name: 'Edit' }),
    ).toHaveFocus()
  })
})
