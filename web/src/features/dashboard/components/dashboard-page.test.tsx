import { act, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { BotSettings, Signal } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { FakeWebSocket } from '@/testing/fake-web-socket'
import { liveSend, openLive, signalRecord } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'

const seven = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'BNBUSDT'].map((symbol) =>
  signalRecord(symbol, symbol === 'BTCUSDT' ? 'STRONG_BUY' : 'NEUTRAL'),
)

function dashboardServer({
  signals = seven,
  record = settingsRecord(),
}: { signals?: Signal[]; record?: BotSettings } = {}) {
  let stored = record
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/signals/': () => ({ status: 200, body: signals }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [stored] }),
  })
  const settingsCalls = () => fetchMock.mock.calls.filter(([url]) => url === '/api/bot-settings/').length
  return {
    settingsCalls,
    setRecord: (next: BotSettings) => {
      stored = next
    },
  }
}

async function openDashboard() {
  storeSession()
  renderApp('/dashboard')
  await screen.findByRole('heading', { level: 1, name: 'Dashboard' })
}

/** The symbols of the Trading Signals card, top to bottom. */
function symbols() {
  return columnTexts(screen.getByRole('region', { name: 'Trading Signals (Last 5)' }), 0)
}

describe('dashboard', () => {
  it('shows Disconnected, then Connected on open, and Disconnected again on close', async () => {
    dashboardServer()
    await openDashboard()
    expect(screen.getByText('Welcome back to your trading dashboard')).toBeInTheDocument()
    const disconnected = screen.getByText('Disconnected')
    expect(disconnected).toHaveClass('text-muted-foreground')
    expect(disconnected).not.toHaveClass('text-success')
    expect(screen.queryByText('Connected')).not.toBeInTheDocument()

    const socket = openLive()
    // Then the Open Positions card asks for the positions.
    expect(socket.sentJson()).toEqual([
      { action: 'authenticate', token: 'stored-token' },
      { action: 'get_trades' },
    ])
    const connected = screen.getByText('Connected')
    expect(connected).toHaveClass('text-success')
    expect(screen.queryByText('Disconnected')).not.toBeInTheDocument()

    liveSend({ type: 'authenticated', user: admin })
    expect(screen.getByText('Connected')).toBeInTheDocument()

    socket.drop()
    expect(await screen.findByText('Disconnected')).toBeInTheDocument()
  })

  it('opens one live connection for the whole app, kept across pages', async () => {
    dashboardServer()
    storeSession()
    const { router } = renderApp('/dashboard')
    await screen.findByRole('heading', { level: 1, name: 'Dashboard' })
    expect(FakeWebSocket.instances).toHaveLength(1)
    const socket = FakeWebSocket.latest()
    expect(socket.url).toBe(`ws://${window.location.host}/ws/dashboard/`)
    openLive()

    await act(() => router.navigate('/trading-signals'))
    await screen.findByRole('heading', { level: 1, name: 'Trading Signals' })
    expect(FakeWebSocket.instances).toHaveLength(1)
    expect(socket.closedByClient).toBeUndefined()
  })

  it('shows the Trading Signals card with 5 entries and "(Last 5)" next to Bot Status', async () => {
    dashboardServer()
    await openDashboard()
    const card = within(await screen.findByRole('region', { name: 'Trading Signals (Last 5)' }))
    await card.findByRole('cell', { name: 'BTCUSDT' })
    expect(symbols()).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'ADAUSDT'])
    expect(card.getByRole('link', { name: 'View all' })).toHaveAttribute('href', '/trading-signals')
    expect(screen.getByRole('region', { name: 'Bot Status' })).toBeInTheDocument()
  })

  it('keeps 5 entries when a signal moves to the front', async () => {
    dashboardServer()
    await openDashboard()
    const card = within(await screen.findByRole('region', { name: 'Trading Signals (Last 5)' }))
    await card.findByRole('cell', { name: 'BTCUSDT' })
    openLive()
    liveSend({ type: 'signal', ...signalRecord('BNBUSDT', 'STRONG_SELL') })
    await waitFor(() => {
      expect(symbols()).toEqual(['BNBUSDT', 'BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT'])
    })
    expect(card.getByText('STRONG_SELL')).toHaveClass('text-destructive')
  })

  it('says "No signals available" in the card for an empty list', async () => {
    dashboardServer({ signals: [] })
    await openDashboard()
    const card = within(await screen.findByRole('region', { name: 'Trading Signals (Last 5)' }))
    expect(await card.findByText('No signals available')).toBeInTheDocument()
  })

  it('a bot_status message refreshes the Bot Status card at once', async () => {
    const server = dashboardServer()
    await openDashboard()
    const card = within(screen.getByRole('region', { name: 'Bot Status' }))
    expect(await card.findByText('Stopped')).toBeInTheDocument()
    const callsBefore = server.settingsCalls()

    server.setRecord(settingsRecord({ is_bot_running: true, is_signals_fetching_active: true }))
    openLive()
    liveSend({
      type: 'bot_status',
      data: {
        status: 'running',
        is_bot_running: true,
        is_signals_fetching_active: true,
        bot_mode: 'classic',
        open_trades: 0,
        active_chains: 0,
        venue: 'paper',
        started_at: '2026-11-22T04:00:00Z',
      },
    })
    expect(await card.findByText('Running')).toBeInTheDocument()
    expect(card.getByText('Signals Active')).toBeInTheDocument()
    // Not waiting for the 5-second poll: the record is read again at once.
    await waitFor(() => {
      expect(server.settingsCalls()).toBeGreaterThan(callsBefore)
    })
  })
})
