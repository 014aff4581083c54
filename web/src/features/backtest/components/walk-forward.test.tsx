import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BacktestRun } from '@/features/backtest/api/sweep'
import type { WalkForwardResult, WalkWindow } from '@/types/api'
import { admin, backtestRecord, storeSession } from '@/testing/fixtures'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'

type Figures = NonNullable<WalkWindow['in_sample']>

function figures(totalPnl: number, days: number, startingBalance = 10000): Figures {
  return {
    total_pnl: totalPnl,
    pnl_per_day: totalPnl / days,
    score: totalPnl,
    total_trades: 2,
    win_rate: 50,
    max_drawdown_usdt: 0,
    max_drawdown_pct: 0,
    open_at_end: 0,
    starting_balance: startingBalance,
    final_balance: startingBalance + totalPnl,
  }
}

function window(
  train: [string, string],
  test: string,
  chosen: number,
  inSample: number,
  outOfSample: number,
  farBelow: boolean,
): WalkWindow {
  return {
    train_from: train[0],
    train_to: train[1],
    test_from: test,
    test_to: test,
    chosen: [chosen],
    in_sample: figures(inSample, 2),
    out_of_sample: figures(outOfSample, 1),
    far_below: farBelow,
    error: null,
  }
}

/** The crate test's five scripted days (crates/backtest/tests/walk_forward.rs). */
const walkResult: WalkForwardResult = {
  walk_forward: {
    train_days: 2,
    test_days: 1,
    metric: 'total_pnl',
    axes: [{ field: 'initial_stop_loss_pct', values: [2, 8] }],
    unused_from: '2026-11-15',
    unused_to: '2026-11-15',
    windows: [
      window(['2026-11-16', '2026-11-17'], '2026-11-18', 8, 93.7692, -80.24544, true),
      window(['2026-11-17', '2026-11-18'], '2026-11-19', 8, -33.36084, -80.24544, false),
      window(['2026-11-18', '2026-11-19'], '2026-11-20', 2, -41.75622, -20.87811, false),
    ],
    in_sample_pnl: 18.65214,
    out_of_sample_pnl: -181.36899,
    far_below: true,
    equity: [
      { time: '2026-11-18T00:03:00Z', pnl: -80.24544 },
      { time: '2026-11-19T00:03:00Z', pnl: -160.49088 },
      { time: '2026-11-20T00:02:00Z', pnl: -181.36899 },
    ],
  },
  instruments: [],
  // A result stored before results kept what they ran with.
  settings: null,
  history: null,
}

const walkRun: BacktestRun = {
  ...backtestRecord(12),
  kind: 'walk_forward',
  request: {
    date_from: '2026-11-15',
    date_to: '2026-11-20',
    symbols: ['BTCUSDT'],
    source: 'ratings',
    overrides: {},
    sweep: [{ field: 'initial_stop_loss_pct', values: [2, 8] }],
    walk_forward: { train_days: 2, test_days: 1, metric: 'total_pnl' },
  },
  result: walkResult,
}

function walkServer() {
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/backtests/': () => ({ status: 200, body: [{ ...walkRun, result: null }] }),
    'GET /api/backtests/12/': () => ({ status: 200, body: walkRun }),
    'POST /api/backtests/': () => ({
      status: 202,
      body: { ...walkRun, status: 'running', progress: 0, result: null },
    }),
  })
  const posts = () =>
    fetchMock.mock.calls
      .filter(([url, init]) => url === '/api/backtests/' && init?.method === 'POST')
      .map(([, init]) => sentJson(init))
  return { posts }
}

async function openBacktest() {
  storeSession()
  renderApp('/backtest')
  await screen.findByRole('heading', { level: 1, name: 'Backtest' })
  return screen.getByRole('form', { name: 'New backtest' })
}

describe('walk-forward on /backtest', () => {
  it('sends the walk-forward with the sweep, and refuses it without one or with bad days', async () => {
    const { posts } = walkServer()
    const form = await openBacktest()
    await userEvent.click(within(form).getByRole('checkbox', { name: 'Walk-forward the sweep' }))
    await userEvent.clear(within(form).getByLabelText('Training days'))
    await userEvent.type(within(form).getByLabelText('Training days'), '0')
    await userEvent.click(within(form).getByRole('button', { name: 'Run backtest' }))
    expect(await within(form).findByText('Enter a whole number of days, at least 1.')).toBeInTheDocument()
    expect(
      within(form).getByText('A walk-forward picks among a sweep’s combinations: choose a setting to sweep.'),
    ).toBeInTheDocument()
    expect(posts()).toHaveLength(0)

    await userEvent.clear(within(form).getByLabelText('Training days'))
    await userEvent.type(within(form).getByLabelText('Training days'), '20')
    await userEvent.clear(within(form).getByLabelText('Test days'))
    await userEvent.type(within(form).getByLabelText('Test days'), '5')
    await userEvent.selectOptions(within(form).getByLabelText('Best by'), 'PnL / max drawdown (USDT)')
    await userEvent.selectOptions(within(form).getByLabelText('Sweep setting 1'), 'Stop loss %')
    await userEvent.type(within(form).getByLabelText('Values 1'), '2, 8')
    await userEvent.click(within(form).getByRole('button', { name: 'Run walk-forward' }))
    await waitFor(() => {
      expect(posts()).toHaveLength(1)
    })
    expect(posts()[0]).toMatchObject({
      sweep: [{ field: 'initial_stop_loss_pct', values: [2, 8] }],
      walk_forward: { train_days: 20, test_days: 5, metric: 'pnl_over_drawdown' },
    })
  })

  it('shows the windows as a table with the chosen values, both results and the warning', async () => {
    walkServer()
    await openBacktest()
    await userEvent.click(await screen.findByRole('button', { name: 'Open #12' }))
    const region = await screen.findByRole('region', { name: 'Walk-forward' })
    expect(
      within(region).getByText('Walk-forward over Stop loss %: 2 training days, 1 test days'),
    ).toBeInTheDocument()
    expect(within(region).getByRole('alert')).toHaveTextContent(
      'Out-of-sample results are far below in-sample (less than half the PnL per day): the chosen settings may only fit the past.Far below in-sample in window 1.',
    )
    expect(
      within(region).getByText('Not used: 2026-11-15 – 2026-11-15 (fewer days than a test window).'),
    ).toBeVisible()
    const table = within(region).getByRole('table', { name: 'Walk-forward windows' })
    const rows = within(table)
      .getAllByRole('row')
      .map((row) =>
        within(row)
          .queryAllByRole('cell')
          .map((cell) => cell.textContent),
      )
    expect(rows.slice(1)).toEqual([
      [
        '1',
        '2026-11-16 – 2026-11-17',
        '2026-11-18',
        'Stop loss % 8',
        '93.77 (46.88/day)',
        '-80.25 (-80.25/day)Far below in-sample',
      ],
      [
        '2',
        '2026-11-17 – 2026-11-18',
        '2026-11-19',
        'Stop loss % 8',
        '-33.36 (-16.68/day)',
        '-80.25 (-80.25/day)',
      ],
      [
        '3',
        '2026-11-18 – 2026-11-19',
        '2026-11-20',
        'Stop loss % 2',
        '-41.76 (-20.88/day)',
        '-20.88 (-20.88/day)',
      ],
      ['Total', '18.65 (3.11/day)', '-181.37 (-60.46/day)'],
    ])
    const curve = screen.getByRole('region', { name: 'Out-of-sample equity curve' })
    expect(within(curve).getByTestId('equity-last')).toHaveTextContent('-181.37')
  })

  it('marks walk-forwards in the runs table', async () => {
    walkServer()
    await openBacktest()
    const runs = await screen.findByRole('table', { name: 'Runs' })
    expect(within(runs).getAllByRole('row')[1]).toHaveTextContent('12Walk-forward')
  })
})
