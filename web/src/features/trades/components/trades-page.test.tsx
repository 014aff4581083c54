import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Trade, TradeSearchPage } from '@/types/api'
import { botStatusRecord, settingsRecord, storeSession, tradeRecord, venues, admin } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'

function closed(id: number, overrides: Partial<Trade> = {}): Trade {
  return tradeRecord({
    id,
    status: 'CLOSED',
    exit_price: 65500,
    pnl: 12.345,
    close_reason: 'take_profit',
    closed_at: '2026-11-22T06:00:00Z',
    ...overrides,
  })
}

function page(results: Trade[], next: string | null, count = results.length): TradeSearchPage {
  return { venue: venues.demo, time_zone: 'Asia/Tokyo', count, next_cursor: next, results }
}

/** A server answering the search by cursor (none: 'first'), and recording every query. */
function tradesServer(pages: Record<string, TradeSearchPage | { error: string }>) {
  const queries: URLSearchParams[] = []
  stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({
      status: 200,
      body: [settingsRecord({ user_timezone: 'Asia/Tokyo' })],
    }),
    'GET /api/bot/status/': () => ({ status: 200, body: botStatusRecord() }),
    'GET /api/trades/search/': ({ url }) => {
      const query = new URLSearchParams(url.split('?')[1] ?? '')
      queries.push(query)
      const reply = pages[query.get('cursor') ?? 'first']
      if (!reply) return { status: 404, body: { error: 'Not found' } }
      return 'error' in reply ? { status: 400, body: reply } : { status: 200, body: reply }
    },
    'GET /api/trades/11/chart/': () => ({
      status: 200,
      body: {
        symbol: 'BTCUSDT',
        interval_minutes: 1,
        candles: [
          { time: Date.parse('2026-11-22T04:29:00Z'), open: 1, high: 2, low: 0.5, close: 1.5 },
          { time: Date.parse('2026-11-22T04:30:00Z'), open: 1.5, high: 2, low: 1, close: 1.8 },
        ],
        markers: [
          { time: Date.parse('2026-11-22T04:30:00Z'), kind: 'entry', price: 65000, label: 'Entry 65000' },
        ],
      },
    }),
  })
  return { queries }
}

function desktop(matches: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches,
        media: query,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      }) as unknown as MediaQueryList,
  )
}

async function openTrades() {
  storeSession()
  renderApp('/trades')
  await screen.findByRole('heading', { level: 1, name: 'Trades' })
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('trades page', () => {
  it('lists the account, times in the settings zone and pnl in USDT with 2 decimals', async () => {
    desktop(true)
    tradesServer({
      first: page([closed(11), closed(12, { pnl: -3.5, symbol: 'ETHUSDT', side: 'short' })], null),
    })
    await openTrades()
    const table = await screen.findByRole('table', { name: 'Trades' })
    expect(within(table).getByRole('columnheader', { name: 'Opened (Asia/Tokyo)' })).toBeInTheDocument()
    const [first, second] = within(table).getAllByRole('row').slice(1)
    // 04:30 UTC is 13:30 in Tokyo.
    expect(first).toHaveTextContent('13:30')
    expect(first).toHaveTextContent('12.35 USDT')
    expect(first).toHaveTextContent('Take profit')
    expect(second).toHaveTextContent('-3.50 USDT')
    expect(second).toHaveTextContent('Short')
    expect(screen.getByText('Bybit Demo')).toBeInTheDocument()
    expect(screen.getByText('1–2 of 2')).toBeInTheDocument()
    expect(screen.getByText(/Times in Asia\/Tokyo/)).toBeInTheDocument()
  })

  it('sends every filter to the server, restarts from the first page and exports the same filter', async () => {
    desktop(true)
    const { queries } = tradesServer({ first: page([closed(11)], null) })
    await openTrades()
    await screen.findByRole('table', { name: 'Trades' })
    const user = userEvent.setup()
    await user.selectOptions(screen.getByLabelText('Side'), 'short')
    await user.selectOptions(screen.getByLabelText('Status'), 'closed')
    await user.selectOptions(screen.getByLabelText('Close reason'), 'stop_loss')
    await user.selectOptions(screen.getByLabelText('Sort by'), 'pnl_asc')
    await user.selectOptions(screen.getByLabelText('Period'), '7d')
    await user.type(screen.getByLabelText('Symbol'), 'eth-usdt')
    await waitFor(() => {
      const last = queries.at(-1)
      expect(last?.get('symbol')).toBe('ETHUSDT')
    })
    const last = queries.at(-1)
    expect(Object.fromEntries(last?.entries() ?? [])).toEqual({
      period: '7d',
      symbol: 'ETHUSDT',
      side: 'short',
      status: 'closed',
      close_reason: 'stop_loss',
      sort: 'pnl_asc',
      limit: '50',
    })
    const link = screen.getByRole('link', { name: 'Export CSV' })
    const href = new URL(link.getAttribute('href') ?? '', 'http://x')
    expect(href.pathname).toBe('/api/trades/export.csv')
    expect(Object.fromEntries(href.searchParams.entries())).toEqual({
      period: '7d',
      symbol: 'ETHUSDT',
      side: 'short',
      status: 'closed',
      close_reason: 'stop_loss',
      sort: 'pnl_asc',
    })
    expect(link).toHaveAttribute('download')
  })

  it('pages forward with the server cursor and back through the cursors seen', async () => {
    desktop(true)
    const { queries } = tradesServer({
      first: page([closed(11), closed(12)], 'c2', 3),
      c2: page([closed(13)], null, 3),
    })
    await openTrades()
    await screen.findByText('1–2 of 3')
    const user = userEvent.setup()
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled()
    await user.click(screen.getByRole('button', { name: 'Next page' }))
    await screen.findByText('3–3 of 3')
    expect(queries.at(-1)?.get('cursor')).toBe('c2')
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled()
    await user.click(screen.getByRole('button', { name: 'Previous page' }))
    await screen.findByText('1–2 of 3')
    // A new page size starts again from the first page.
    await user.click(screen.getByRole('button', { name: 'Next page' }))
    await screen.findByText('3–3 of 3')
    await user.selectOptions(screen.getByLabelText('Per page'), '100')
    await waitFor(() => {
      expect(queries.at(-1)?.get('limit')).toBe('100')
    })
    expect(queries.at(-1)?.get('cursor')).toBeNull()
  })

  it('shows cards on a phone and opens a trade chart under its card', async () => {
    desktop(false)
    tradesServer({ first: page([tradeRecord()], null) })
    await openTrades()
    const cards = await screen.findByRole('list', { name: 'Trades' })
    expect(screen.queryByRole('table', { name: 'Trades' })).not.toBeInTheDocument()
    const user = userEvent.setup()
    await user.click(within(cards).getByRole('button', { name: 'Show the chart of trade #11' }))
    const region = await screen.findByRole('region', { name: 'Price chart of trade #11' })
    expect(await within(region).findByText('Entry 65000')).toBeInTheDocument()
    expect(within(cards).getByRole('button', { name: 'Hide the chart of trade #11' })).toHaveAttribute(
      'aria-expanded',
      'true',
    )
  })

  it('shows the empty state', async () => {
    tradesServer({ first: page([], null) })
    await openTrades()
    expect(await screen.findByText('No trades match this filter.')).toBeInTheDocument()
  })

  it('shows the server refusal with its sentence', async () => {
    tradesServer({ first: { error: 'symbol must be letters and digits, like BTCUSDT.' } })
    await openTrades()
    expect(await screen.findByText('Failed to load trades')).toBeInTheDocument()
    expect(screen.getByText('symbol must be letters and digits, like BTCUSDT.')).toBeInTheDocument()
  })
})
