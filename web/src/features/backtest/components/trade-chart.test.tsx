import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { createQueryClient } from '@/lib/query-client'
import { backtestRecord, storeSession, tradeRecord } from '@/testing/fixtures'
import { fakeCharts } from '@/testing/fake-lightweight-charts'
import { stubServer } from '@/testing/render-app'
import type { TradeChart } from '@/types/api'
import { BacktestResultView } from '@/features/backtest/components/backtest-result'

const T0 = 1767225600000
const MIN5 = 300_000

const trade = tradeRecord({
  id: 11,
  status: 'CLOSED',
  entry_price: 100,
  exit_price: 104,
  pnl: 4,
  stop_loss: 95,
  close_reason: 'take_profit',
  closed_at: '2026-01-01T00:15:00Z',
})

const chart: TradeChart = {
  symbol: 'BTCUSDT',
  interval_minutes: 5,
  candles: [0, 1, 2].map((i) => ({ time: T0 + i * MIN5, open: 100, high: 105, low: 99, close: 101 + i })),
  markers: [
    { time: T0 + 30_000, kind: 'entry', price: 100, label: 'Entry 100' },
    { time: T0 + MIN5 + 30_000, kind: 'take_profit', price: 103, label: 'TP 103' },
    { time: T0 + 2 * MIN5 + 30_000, kind: 'exit', price: 104, label: 'Exit 104' },
  ],
}

function renderRun(chartReply: { status: number; body: unknown } = { status: 200, body: chart }) {
  storeSession()
  const fetchMock = stubServer({
    'GET /api/backtests/3/': () => ({ status: 200, body: backtestRecord(3, [trade]) }),
    'GET /api/backtests/3/trades/11/chart/': () => chartReply,
  })
  const view = render(
    <QueryClientProvider client={createQueryClient()}>
      <BacktestResultView id={3} />
    </QueryClientProvider>,
  )
  return { fetchMock, view }
}

const chartCalls = (fetchMock: ReturnType<typeof stubServer>) =>
  fetchMock.mock.calls
    .map(([url]) => (typeof url === 'string' ? url : ''))
    .filter((url) => url.includes('/chart/'))

describe('a backtest trade’s price chart', () => {
  it('opens under the trade: candles, markers at entry, take profit and exit, price lines; closes again', async () => {
    const { fetchMock, view } = renderRun()
    const button = await screen.findByRole('button', { name: 'Chart of trade #11' })
    expect(button).toHaveAttribute('aria-expanded', 'false')
    expect(chartCalls(fetchMock)).toHaveLength(0)

    await userEvent.click(button)
    expect(button).toHaveAttribute('aria-expanded', 'true')
    const region = await screen.findByRole('region', { name: 'Price chart of trade #11' })
    const image = await within(region).findByRole('figure', {
      name: 'BTCUSDT 5-minute candles with 3 markers',
    })
    expect(image.querySelector('canvas')).toBeInTheDocument()
    expect(chartCalls(fetchMock)).toEqual(['/api/backtests/3/trades/11/chart/'])

    const made = fakeCharts.find((one) => one.container === image)
    const series = made?.series[0]
    expect(series?.kind).toBe('Candlestick')
    expect(series?.data).toHaveLength(3)
    expect(series?.data[0]).toEqual({ time: T0 / 1000, open: 100, high: 105, low: 99, close: 101 })
    expect(series?.markers).toMatchObject([
      { time: T0 / 1000, price: 100, text: 'Entry 100', shape: 'arrowUp' },
      { time: (T0 + MIN5) / 1000, price: 103, text: 'TP 103', shape: 'circle' },
      { time: (T0 + 2 * MIN5) / 1000, price: 104, text: 'Exit 104', shape: 'square' },
    ])
    expect(series?.priceLines.map((line) => [line.options.title, line.options.price])).toEqual([
      ['Entry', 100],
      ['TP 1', 103],
      ['Exit', 104],
      ['Stop', 95],
    ])
    expect(within(region).getByRole('list', { name: 'Markers' }).textContent).toContain('TP 103')

    await userEvent.click(button)
    expect(screen.queryByRole('region', { name: 'Price chart of trade #11' })).not.toBeInTheDocument()
    expect(made?.removed).toBe(true)
    view.unmount()
  })

  it('says so when the chart cannot be loaded', async () => {
    renderRun({ status: 404, body: { error: 'Not found' } })
    await userEvent.click(await screen.findByRole('button', { name: 'Chart of trade #11' }))
    await waitFor(() => {
      expect(
        within(screen.getByRole('region', { name: 'Price chart of trade #11' })).getByRole('alert'),
      ).toHaveTextContent('Failed to load the chart: Not found')
    })
  })
})
