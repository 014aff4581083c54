import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { Toaster } from '@/components/ui/toaster'
import { createQueryClient } from '@/lib/query-client'
import { ThemeProvider } from '@/lib/theme-provider'
import type { WebhookStatus } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'
import { WebhookCard } from '@/features/settings/components/webhook-card'

type Reply = { status: number; body?: unknown }

const CREATED_AT = '2026-11-22T04:30:00Z'

/**
 * A webhook server keeping its state in memory: each POST makes the next secret (`secret-1`,
 * `secret-2`, …); `override` answers a route instead.
 */
function webhookServer(configured: boolean, override: Record<string, () => Reply | Promise<Reply>> = {}) {
  let status: WebhookStatus = configured
    ? { configured: true, created_at: CREATED_AT }
    : { configured: false, created_at: null }
  let serial = 0
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
    'GET /api/webhook/': () => ({ status: 200, body: status }),
    'POST /api/webhook/': () => {
      serial += 1
      status = { configured: true, created_at: '2026-11-22T05:00:00Z' }
      return { status: 201, body: { path: `/api/webhook/secret-${serial}/`, created_at: status.created_at } }
    },
    'DELETE /api/webhook/': () => {
      if (!status.configured) return { status: 404, body: { error: 'Not found' } }
      status = { configured: false, created_at: null }
      return { status: 204 }
    },
    ...override,
  })
  const calls = (method: string) =>
    fetchMock.mock.calls.filter(
      ([url, init]) => url === '/api/webhook/' && (init?.method ?? 'GET') === method,
    )
  return { calls }
}

async function openWebhookCard() {
  storeSession()
  renderApp('/settings')
  const card = await screen.findByRole('region', { name: 'TradingView webhook' })
  return within(card)
}

function urlFor(secret: string) {
  return `${window.location.origin}/api/webhook/${secret}/`
}

describe('TradingView webhook card', () => {
  it('says that no URL exists yet, offers to generate one and shows the alert message format', async () => {
    webhookServer(false)
    const card = await openWebhookCard()
    expect(await card.findByText('No webhook URL yet.')).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Generate webhook URL' })).toBeEnabled()
    expect(card.queryByRole('button', { name: 'Regenerate URL' })).not.toBeInTheDocument()
    expect(card.queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument()
    expect(card.queryByLabelText('Webhook URL')).not.toBeInTheDocument()
    expect(
      card.getByText('{"symbol": "{{ticker}}", "signal": "STRONG_BUY", "time": "{{timenow}}"}'),
    ).toBeInTheDocument()
    expect(card.getByText(/more than 5 minutes ago .* is refused/)).toBeInTheDocument()
    expect(card.getByText(/only while signal fetching is active/)).toBeInTheDocument()
    // The settings form is still there, unchanged.
    expect(screen.getByRole('button', { name: 'Сохранить настройки' })).toBeInTheDocument()
  })

  it('shows since when a URL exists, in local time, but never the URL itself', async () => {
    webhookServer(true)
    const card = await openWebhookCard()
    // 04:30 UTC in the settings zone (Europe/Moscow, UTC+3), labelled with it.
    expect(await card.findByText('Created Nov 22, 2026, 07:30 (Europe/Moscow)')).toBeInTheDocument()
    expect(card.getByText('A webhook URL is set up.')).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Regenerate URL' })).toBeEnabled()
    expect(card.getByRole('button', { name: 'Remove' })).toBeEnabled()
    expect(card.queryByRole('button', { name: 'Generate webhook URL' })).not.toBeInTheDocument()
    expect(card.queryByLabelText('Webhook URL')).not.toBeInTheDocument()
  })

  it('generating shows the full URL with the page origin, once, read-only', async () => {
    const { calls } = webhookServer(false)
    const card = await openWebhookCard()
    await userEvent.click(await card.findByRole('button', { name: 'Generate webhook URL' }))

    expect(await screen.findByText('Webhook URL created')).toBeInTheDocument()
    const url = card.getByLabelText('Webhook URL')
    expect(url).toHaveValue(urlFor('secret-1'))
    expect(url).toHaveAttribute('readonly')
    expect(url).toHaveAccessibleDescription(/shown only once: paste it into .* TradingView alert now/)
    expect(calls('POST')).toHaveLength(1)
    // No confirmation for a first URL; the card now offers to regenerate or remove it.
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(await card.findByText('A webhook URL is set up.')).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Regenerate URL' })).toBeInTheDocument()
  })

  it('regenerating asks for confirmation first, since the old URL stops working', async () => {
    const { calls } = webhookServer(true)
    const card = await openWebhookCard()

    await userEvent.click(await card.findByRole('button', { name: 'Regenerate URL' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Regenerate the webhook URL?' })
    expect(dialog).toHaveAccessibleDescription(/current URL stops working at once/)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('POST')).toHaveLength(0)

    await userEvent.click(card.getByRole('button', { name: 'Regenerate URL' }))
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Regenerate URL' }),
    )
    expect(await screen.findByText('Webhook URL regenerated')).toBeInTheDocument()
    expect(card.getByLabelText('Webhook URL')).toHaveValue(urlFor('secret-1'))
    expect(calls('POST')).toHaveLength(1)

    // A second regeneration replaces the URL shown.
    await userEvent.click(card.getByRole('button', { name: 'Regenerate URL' }))
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Regenerate URL' }),
    )
    await waitFor(() => {
      expect(card.getByLabelText('Webhook URL')).toHaveValue(urlFor('secret-2'))
    })
  })

  it('Copy puts the URL on the clipboard and toasts "Webhook URL copied"', async () => {
    webhookServer(false)
    const user = userEvent.setup()
    const card = await openWebhookCard()
    await user.click(await card.findByRole('button', { name: 'Generate webhook URL' }))
    await user.click(await card.findByRole('button', { name: 'Copy' }))
    expect(await screen.findByText('Webhook URL copied')).toBeInTheDocument()
    expect(await navigator.clipboard.readText()).toBe(urlFor('secret-1'))
  })

  it('Remove asks for confirmation, deletes the URL and says none exists', async () => {
    const { calls } = webhookServer(false)
    const card = await openWebhookCard()
    await userEvent.click(await card.findByRole('button', { name: 'Generate webhook URL' }))
    await card.findByLabelText('Webhook URL')

    await userEvent.click(card.getByRole('button', { name: 'Remove' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove the webhook URL?' })
    expect(calls('DELETE')).toHaveLength(0)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove' }))

    expect(await screen.findByText('Webhook URL removed')).toBeInTheDocument()
    expect(calls('DELETE')).toHaveLength(1)
    expect(await card.findByText('No webhook URL yet.')).toBeInTheDocument()
    expect(card.queryByLabelText('Webhook URL')).not.toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Generate webhook URL' })).toBeInTheDocument()
  })

  it("toasts the server's sentence when generating or removing fails", async () => {
    webhookServer(true, {
      'POST /api/webhook/': () => ({ status: 429, body: { error: 'Too many requests. Try again in 30 s.' } }),
      'DELETE /api/webhook/': () => ({ status: 500 }),
    })
    const card = await openWebhookCard()
    await userEvent.click(await card.findByRole('button', { name: 'Regenerate URL' }))
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Regenerate URL' }),
    )
    expect(await screen.findByText('Failed to create webhook URL')).toBeInTheDocument()
    expect(screen.getByText('Too many requests. Try again in 30 s.')).toBeInTheDocument()
    expect(card.queryByLabelText('Webhook URL')).not.toBeInTheDocument()

    // No sentence from the server: the title alone.
    await userEvent.click(card.getByRole('button', { name: 'Remove' }))
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }),
    )
    expect(await screen.findByText('Failed to remove webhook URL')).toBeInTheDocument()
    expect(card.getByText('A webhook URL is set up.')).toBeInTheDocument()
  })

  it('keeps the new URL out of the query cache, the mutation cache and localStorage', async () => {
    webhookServer(false)
    const queryClient = createQueryClient()
    render(
      <ThemeProvider>
        <QueryClientProvider client={queryClient}>
          <WebhookCard />
          <Toaster />
        </QueryClientProvider>
      </ThemeProvider>,
    )
    await userEvent.click(await screen.findByRole('button', { name: 'Generate webhook URL' }))
    expect(await screen.findByLabelText('Webhook URL')).toHaveValue(urlFor('secret-1'))

    const states = () =>
      JSON.stringify([
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => q.state),
        queryClient
          .getMutationCache()
          .getAll()
          .map((m) => m.state),
      ])
    await waitFor(() => {
      expect(states()).not.toContain('secret-1')
    })
    // The status is cached, without the URL.
    expect(states()).toContain('"configured":true')
    const stored = Array.from({ length: localStorage.length }, (_, i) => {
      const key = localStorage.key(i) ?? ''
      return `${key}=${localStorage.getItem(key) ?? ''}`
    })
    expect(stored.join('\n')).not.toContain('secret-1')
  })
})
