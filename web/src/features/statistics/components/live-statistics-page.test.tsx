import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { formatMoney } from '@/features/statistics/utils/format-money'
import { admin, storeSession } from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'

const statistics = {
  total_trades: 20,
  winning_trades: 13,
  losing_trades: 7,
  win_rate: 65.04,
  total_profit: 152.456,
  average_profit: -7.6228,
  max_drawdown: 12.345,
}

async function openStatistics() {
  const fetchMock = stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: admin }) })
  storeSession()
  renderApp('/statistics')
  await screen.findByRole('heading', { level: 1, name: 'Live Trading Statistics' })
  return fetchMock
}

describe('live statistics page', () => {
  it('shows "Loading..." until the statistics message arrives, then the cards', async () => {
    await openStatistics()
    expect(screen.getByRole('status')).toHaveTextContent('Loading...')
    openLive()
    liveSend({ type: 'statistics', data: statistics })
    expect(await screen.findByRole('group', { name: 'Total Trades' })).toHaveTextContent('20')
    expect(screen.getByRole('group', { name: 'Win Rate %' })).toHaveTextContent('65.0%')
    expect(screen.getByRole('group', { name: 'Total Profit $' })).toHaveTextContent('$152.46')
    expect(screen.getByRole('group', { name: 'Total Profit $' }).lastElementChild).toHaveClass('text-success')
    expect(screen.getByRole('group', { name: 'Average Profit $' })).toHaveTextContent('-$7.62')
    expect(screen.getByRole('group', { name: 'Average Profit $' }).lastElementChild).toHaveClass(
      'text-destructive',
    )
    expect(screen.getByRole('group', { name: 'Winning Trades' })).toHaveTextContent('13')
    expect(screen.getByRole('group', { name: 'Losing Trades' })).toHaveTextContent('7')
    expect(screen.getByRole('group', { name: 'Max Drawdown %' })).toHaveTextContent('12.35%')
    expect(screen.queryByRole('status')).not.toBeInTheDocument()

    liveSend({ type: 'statistics', data: { ...statistics, total_trades: 21 } })
    await waitFor(() => {
      expect(screen.getByRole('group', { name: 'Total Trades' })).toHaveTextContent('21')
    })
  })

  it('offers 24h, 7d, 30d and all time, 24h by default, and the choice sends no request', async () => {
    const fetchMock = await openStatistics()
    const select = screen.getByRole('combobox', { name: 'Period' })
    expect(
      within(select)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['24h', '7d', '30d', 'all time'])
    expect(select).toHaveValue('24h')
    const calls = fetchMock.mock.calls.length
    await userEvent.selectOptions(select, 'all time')
    expect(select).toHaveValue('all')
    expect(fetchMock.mock.calls.length).toBe(calls)
  })

  it('formats money with 2 decimals, the sign first', () => {
    expect(formatMoney(0)).toBe('$0.00')
    expect(formatMoney(3.456)).toBe('$3.46')
    expect(formatMoney(-3)).toBe('-$3.00')
  })
})
