import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { BotSettings, Signal } from '@/types/api'
import type { DashboardResponse } from '@/features/dashboard/api/get-dashboard'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { FakeWebSocket } from '@/testing/fake-web-socket'
import { liveSend, openLive, signalRecord } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'

const seven = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'ADAUSDT', 'DOGEUSDT', 'BNBUSDT'].map((symbol) =>
  signalRecord(symbol, symbol === 'BTCUSDT' ? 'STRONG_BUY' : 'NEUTRAL'),
)

const dashboardAnswer: DashboardResponse = {
  balance: { totalEquity: 10000, availableBalance: 9000.5, marginBalance: 10012.345 },
  balance_24h_ago: 8000,
  volume24h: 1010,
  volume24h_ago: 505,
  summary: { open_trades: 1, total_trades: 6, open_trades_24h_ago: 2, total_trades_24h_ago: 0 },
}

type Reply = { status: number; body: unknown }

function dashboardServer({
  signals = seven,
  record = settingsRecord(),
  dashboard = () => ({ status: 200, body: dashboardAnswer }),
}: { signals?: Signal[]; record?: BotSettings; dashboard?: () => Reply | Promise<Reply> } = {}) {
  let stored = record
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/dashboard/': dashboard,
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

/** One of the four cards: its whole text, its change line and its trend icon (if any). */
function card(name: string) {
  const group = screen.getByRole('group', { name })
  const change = within(group).getByTestId('change')
  return { text: group.textContent, change, trend: within(group).queryByRole('img') }
}

/** The Balance card's rows as "label value". */
function balanceRows() {
  const region = screen.getByRole('region', { name: 'Balance' })
  return Array.from(region.querySelectorAll('dl > div')).map(
    (row) => `${row.querySelector('dt')?.textContent ?? ''} ${row.querySelector('dd')?.textContent ?? ''}`,
  )
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

  it('a lost connection shows one banner with its time in the user zone, no polling toasts, and goes when it is back', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-27T10:05:00Z'))
    let settingsFail = false
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'GET /api/dashboard/': () => ({ status: 200, body: dashboardAnswer }),
      'GET /api/signals/': () => ({ status: 200, body: seven }),
      'GET /api/bot-settings/': () =>
        settingsFail
          ? { status: 502, body: { error: 'Bad gateway' } }
          : { status: 200, body: [settingsRecord()] },
      'GET /api/bot-settings/1/': () => ({ status: 200, body: settingsRecord() }),
    })
    await openDashboard()
    const socket = openLive()
    expect(screen.queryByTestId('connection-lost')).not.toBeInTheDocument()
    settingsFail = true
    socket.drop()
    const banner = await screen.findByTestId('connection-lost')
    // 10:05 UTC is 13:05 in Moscow, the settings' zone.
    expect(banner).toHaveTextContent('Connection lost since 13:05 (Europe/Moscow).')
    expect(banner).toHaveTextContent('may be stale')
    // The settings poll fails meanwhile: the banner says it, not a toast every 5 s.
    // The next poll and its one retry both fail (the server is down): the query is in error.
    const polls = fetchMock.mock.calls.filter(([url]) => url === '/api/bot-settings/').length
    await waitFor(
      () => {
        expect(
          fetchMock.mock.calls.filter(([url]) => url === '/api/bot-settings/').length,
        ).toBeGreaterThanOrEqual(polls + 2)
      },
      { timeout: 9000 },
    )
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)))
    expect(screen.queryByText('Failed to fetch bot settings')).not.toBeInTheDocument()
    // Retry now opens a new connection; once open the banner goes.
    await userEvent.click(within(banner).getByRole('button', { name: 'Retry now' }))
    openLive()
    await waitFor(() => {
      expect(screen.queryByTestId('connection-lost')).not.toBeInTheDocument()
    })
    vi.useRealTimers()
  }, 20_000)

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
        venue: { exchange: 'paper', environment: 'paper' },
        started_at: '2026-11-22T04:00:00Z',
        signal_worker: 'running',
        trading_worker: 'running',
      },
    })
    expect(await card.findByText('Running')).toBeInTheDocument()
    expect(card.getByText('Signals Active')).toBeInTheDocument()
    // Not waiting for the 5-second poll: the record is read again at once.
    await waitFor(() => {
      expect(server.settingsCalls()).toBeGreaterThan(callsBefore)
    })
  })

  it('shows a spinner while loading, then the four cards with their change against 24 hours ago', async () => {
    let answer: (reply: Reply) => void = () => undefined
    const pending = new Promise<Reply>((resolve) => {
      answer = resolve
    })
    dashboardServer({ dashboard: () => pending })
    await openDashboard()
    expect(screen.getByRole('status', { name: 'Loading dashboard' })).toBeInTheDocument()
    expect(screen.queryByRole('group', { name: 'Total Balance' })).not.toBeInTheDocument()
    answer({ status: 200, body: dashboardAnswer })

    await screen.findByRole('group', { name: 'Total Balance' })
    expect(screen.queryByRole('status', { name: 'Loading dashboard' })).not.toBeInTheDocument()
    // 10000 against 8000: +25 %, up and green.
    const balance = card('Total Balance')
    expect(balance.text).toBe('Total Balance10,000.00 USDT+25.0%vs 24h ago')
    expect(balance.trend).toHaveAccessibleName('Up')
    expect(balance.change).toHaveClass('text-success')
    // 1010 against 505: +100 %.
    expect(card('24h Volume').text).toBe('24h Volume1,010.00 USDT+100.0%vs 24h ago')
    // 1 against 2: -50 %, down and red.
    const open = card('Open Trades')
    expect(open.text).toBe('Open Trades1-50.0%vs 24h ago')
    expect(open.trend).toHaveAccessibleName('Down')
    expect(open.change).toHaveClass('text-destructive')
    // 6 against 0: no percent, no trend.
    const total = card('Total Trades')
    expect(total.text).toBe('Total Trades6— vs 24h ago')
    expect(total.trend).toBeNull()
    expect(total.change).not.toHaveClass('text-success')
  })

  it('shows no percent for a missing balance 24 hours ago and for a volume from zero', async () => {
    dashboardServer({
      dashboard: () => ({
        status: 200,
        body: { ...dashboardAnswer, balance_24h_ago: null, volume24h: 0, volume24h_ago: 0 },
      }),
    })
    await openDashboard()
    await screen.findByRole('group', { name: 'Total Balance' })
    expect(card('Total Balance').text).toBe('Total Balance10,000.00 USDT— vs 24h ago')
    expect(card('24h Volume').text).toBe('24h Volume0.00 USDT— vs 24h ago')
    expect(document.body.textContent).not.toMatch(/Infinity|NaN/)
  })

  it('shows the Balance card from the dashboard answer, then from each live balance message', async () => {
    dashboardServer()
    await openDashboard()
    await screen.findByRole('region', { name: 'Balance' })
    expect(balanceRows()).toEqual([
      'Equity 10,000.00 USDT',
      'Available 9,000.50 USDT',
      'Margin 10,012.35 USDT',
    ])

    openLive()
    liveSend({ type: 'balance', data: { equity: 7600, available_balance: 7000.25, margin_balance: 7650 } })
    await waitFor(() => {
      expect(balanceRows()).toEqual([
        'Equity 7,600.00 USDT',
        'Available 7,000.25 USDT',
        'Margin 7,650.00 USDT',
      ])
    })
    // The Total Balance card follows the live equity too: 7600 against 8000 is -5 %.
    expect(card('Total Balance').text).toBe('Total Balance7,600.00 USDT-5.0%vs 24h ago')
    expect(card('Total Balance').trend).toHaveAccessibleName('Down')
  })

  it('Open Trades, Total Trades and 24h Volume follow the live feed: an orders message reads them again', async () => {
    let answer = dashboardAnswer
    dashboardServer({ dashboard: () => ({ status: 200, body: answer }) })
    await openDashboard()
    await screen.findByRole('group', { name: 'Open Trades' })
    expect(card('Open Trades').text).toBe('Open Trades1-50.0%vs 24h ago')
    openLive()
    // A close: no position left, one more trade in the day's volume.
    answer = {
      ...dashboardAnswer,
      volume24h: 2020,
      summary: { ...dashboardAnswer.summary, open_trades: 0 },
    }
    liveSend({ type: 'orders', data: [] })
    await waitFor(() => {
      expect(card('Open Trades').text).toBe('Open Trades0-100.0%vs 24h ago')
    })
    expect(card('24h Volume').text).toBe('24h Volume2,020.00 USDT+300.0%vs 24h ago')
  })

  it('says "Error: {message}" when the dashboard cannot be read', async () => {
    dashboardServer({ dashboard: () => ({ status: 400, body: { error: 'Dashboard unavailable' } }) })
    await openDashboard()
    expect(await screen.findByText('Error: Dashboard unavailable')).toBeInTheDocument()
    expect(screen.queryByRole('group', { name: 'Total Balance' })).not.toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Balance' })).not.toBeInTheDocument()
    // The rest of the dashboard still works.
    expect(screen.getByRole('region', { name: 'Bot Status' })).toBeInTheDocument()
  })

  /** Whether `first` comes before `second` in the page's order (what a screen shows top down). */
  function precedes(first: Element, second: Element) {
    return Boolean(first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING)
  }

  function twoColumns(matches: boolean) {
    vi.spyOn(window, 'matchMedia').mockImplementation(
      (query: string) =>
        ({
          matches: query === '(min-width: 1024px)' ? matches : false,
          media: query,
          addEventListener: () => undefined,
          removeEventListener: () => undefined,
        }) as unknown as MediaQueryList,
    )
  }

  it('in one column (phones) Bot Status comes first, above the four cards', async () => {
    twoColumns(false)
    dashboardServer()
    await openDashboard()
    const cards = await screen.findByRole('group', { name: 'Total Balance' })
    const status = screen.getByRole('region', { name: 'Bot Status' })
    expect(screen.getAllByRole('region', { name: 'Bot Status' })).toHaveLength(1)
    expect(precedes(status, cards)).toBe(true)
    expect(precedes(status, screen.getByRole('region', { name: /Trading Signals/ }))).toBe(true)
    vi.restoreAllMocks()
  })

  it('in two columns (desktop) Bot Status keeps its place beside the signals, below the cards', async () => {
    twoColumns(true)
    dashboardServer()
    await openDashboard()
    const cards = await screen.findByRole('group', { name: 'Total Balance' })
    const status = screen.getByRole('region', { name: 'Bot Status' })
    expect(screen.getAllByRole('region', { name: 'Bot Status' })).toHaveLength(1)
    expect(precedes(cards, status)).toBe(true)
    expect(precedes(screen.getByRole('region', { name: /Trading Signals/ }), status)).toBe(true)
    vi.restoreAllMocks()
  })
})
