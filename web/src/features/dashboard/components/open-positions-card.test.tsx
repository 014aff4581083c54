import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { Trade } from '@/types/api'
import {
  admin,
  botStatusRecord,
  positionRecord,
  settingsRecord,
  storeSession,
  tradeRecord,
  venues,
} from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'

type Reply = { status: number; body?: unknown }

const btc = tradeRecord({ id: 11, symbol: 'BTCUSDT', side: 'long', open_quantity: 0.015, entry_price: 65000 })
const eth = tradeRecord({
  id: 12,
  symbol: 'ETHUSDT',
  side: 'short',
  quantity: 0.5,
  open_quantity: 0.25,
  leverage: 20,
  entry_price: 3000.5,
  stop_loss: 3150,
})

function urlOf(input: string | URL | Request | undefined): string {
  return input instanceof Request ? input.url : String(input)
}

/** A trades server: the open list, closing one or all of them like the real one. */
function tradesServer(trades: Trade[], override: Record<string, () => Reply | Promise<Reply>> = {}) {
  let open = [...trades]
  const closeOne = (id: number) => () => {
    const trade = open.find((t) => t.id === id)
    if (!trade) return { status: 409, body: { error: 'This trade is not open' } }
    open = open.filter((t) => t.id !== id)
    return { status: 200, body: { ...trade, status: 'CLOSED', close_reason: 'manual' } }
  }
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/signals/': () => ({ status: 200, body: [] }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
    'GET /api/trades/': () => ({
      status: 200,
      body: { count: open.length, page: 1, page_size: 100, results: open },
    }),
    ...Object.fromEntries(trades.map((t) => [`POST /api/trades/${t.id}/close/`, closeOne(t.id)])),
    'POST /api/trades/close-all/': () => {
      const closed = open.length
      open = []
      return { status: 200, body: { closed } }
    },
    ...override,
  })
  const calls = (method: string, path: string) =>
    fetchMock.mock.calls.filter(
      ([url, init]) => urlOf(url).split('?')[0] === path && (init?.method ?? 'GET') === method,
    )
  return { calls, fetchMock }
}

async function openCard() {
  storeSession()
  renderApp('/dashboard')
  const card = await screen.findByRole('region', { name: 'Open Positions' })
  return { card: within(card), cardElement: card }
}

/** The body row of a symbol. */
function row(card: HTMLElement, symbol: string) {
  return within(within(card).getByRole('row', { name: new RegExp(`^${symbol}\\b`) }))
}

describe('Open Positions card', () => {
  it('shows the venue of every trade on its row, and nothing for a trade from before venues were recorded', async () => {
    tradesServer([
      tradeRecord({ id: 21, symbol: 'BTCUSDT', venue: venues.paper }),
      tradeRecord({ id: 22, symbol: 'ETHUSDT', venue: venues.demo }),
      tradeRecord({ id: 23, symbol: 'SOLUSDT', venue: venues.real }),
      tradeRecord({ id: 24, symbol: 'XRPUSDT', venue: null }),
    ])
    const { card, cardElement } = await openCard()
    await card.findByRole('cell', { name: 'XRPUSDT' })
    expect(columnTexts(cardElement, 0)).toEqual([
      'BTCUSDT Paper',
      'ETHUSDT Bybit Demo',
      'SOLUSDT Bybit Real',
      'XRPUSDT',
    ])
    expect(row(cardElement, 'SOLUSDT').getByText('Bybit Real')).toHaveAttribute('data-environment', 'real')
  })

  it('shows the venue the bot trades on beside Close all', async () => {
    tradesServer([btc], {
      'GET /api/bot/status/': () => ({ status: 200, body: botStatusRecord({ venue: venues.real }) }),
    })
    const { card } = await openCard()
    const closeAll = await card.findByRole('button', { name: 'Close all' })
    const beside = closeAll.parentElement
    if (!beside) throw new Error('Close all has no parent')
    expect(await within(beside).findByText('Bybit Real')).toBeInTheDocument()
  })

  it('says "No open positions" when nothing is open, with no Close all', async () => {
    tradesServer([])
    const { card } = await openCard()
    expect(await card.findByText('No open positions')).toBeInTheDocument()
    expect(card.queryByRole('button', { name: 'Close all' })).not.toBeInTheDocument()
  })

  it('lists the open trades, newest first, from GET /api/trades/?status=open&page_size=100', async () => {
    const { calls } = tradesServer([btc, eth])
    const { card, cardElement } = await openCard()
    await card.findByRole('cell', { name: 'BTCUSDT' })
    const [url] = calls('GET', '/api/trades/')[0] ?? []
    expect(urlOf(url)).toBe('/api/trades/?status=open&page_size=100')

    for (const heading of [
      'Symbol',
      'Side',
      'Size',
      'Entry',
      'Mark',
      'PnL',
      'Stop',
      'Liq. price',
      'Next TP',
      'Margin (USDT)',
      'Funding',
      'Open for',
    ]) {
      expect(card.getByRole('columnheader', { name: heading })).toBeInTheDocument()
    }
    expect(columnTexts(cardElement, 0)).toEqual(['BTCUSDT', 'ETHUSDT'])
    expect(row(cardElement, 'BTCUSDT').getByText('Long')).toHaveClass('text-success')
    expect(row(cardElement, 'ETHUSDT').getByText('Short')).toHaveClass('text-destructive')
    expect(row(cardElement, 'ETHUSDT').getByText('20x')).toBeInTheDocument()
    // Size is what is still open; no live data yet: no mark price or PnL.
    // Columns: symbol, side, PnL, size, entry, mark, stop, liquidation, next take profit, margin,
    // funding, open for, Close (the key ones first, for phones).
    expect(columnTexts(cardElement, 3)).toEqual(['0.015', '0.25'])
    expect(columnTexts(cardElement, 4)).toEqual(['65,000.00', '3,000.50'])
    expect(columnTexts(cardElement, 5)).toEqual(['—', '—'])
    expect(columnTexts(cardElement, 2)).toEqual(['—', '—'])
    expect(columnTexts(cardElement, 6)).toEqual(['61,750.00', '3,150.00'])
    // No live position yet: no liquidation price or take profit; the trade's margin.
    expect(columnTexts(cardElement, 7)).toEqual(['—', '—'])
    expect(columnTexts(cardElement, 8)).toEqual(['—', '—'])
    expect(columnTexts(cardElement, 10)).toEqual(['0.00', '0.00'])
  })

  it('shows the funding each position received (+, green) or paid (−, red) so far', async () => {
    tradesServer([
      tradeRecord({ id: 31, symbol: 'BTCUSDT', side: 'long', funding: -0.0975 }),
      tradeRecord({ id: 32, symbol: 'ETHUSDT', side: 'short', funding: 0.0123 }),
    ])
    const { card, cardElement } = await openCard()
    await card.findByRole('cell', { name: 'ETHUSDT' })
    expect(columnTexts(cardElement, 10)).toEqual(['-0.0975', '+0.0123'])
    expect(row(cardElement, 'BTCUSDT').getByText('-0.0975')).toHaveClass('text-destructive')
    expect(row(cardElement, 'ETHUSDT').getByText('+0.0123')).toHaveClass('text-success')
  })

  it('asks the live feed for the positions and shows their mark price and PnL by symbol', async () => {
    const { calls } = tradesServer([btc, eth])
    const { card, cardElement } = await openCard()
    await card.findByRole('cell', { name: 'BTCUSDT' })

    const socket = openLive()
    expect(socket.sentJson()).toContainEqual({ action: 'get_trades' })
    const fetchesBefore = calls('GET', '/api/trades/').length

    liveSend({
      type: 'orders',
      data: [
        positionRecord({
          symbol: 'ETHUSDT',
          side: 'short',
          mark_price: 3010.25,
          unrealized_pnl: -2.4567,
          stop_loss: null,
        }),
        positionRecord({
          symbol: 'BTCUSDT',
          mark_price: 65850.5,
          unrealized_pnl: 12.345,
          stop_loss: 65000,
          liquidation_price: 58825,
          take_profit: 71500,
          margin: 97.5,
        }),
        // A position with no open trade (yet) is not listed.
        positionRecord({ symbol: 'SOLUSDT', mark_price: 150 }),
      ],
    })
    await waitFor(() => {
      expect(columnTexts(cardElement, 5)).toEqual(['65,850.50', '3,010.25'])
    })
    expect(columnTexts(cardElement, 0)).toEqual(['BTCUSDT', 'ETHUSDT'])
    // PnL with 2 decimals, green above zero and red below, and as a percent of the margin.
    expect(row(cardElement, 'BTCUSDT').getByText('+12.35')).toHaveClass('text-success')
    // 12.345 / 97.5 = 12.66 %.
    expect(columnTexts(cardElement, 2)).toEqual(['+12.35+12.66%', '-2.46-2.52%'])
    // The liquidation price and the next take profit from the feed; the margin in USDT.
    expect(columnTexts(cardElement, 7)).toEqual(['58,825.00', '58,825.00'])
    expect(columnTexts(cardElement, 8)).toEqual(['71,500.00', '—'])
    expect(columnTexts(cardElement, 9)).toEqual(['97.50', '97.50'])
    expect(row(cardElement, 'ETHUSDT').getByText('-2.46')).toHaveClass('text-destructive')
    // The venue's stop (moved to break-even here) wins over the one the trade recorded, if it has one.
    expect(columnTexts(cardElement, 6)).toEqual(['65,000.00', '3,150.00'])
    // An `orders` message (a fill or a close) also refetches the open trades.
    await waitFor(() => {
      expect(calls('GET', '/api/trades/').length).toBeGreaterThan(fetchesBefore)
    })
  })

  it('closes a position after the confirmation, with "Position closed"', async () => {
    const { calls } = tradesServer([btc, eth])
    const { card, cardElement } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close BTCUSDT' }))

    // Cancel first: nothing is sent.
    let dialog = await screen.findByRole('alertdialog', { name: 'Close the BTCUSDT position?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('POST', '/api/trades/11/close/')).toHaveLength(0)

    await userEvent.click(card.getByRole('button', { name: 'Close BTCUSDT' }))
    dialog = await screen.findByRole('alertdialog', { name: 'Close the BTCUSDT position?' })
    expect(dialog).toHaveAccessibleDescription('It is closed at the market price now. This cannot be undone.')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close position' }))

    expect(await screen.findByText('Position closed')).toBeInTheDocument()
    expect(calls('POST', '/api/trades/11/close/')).toHaveLength(1)
    await waitFor(() => {
      expect(columnTexts(cardElement, 0)).toEqual(['ETHUSDT'])
    })
  })

  it("toasts the server's sentence when a close fails", async () => {
    tradesServer([btc], {
      'POST /api/trades/11/close/': () => ({ status: 409, body: { error: 'This trade is not open' } }),
    })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close BTCUSDT' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Close the BTCUSDT position?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close position' }))
    expect(await screen.findByText('This trade is not open')).toBeInTheDocument()
    expect(screen.queryByText('Position closed')).not.toBeInTheDocument()
  })

  it('"Failed to close the position" when the server gives no sentence', async () => {
    tradesServer([btc], { 'POST /api/trades/11/close/': () => ({ status: 502 }) })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close BTCUSDT' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Close the BTCUSDT position?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close position' }))
    expect(await screen.findByText('Failed to close the position')).toBeInTheDocument()
  })

  it('Close all asks first, closes every position and says how many', async () => {
    const { calls } = tradesServer([btc, eth])
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close all' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Close all open positions on Paper?' })
    expect(dialog).toHaveAccessibleDescription(
      'All 2 open positions are closed at the market price now. This cannot be undone.',
    )
    // A stopped bot: nothing to stop.
    expect(
      within(dialog).queryByRole('button', { name: 'Close all and stop the bot' }),
    ).not.toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close all' }))

    expect(await screen.findByText('Closed 2 positions')).toBeInTheDocument()
    expect(calls('POST', '/api/trades/close-all/')).toHaveLength(1)
    expect(await card.findByText('No open positions')).toBeInTheDocument()
  })

  it('with the bot running, Close all says it reopens and offers to stop it first', async () => {
    const record = settingsRecord({ is_bot_running: true, is_signals_fetching_active: true })
    const order: string[] = []
    let closedAll = false
    const { calls } = tradesServer([btc, eth], {
      'GET /api/bot-settings/': () => ({ status: 200, body: [record] }),
      'GET /api/bot/status/': () => ({
        status: 200,
        body: botStatusRecord({ is_bot_running: true, venue: { exchange: 'bybit', environment: 'demo' } }),
      }),
      [`POST /api/bot-settings/${String(record.id)}/stop_bot/`]: () => {
        order.push('stop_bot')
        return { status: 200, body: { message: 'Bot stopped', status: { is_bot_running: false } } }
      },
      'POST /api/trades/close-all/': () => {
        order.push('close-all')
        closedAll = true
        return { status: 200, body: { closed: 2 } }
      },
      'GET /api/trades/': () => ({
        status: 200,
        body: { count: closedAll ? 0 : 2, page: 1, page_size: 100, results: closedAll ? [] : [btc, eth] },
      }),
    })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close all' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Close all open positions on Bybit Demo?' })
    expect(dialog).toHaveAccessibleDescription(
      'All 2 open positions are closed at the market price now. This cannot be undone. The bot keeps running and opens new positions on its next signals unless you stop it too.',
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close all and stop the bot' }))
    expect(await screen.findByText('Closed 2 positions')).toBeInTheDocument()
    expect(order).toEqual(['stop_bot', 'close-all'])
    expect(calls('POST', '/api/trades/close-all/')).toHaveLength(1)
  })

  it('closes nothing when the bot cannot be stopped first', async () => {
    const record = settingsRecord({ is_bot_running: true, is_signals_fetching_active: true })
    const { calls } = tradesServer([btc], {
      'GET /api/bot-settings/': () => ({ status: 200, body: [record] }),
      [`POST /api/bot-settings/${String(record.id)}/stop_bot/`]: () => ({
        status: 503,
        body: { error: 'Database unreachable' },
      }),
    })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Close all' }))
    const dialog = await screen.findByRole('alertdialog')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close all and stop the bot' }))
    expect(
      await screen.findByText('The bot could not be stopped, so no position was closed'),
    ).toBeInTheDocument()
    expect(calls('POST', '/api/trades/close-all/')).toHaveLength(0)
  })

  it('shows "Failed to load open positions" with the reason and a Retry', async () => {
    let fail = true
    tradesServer([btc], {
      'GET /api/trades/': () =>
        fail
          ? { status: 400, body: { error: 'page must be 1 or more and page_size 1 to 500.' } }
          : { status: 200, body: { count: 1, page: 1, page_size: 100, results: [btc] } },
    })
    const { card } = await openCard()
    const alert = await card.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load open positions')
    expect(alert).toHaveTextContent('page must be 1 or more and page_size 1 to 500.')
    fail = false
    await userEvent.click(card.getByRole('button', { name: 'Retry' }))
    expect(await card.findByRole('cell', { name: 'BTCUSDT' })).toBeInTheDocument()
  })
})
