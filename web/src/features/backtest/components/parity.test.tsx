import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { ParityReport } from '@/features/backtest/api/parity'
import { admin, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'

const side = (over: Partial<ParityReport['rows'][number]['live']> = {}) => ({
  trade_id: 1,
  side: 'long',
  status: 'CLOSED',
  entry_at: Date.UTC(2026, 10, 20, 12, 0, 0),
  exit_at: Date.UTC(2026, 10, 20, 13, 30, 15),
  entry_price: 30000,
  exit_price: 30300,
  fees: 0.4,
  funding: -0.05,
  pnl: 2.55,
  close_reason: 'take_profit',
  ...over,
})

const report: ParityReport = {
  from_ms: Date.UTC(2026, 10, 20),
  to_ms: Date.UTC(2026, 10, 21),
  data: 'simulated',
  signals: 12,
  differences: 2,
  rows: [
    {
      signal_id: 41,
      step: 1,
      symbol: 'BTCUSDT',
      live: side(),
      backtest: side({ trade_id: 7 }),
      difference: {
        entry_at_ms: 0,
        exit_at_ms: 0,
        entry_price: 0,
        exit_price: 0,
        fees: 0,
        funding: 0,
        pnl: 0,
      },
      agrees: true,
      reason: null,
    },
    {
      signal_id: 42,
      step: 1,
      symbol: 'ETHUSDT',
      live: side({ trade_id: 2, exit_price: 2010, close_reason: 'manual', pnl: 1.5 }),
      backtest: side({ trade_id: 8, exit_price: 2000, pnl: 1 }),
      difference: {
        entry_at_ms: 0,
        exit_at_ms: 60000,
        entry_price: 0,
        exit_price: -10,
        fees: 0,
        funding: 0,
        pnl: -0.5,
      },
      agrees: false,
      reason: 'Closed by hand live.',
    },
    {
      signal_id: 43,
      step: 1,
      symbol: 'SOLUSDT',
      live: side({ trade_id: 3 }),
      backtest: null,
      difference: null,
      agrees: false,
      reason: 'Live only: the backtest skipped the signal: 1 trades are open already (max_trades).',
    },
  ],
  totals: {
    live: { trades: 3, fees: 1.2, funding: -0.15, pnl: 6.6 },
    backtest: { trades: 2, fees: 0.8, funding: -0.1, pnl: 3.55 },
    difference: { trades: -1, fees: -0.4, funding: 0.05, pnl: -3.05 },
  },
}

function parityServer(reply: (url: string) => { status: number; body: unknown }) {
  const asked: string[] = []
  stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/backtests/': () => ({ status: 200, body: [] }),
    'GET /api/parity/': ({ url }) => {
      asked.push(url)
      return reply(url)
    },
  })
  return asked
}

async function openParity() {
  storeSession()
  renderApp('/backtest')
  await screen.findByRole('heading', { level: 1, name: 'Backtest' })
  return screen.findByRole('region', { name: 'Backtest vs reality' })
}

describe('Backtest vs reality on /backtest', () => {
  it('runs the period and shows live | backtest | difference, one-sided trades and totals', async () => {
    const asked = parityServer(() => ({ status: 200, body: report }))
    const region = await openParity()
    const form = within(region).getByRole('form', { name: 'Backtest vs reality' })
    const from = within(form).getByLabelText('From')
    await userEvent.clear(from)
    await userEvent.type(from, '2026-11-20')
    const to = within(form).getByLabelText('To')
    await userEvent.clear(to)
    await userEvent.type(to, '2026-11-20')
    await userEvent.click(within(form).getByRole('button', { name: 'Compare' }))
    const table = await within(region).findByRole('table', { name: 'Live and backtest trades' })
    expect(asked[0]).toContain('from=2026-11-20')
    expect(asked[0]).toContain('to=2026-11-20')
    expect(region).toHaveTextContent('12 signals replayed on the simulated market.')
    expect(region).toHaveTextContent('2 trades differ.')
    expect(table).toHaveTextContent('BTCUSDT Long (signal #41) Agrees')
    expect(table).toHaveTextContent('ETHUSDT Long (signal #42) Differs')
    expect(table).toHaveTextContent('Closed by hand live.')
    expect(table).toHaveTextContent('Exit price20102000-10')
    expect(table).toHaveTextContent('Exit time2026-11-20 13:30:15.0002026-11-20 13:30:15.000+60000 ms')
    expect(table).toHaveTextContent('(max_trades)')
    expect(table).toHaveTextContent('PnL2.55––')
    const totals = within(region).getByRole('table', { name: 'Totals' })
    expect(totals).toHaveTextContent('Trades32-1')
    expect(totals).toHaveTextContent('PnL6.63.55-3.05')
  })

  it('shows the server’s sentence under the field it names', async () => {
    parityServer(() => ({
      status: 400,
      body: {
        error: 'The period must end after it starts.',
        fields: { to: ['The period must end after it starts.'] },
      },
    }))
    const region = await openParity()
    await userEvent.click(within(region).getByRole('button', { name: 'Compare' }))
    await waitFor(() => {
      expect(within(region).getByRole('alert')).toHaveTextContent('The period must end after it starts.')
    })
    expect(within(region).queryByRole('table', { name: 'Live and backtest trades' })).toBeNull()
  })
})
