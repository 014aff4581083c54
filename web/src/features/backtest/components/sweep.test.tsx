import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BacktestRun, SweepResult } from '@/features/backtest/api/sweep'
import type { Backtest } from '@/types/api'
import { admin, backtestRecord, backtestSummary, storeSession } from '@/testing/fixtures'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'

type Reply = { status: number; body?: unknown }

const request = {
  date_from: '2026-11-10',
  date_to: '2026-11-20',
  symbols: ['BTCUSDT', 'ETHUSDT'],
  source: 'ratings',
  overrides: { leverage: 5 },
  sweep: [
    { field: 'initial_stop_loss_pct' as const, values: [1, 2] },
    { field: 'take_profit_first_pct' as const, values: [2, 4] },
  ],
}

const sweepResult: SweepResult = {
  sweep: {
    axes: request.sweep,
    cells: [
      { values: [1, 2], error: null, summary: backtestSummary(10, 5) },
      { values: [1, 4], error: null, summary: backtestSummary(-20, 12.5) },
      { values: [2, 2], error: null, summary: backtestSummary(3.5, 1) },
      { values: [2, 4], error: 'no candles', summary: null },
    ],
  },
}

/** A stored run, without its result, as the sweep view types it (the generated types are looser). */
function asRun(record: Backtest): BacktestRun {
  return { ...record, kind: 'single', request: { ...record.request, sweep: null }, result: null }
}

const sweepRun: BacktestRun = {
  ...asRun(backtestRecord(9)),
  kind: 'sweep',
  request,
  result: sweepResult,
}

function backtestServer(startReply?: (body: unknown) => Reply) {
  const runs: BacktestRun[] = [sweepRun]
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/backtests/': () => ({ status: 200, body: runs.map((run) => ({ ...run, result: null })) }),
    'GET /api/backtests/9/': () => ({ status: 200, body: sweepRun }),
    'GET /api/backtests/10/': () => ({ status: 200, body: { ...backtestRecord(10), kind: 'single' } }),
    'POST /api/backtests/': ({ body }) => {
      if (startReply) return startReply(body)
      const started: BacktestRun = {
        ...asRun(backtestRecord(10)),
        kind: 'single',
        status: 'running',
        progress: 0,
        result: null,
      }
      runs.unshift(started)
      return { status: 202, body: started }
    },
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
}

async function openSweep() {
  await openBacktest()
  await userEvent.click(await screen.findByRole('button', { name: 'Open #9' }))
  return screen.findByRole('region', { name: 'Sweep' })
}

describe('sweeps on /backtest', () => {
  it('sends a sweep of two settings from the form, without their single values', async () => {
    const { posts } = backtestServer()
    await openBacktest()
    const form = screen.getByRole('form', { name: 'New backtest' })
    await userEvent.type(within(form).getByLabelText('Stop loss %'), '7')
    await userEvent.type(within(form).getByLabelText('Leverage'), '3')
    await userEvent.selectOptions(within(form).getByLabelText('Sweep setting 1'), 'Stop loss %')
    expect(within(form).getByLabelText('Stop loss %')).toBeDisabled()
    await userEvent.type(within(form).getByLabelText('Values 1'), '1, 2')
    await userEvent.selectOptions(within(form).getByLabelText('Sweep setting 2'), 'First take profit %')
    await userEvent.type(within(form).getByLabelText('Values 2'), '2..4:2')
    expect(within(form).getByTestId('sweep-cells')).toHaveTextContent('4 runs')
    await userEvent.click(within(form).getByRole('button', { name: 'Run sweep' }))
    await waitFor(() => {
      expect(posts()).toHaveLength(1)
    })
    expect(posts()[0]).toMatchObject({
      overrides: { leverage: 3 },
      sweep: [
        { field: 'initial_stop_loss_pct', values: [1, 2] },
        { field: 'take_profit_first_pct', values: [2, 4] },
      ],
    })
    expect(posts()[0]).not.toHaveProperty('overrides.initial_stop_loss_pct')
  })

  it('refuses a sweep with bad values or over 400 combinations before sending it', async () => {
    const { posts } = backtestServer()
    await openBacktest()
    const form = screen.getByRole('form', { name: 'New backtest' })
    await userEvent.selectOptions(within(form).getByLabelText('Sweep setting 1'), 'Stop loss %')
    await userEvent.type(within(form).getByLabelText('Values 1'), '1..30')
    await userEvent.selectOptions(within(form).getByLabelText('Sweep setting 2'), 'Leverage')
    await userEvent.type(within(form).getByLabelText('Values 2'), '1..14, 2.5')
    await userEvent.click(within(form).getByRole('button', { name: 'Run sweep' }))
    expect(await within(form).findByText('2.5 is not a whole number.')).toBeInTheDocument()
    await userEvent.clear(within(form).getByLabelText('Values 2'))
    await userEvent.type(within(form).getByLabelText('Values 2'), '1..14')
    await userEvent.click(within(form).getByRole('button', { name: 'Run sweep' }))
    expect(await within(form).findByText('The sweep has 420 combinations; at most 400.')).toBeInTheDocument()
    expect(posts()).toHaveLength(0)
  })

  it('shows a done sweep as a table of total pnl and max drawdown per cell', async () => {
    backtestServer()
    const region = await openSweep()
    expect(within(region).getByText('Sweep over Stop loss % × First take profit %')).toBeInTheDocument()
    const table = within(region).getByRole('table', { name: 'Sweep results' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Stop loss % \\ First take profit %', '2', '4'])
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((cell) => cell.textContent),
    ).toEqual(['1', '2'])
    const cells = within(table).getAllByRole('button')
    expect(cells.map((cell) => cell.getAttribute('aria-label'))).toEqual([
      'Stop loss % 1, First take profit % 2: total PnL 10.00, max drawdown 5.00%',
      'Stop loss % 1, First take profit % 4: total PnL -20.00, max drawdown 12.50%',
      'Stop loss % 2, First take profit % 2: total PnL 3.50, max drawdown 1.00%',
      'Stop loss % 2, First take profit % 4: failed (no candles)',
    ])
    expect(cells[0]).toHaveTextContent('PnL 10.00DD 5.00%')
    const losing = within(table).getByRole('button', { name: /First take profit % 4: total PnL -20\.00/ })
    expect(within(losing).getByText('-20.00')).toHaveClass('text-destructive')
    expect(cells[3]).toHaveTextContent('Failed')
  })

  it('draws the heatmaps of total pnl and max drawdown, each cell labelled with its values', async () => {
    backtestServer()
    const region = await openSweep()
    const pnl = within(region).getByRole('table', { name: 'Total PnL heatmap' })
    const drawdown = within(region).getByRole('table', { name: 'Max drawdown heatmap' })
    const pnlCells = within(pnl).getAllByRole('button')
    expect(pnlCells).toHaveLength(4)
    expect(
      within(pnl).getByRole('button', {
        name: 'Stop loss % 1, First take profit % 2: total PnL 10.00, max drawdown 5.00%',
      }),
    ).toHaveClass('bg-success/40')
    expect(
      within(pnl).getByRole('button', {
        name: 'Stop loss % 1, First take profit % 4: total PnL -20.00, max drawdown 12.50%',
      }),
    ).toHaveClass('bg-destructive')
    expect(pnlCells[3]).toHaveClass('bg-muted')
    const drawdownCells = within(drawdown).getAllByRole('button')
    expect(drawdownCells.map((cell) => cell.textContent)).toEqual(['5.00%', '12.50%', '1.00%', '—'])
    expect(drawdownCells[1]).toHaveClass('bg-destructive/85')
    expect(drawdownCells[2]).toHaveClass('bg-destructive/15')
  })

  it("opens a cell's run: a single backtest with the sweep's request and the cell's values, shown beside the sweep", async () => {
    const { posts } = backtestServer()
    const region = await openSweep()
    await userEvent.click(
      within(within(region).getByRole('table', { name: 'Max drawdown heatmap' })).getByRole('button', {
        name: 'Stop loss % 2, First take profit % 2: total PnL 3.50, max drawdown 1.00%',
      }),
    )
    await waitFor(() => {
      expect(posts()).toHaveLength(1)
    })
    expect(posts()[0]).toEqual({
      date_from: '2026-11-10',
      date_to: '2026-11-20',
      symbols: ['BTCUSDT', 'ETHUSDT'],
      source: 'ratings',
      overrides: { leverage: 5, initial_stop_loss_pct: 2, take_profit_first_pct: 2 },
    })
    const compared = await screen.findByRole('group', { name: 'Two runs side by side' })
    expect(
      within(compared)
        .getAllByRole('heading', { level: 2 })
        .map((h) => h.textContent),
    ).toEqual(['Backtest #9', 'Backtest #10'])
    expect(
      await within(screen.getByRole('region', { name: 'Backtest #10' })).findByRole('group', {
        name: 'Max drawdown',
      }),
    ).toBeInTheDocument()
  })

  it('shows the server’s sentence when the cell’s run cannot start (409)', async () => {
    backtestServer(() => ({ status: 409, body: { error: 'Another backtest is running.' } }))
    const region = await openSweep()
    await userEvent.click(
      within(within(region).getByRole('table', { name: 'Sweep results' })).getByRole('button', {
        name: 'Stop loss % 1, First take profit % 2: total PnL 10.00, max drawdown 5.00%',
      }),
    )
    expect(await within(region).findByRole('alert')).toHaveTextContent('Another backtest is running.')
    expect(screen.queryByRole('region', { name: 'Backtest #10' })).not.toBeInTheDocument()
  })

  it('marks sweeps in the runs table', async () => {
    backtestServer()
    await openBacktest()
    const runs = await screen.findByRole('table', { name: 'Runs' })
    expect(within(runs).getAllByRole('row')[1]).toHaveTextContent('9Sweep')
  })
})
