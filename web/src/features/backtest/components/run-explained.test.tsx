import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { createQueryClient } from '@/lib/query-client'
import { backtestRecord, storeSession } from '@/testing/fixtures'
import { sentJson, stubServer } from '@/testing/render-app'
import { BacktestResultView } from '@/features/backtest/components/backtest-result'

const belowMinimum = {
  code: 'all_skipped',
  text: "All 12 entry signals were skipped: order below the instrument's minimum (10), forbidden hour or day (2).",
  signals: 40,
  entries: 12,
  skips: [
    { kind: 'below_minimum', label: "order below the instrument's minimum", count: 10 },
    { kind: 'forbidden_window', label: 'forbidden hour or day', count: 2 },
  ],
}

function emptyRun(label: string | null = null) {
  const run = backtestRecord(4, [], { label })
  if (!run.result || !('summary' in run.result)) throw new Error('the fixture is not a single run')
  run.result.no_trades = belowMinimum
  return run
}

function renderRun(run: ReturnType<typeof emptyRun>, patch?: (label: unknown) => void) {
  storeSession()
  // The server keeps the label it was sent.
  let current = run
  const fetchMock = stubServer({
    'GET /api/backtests/4/': () => ({ status: 200, body: current }),
    'PATCH /api/backtests/4/': ({ body }) => {
      const label = (body as { label: string }).label
      patch?.(label)
      if (label.length > 80) {
        return {
          status: 400,
          body: { error: 'Invalid input.', fields: { label: ['At most 80 characters.'] } },
        }
      }
      current = { ...run, label: label === '' ? null : label }
      return { status: 200, body: current }
    },
  })
  render(
    <QueryClientProvider client={createQueryClient()}>
      <BacktestResultView id={4} />
    </QueryClientProvider>,
  )
  return fetchMock
}

describe('a backtest result that explains itself', () => {
  it('says why a run traded nothing, with the skips by reason, instead of an empty table', async () => {
    renderRun(emptyRun())
    const reason = await screen.findByRole('region', { name: 'No trades' })
    expect(reason).toHaveTextContent(belowMinimum.text)
    const skips = within(reason).getByRole('list', { name: 'Skipped entries by reason' })
    expect(
      within(skips)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(["order below the instrument's minimum: 10", 'forbidden hour or day: 2'])
    expect(screen.queryByRole('table', { name: 'Trades' })).not.toBeInTheDocument()
  })

  it('shows the data, period, symbols and settings the run used, marking those it changed', async () => {
    renderRun(emptyRun())
    const ranWith = await screen.findByLabelText('Ran with')
    const pairs = Object.fromEntries(
      within(ranWith)
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    )
    expect(pairs).toMatchObject({
      Data: 'Simulated market, seed 42',
      Period: '2026-11-10 – 2026-11-20 (Europe/Moscow)',
      Symbols: 'BTCUSDT',
      Signals: 'Technical ratings',
      Mode: 'Classic',
      // The fixture's request overrides the leverage.
      Leverage: '10x(changed for this run)',
      'Order size': '100.00 USDT',
      'Stop loss': '5%',
      'Take profits': 'first 10%, then every 10%',
      'Trailing stop': 'from +1%, step 0.5%',
      Wallet: '1,000.00 USDT',
    })
  })

  it('renames the run: Enter saves the trimmed label, Escape cancels', async () => {
    const user = userEvent.setup()
    const sent: unknown[] = []
    const fetchMock = renderRun(emptyRun(), (label) => sent.push(label))
    expect(await screen.findByTestId('run-label')).toHaveTextContent('No label')

    await user.click(screen.getByRole('button', { name: 'Rename backtest #4' }))
    const field = screen.getByRole('textbox', { name: 'Label of backtest #4' })
    expect(field).toHaveFocus()
    await user.type(field, 'not this{Escape}')
    expect(screen.queryByRole('textbox', { name: 'Label of backtest #4' })).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Rename backtest #4' })).toHaveFocus()
    expect(sent).toEqual([])

    await user.click(screen.getByRole('button', { name: 'Rename backtest #4' }))
    await user.type(screen.getByRole('textbox', { name: 'Label of backtest #4' }), '  tight stops {Enter}')
    expect(await screen.findByTestId('run-label')).toHaveTextContent('tight stops')
    expect(sent).toEqual(['tight stops'])
    const patch = fetchMock.mock.calls.find(([, init]) => init?.method === 'PATCH')
    expect(sentJson(patch?.[1])).toEqual({ label: 'tight stops' })
  })

  it('refuses a label over 80 characters before sending it', async () => {
    const user = userEvent.setup()
    const sent: unknown[] = []
    renderRun(emptyRun('old'), (label) => sent.push(label))
    await user.click(await screen.findByRole('button', { name: 'Rename backtest #4' }))
    const field = screen.getByRole('textbox', { name: 'Label of backtest #4' })
    await user.clear(field)
    await user.type(field, 'x'.repeat(81))
    expect(screen.getByRole('alert')).toHaveTextContent('At most 80 characters.')
    expect(field).toHaveAttribute('aria-invalid', 'true')
    await user.keyboard('{Enter}')
    expect(sent).toEqual([])
  })
})
