import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { LiveStatistics } from '@/types/api'
import { admin, storeSession } from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'

const statistics: LiveStatistics = {
  total_trades: 20,
  winning_trades: 13,
  losing_trades: 7,
  win_rate: 65.04,
  total_profit: 152.456,
  average_profit: -7.6228,
  max_drawdown: 12.345,
}

type Reply = { status: number; body: unknown }

/** GET /api/statistics/?period=… answers `byPeriod[period]` (changeable during the test). */
function statisticsServer(byPeriod: Record<string, LiveStatistics | (() => Promise<Reply>)>) {
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/statistics/': ({ url }) => {
      const period = new URL(url, 'http://localhost').searchParams.get('period') ?? ''
      const answer = byPeriod[period]
      if (typeof answer === 'function') return answer()
      return answer ? { status: 200, body: answer } : { status: 400, body: { error: 'Unknown period' } }
    },
  })
  const calls = () =>
    fetchMock.mock.calls
      .map(([url]) => (typeof url === 'string' ? url : ''))
      .filter((url) => url.startsWith('/api/statistics/'))
  return { calls }
}

async function openStatistics() {
  storeSession()
  renderApp('/statistics')
  await screen.findByRole('heading', { level: 1, name: 'Live Trading Statistics' })
}

const card = (name: string) => screen.getByRole('group', { name })

describe('live statistics page', () => {
  it('shows "Loading..." until the 24h figures arrive, then the seven cards', async () => {
    let answer: (reply: Reply) => void = () => undefined
    const pending = new Promise<Reply>((resolve) => {
      answer = resolve
    })
    const server = statisticsServer({ '24h': () => pending })
    await openStatistics()
    expect(screen.getByRole('status')).toHaveTextContent('Loading...')
    await waitFor(() => {
      expect(server.calls()).toEqual(['/api/statistics/?period=24h'])
    })
    answer({ status: 200, body: statistics })

    expect(await screen.findByRole('group', { name: 'Total Trades' })).toHaveTextContent('20')
    expect(card('Win Rate %')).toHaveTextContent('65.0%')
    expect(within(card('Total Profit $')).getByText('152.46 USDT')).toHaveClass('text-success')
    expect(within(card('Average Profit $')).getByText('-7.62 USDT')).toHaveClass('text-destructive')
    expect(card('Winning Trades')).toHaveTextContent('13')
    expect(card('Losing Trades')).toHaveTextContent('7')
    expect(card('Max Drawdown %')).toHaveTextContent('12.35%')
    expect(screen.queryByRole('status')).not.toBeInTheDocument()
  })

  it('offers 24h, 7d, 30d and all time, 24h by default, and asks for the chosen period', async () => {
    const server = statisticsServer({ '24h': statistics, '7d': { ...statistics, total_trades: 70 } })
    await openStatistics()
    const select = screen.getByRole('combobox', { name: 'Period' })
    expect(
      within(select)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['24h', '7d', '30d', 'all time'])
    expect(select).toHaveValue('24h')
    expect(await screen.findByRole('group', { name: 'Total Trades' })).toHaveTextContent('20')

    await userEvent.selectOptions(select, '7d')
    await waitFor(() => {
      expect(card('Total Trades')).toHaveTextContent('70')
    })
    expect(server.calls()).toEqual(['/api/statistics/?period=24h', '/api/statistics/?period=7d'])
  })

  it('a live statistics message (all time) refetches the chosen period instead of overwriting it', async () => {
    const byPeriod: Record<string, LiveStatistics> = { '24h': statistics }
    const server = statisticsServer(byPeriod)
    await openStatistics()
    expect(await screen.findByRole('group', { name: 'Total Trades' })).toHaveTextContent('20')

    byPeriod['24h'] = { ...statistics, total_trades: 21 }
    openLive()
    liveSend({ type: 'statistics', data: { ...statistics, total_trades: 500 } })
    await waitFor(() => {
      expect(card('Total Trades')).toHaveTextContent('21')
    })
    expect(card('Total Trades')).not.toHaveTextContent('500')
    expect(server.calls()).toEqual(['/api/statistics/?period=24h', '/api/statistics/?period=24h'])
  })

  it('shows a live statistics message as it is for all time, without a request', async () => {
    const server = statisticsServer({ '24h': statistics, all: { ...statistics, total_trades: 400 } })
    await openStatistics()
    await screen.findByRole('group', { name: 'Total Trades' })
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'all time')
    await waitFor(() => {
      expect(card('Total Trades')).toHaveTextContent('400')
    })
    const callsBefore = server.calls().length

    openLive()
    liveSend({ type: 'statistics', data: { ...statistics, total_trades: 401, max_drawdown: 3 } })
    await waitFor(() => {
      expect(card('Total Trades')).toHaveTextContent('401')
    })
    expect(card('Max Drawdown %')).toHaveTextContent('3.00%')
    expect(server.calls()).toHaveLength(callsBefore)
  })

  it('says why when the figures cannot be read', async () => {
    statisticsServer({})
    await openStatistics()
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load statistics')
    expect(alert).toHaveTextContent('Unknown period')
  })
})
