import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { createQueryClient } from '@/lib/query-client'
import { backtestRecord, backtestSummary, storeSession, tradeRecord } from '@/testing/fixtures'
import { stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'
import { BacktestResultView } from '@/features/backtest/components/backtest-result'

const closed = { status: 'CLOSED' as const, exit_price: 104, closed_at: '2026-01-01T00:15:00Z' }

function renderRun() {
  storeSession()
  const trades = [
    tradeRecord({ id: 1, ...closed, pnl: 3.9, fees: 0.0825, funding: -0.0175 }),
    tradeRecord({
      id: 2,
      ...closed,
      symbol: 'ETHUSDT',
      side: 'short',
      pnl: 1.2,
      fees: 0.05,
      funding: 0.0125,
    }),
  ]
  const run = backtestRecord(4, trades)
  if (!run.result || !('summary' in run.result)) throw new Error('the fixture is not a single run')
  run.result.summary = { ...backtestSummary(), funding: -0.005 }
  stubServer({ 'GET /api/backtests/4/': () => ({ status: 200, body: run }) })
  render(
    <QueryClientProvider client={createQueryClient()}>
      <BacktestResultView id={4} />
    </QueryClientProvider>,
  )
}

describe('a backtest result', () => {
  it('reports the funding the run paid beside its fees, and each trade’s fees and funding', async () => {
    renderRun()
    const table = await screen.findByRole('table', { name: 'Trades' })
    const headings = within(table)
      .getAllByRole('columnheader')
      .map((cell) => cell.textContent)
    expect(headings.slice(4, 7)).toEqual(['PnL', 'Fees', 'Funding'])
    // Newest first.
    expect(columnTexts(table, 5)).toEqual(['0.0500', '0.0825'])
    expect(columnTexts(table, 6)).toEqual(['0.0125', '-0.0175'])
    expect(within(table).getByText('-0.0175')).toHaveClass('text-destructive')

    const tile = screen
      .getByText('Funding', { selector: ':not(th)' })
      .closest<HTMLElement>('[data-slot="card"]')
    if (!tile) throw new Error('the Funding tile is not a card')
    expect(within(tile).getByText('-0.01')).toBeInTheDocument()
  })
})
