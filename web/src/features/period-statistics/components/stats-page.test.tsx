import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { daysBefore, zonedDate, type Chain } from '@/features/period-statistics/api/get-martingale-chains'
import type { StatsResponse } from '@/features/period-statistics/api/get-stats'
import { admin, botStatusRecord, settingsRecord, storeSession, venues } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'
import { fakeCharts } from '@/testing/fake-lightweight-charts'

const stats: StatsResponse = {
  total_trades: 12,
  win_trades: 7,
  lose_trades: 5,
  win_rate: 58.33333,
  total_pnl: 123.456,
  avg_pnl: -1.2345,
  weekday: [
    { weekday: 1, pnl: 50, success: 3, fail: 1, total: 4 },
    { weekday: 2, pnl: 30, success: 1, fail: 2, total: 3 },
    { weekday: 4, pnl: -10, success: 1, fail: 1, total: 2 },
    { weekday: 7, pnl: -20, success: 2, fail: 1, total: 3 },
  ],
  hour: [
    { hour: 0, pnl: 5, success: 1, fail: 0, total: 1 },
    { hour: 9, pnl: 40, success: 2, fail: 1, total: 3 },
    { hour: 13, pnl: 12.5, success: 1, fail: 1, total: 2 },
    { hour: 17, pnl: -3, success: 0, fail: 1, total: 1 },
    { hour: 22, pnl: -30, success: 1, fail: 2, total: 3 },
  ],
  heatmap: [
    // Monday 9:00, the largest profit; Sunday 22:00, the largest loss; Wednesday 13:00, a small
    // profit; Saturday 0:00, a zero pnl.
    { weekday: 2, hour: 9, pnl: 40, total: 3 },
    { weekday: 1, hour: 22, pnl: -30, total: 3 },
    { weekday: 4, hour: 13, pnl: 5, total: 1 },
    { weekday: 7, hour: 0, pnl: 0, total: 1 },
  ],
  equity: [
    { time: '2026-11-02T09:00:00Z', pnl: 40 },
    { time: '2026-11-08T22:00:00Z', pnl: 10 },
    { time: '2026-11-11T13:00:00Z', pnl: 123.456 },
  ],
}

const chains: Chain[] = [
  {
    chain_id: 8,
    status: 'CLOSED',
    trades_count: 2,
    total_pnl: -0.5,
    trades: [
      { id: 81, pnl: 1.23456, created_at: '2026-11-20T10:00:00Z' },
      { id: 82, pnl: -1.73456, created_at: '2026-11-20T11:00:00Z' },
    ],
  },
  {
    chain_id: 5,
    status: 'OPEN',
    trades_count: 1,
    total_pnl: 2,
    trades: [{ id: 51, pnl: null, created_at: '2026-11-19T10:00:00Z' }],
  },
]

type Reply = { status: number; body: unknown }

function statsServer({
  statsReply = { status: 200, body: stats },
  chainsReply = { status: 200, body: { chains } },
}: { statsReply?: Reply | (() => Promise<Reply>); chainsReply?: Reply } = {}) {
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/stats/': () => (typeof statsReply === 'function' ? statsReply() : statsReply),
    'GET /api/martingale_chains/': () => chainsReply,
    'GET /api/bot-settings/': () => ({
      status: 200,
      body: [settingsRecord({ user_timezone: 'Pacific/Kiritimati' })],
    }),
    'GET /api/bot/status/': () => ({ status: 200, body: botStatusRecord({ venue: venues.demo }) }),
  })
  const calls = (prefix: string) =>
    fetchMock.mock.calls
      .map(([url]) => (typeof url === 'string' ? url : ''))
      .filter((url) => url.startsWith(prefix))
  return { statsCalls: () => calls('/api/stats/'), chainCalls: () => calls('/api/martingale_chains/') }
}

async function openStats() {
  storeSession()
  const view = renderApp('/stats')
  await screen.findByRole('heading', { level: 1, name: 'Statistics' })
  return view
}

function tile(name: string) {
  return screen.getByRole('group', { name })
}

function listRows(name: string) {
  return within(screen.getByRole('list', { name }))
    .getAllByRole('listitem')
    .map((item) => item.textContent)
}

/** matchMedia answering `matches` for the 768 px breakpoint (jsdom's answers no: a phone). */
function wide(matches: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches: query === '(min-width: 768px)' ? matches : false,
        media: query,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      }) as unknown as MediaQueryList,
  )
}

describe('stats page', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('offers the periods, This month by default, and asks for it', async () => {
    const { statsCalls, chainCalls } = statsServer()
    await openStats()
    const select = screen.getByRole('combobox', { name: 'Period' })
    expect(
      within(select)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['All', 'Last 24 hours', 'Last 3 days', 'Last 7 days', 'This month', 'Custom'])
    expect(select).toHaveValue('month')
    await screen.findByRole('group', { name: 'Total trades' })
    expect(statsCalls()).toEqual(['/api/stats/?period=month'])
    expect(chainCalls()).toEqual(['/api/martingale_chains/'])
    expect(screen.queryByLabelText('From')).not.toBeInTheDocument()
  })

  it('names the account the figures are of: the one the bot trades on now', async () => {
    statsServer()
    await openStats()
    const badge = await screen.findByText('Bybit Demo')
    expect(badge.closest('[title]')).toHaveAttribute('title', 'Figures of the account the bot trades on now')
  })

  it('shows the tiles: counts, win rate with 1 decimal and %, PnL with 2 decimals', async () => {
    statsServer()
    await openStats()
    expect(await screen.findByRole('group', { name: 'Total trades' })).toHaveTextContent('12')
    expect(tile('Winning trades')).toHaveTextContent('7')
    expect(tile('Losing trades')).toHaveTextContent('5')
    expect(tile('Win rate')).toHaveTextContent('58.3%')
    expect(tile('Total PnL')).toHaveTextContent('123.46')
    expect(tile('Average PnL')).toHaveTextContent('-1.23')
  })

  it('lists the best and worst weekdays (2) in Russian and hours (3) as H:00 with pnl, success and fail %', async () => {
    statsServer()
    await openStats()
    await screen.findByRole('list', { name: 'Best weekdays' })
    expect(listRows('Best weekdays')).toEqual([
      'Воскресенье50.0075.0% success25.0% fail',
      'Понедельник30.0033.3% success66.7% fail',
    ])
    expect(listRows('Worst weekdays')).toEqual([
      'Суббота-20.0066.7% success33.3% fail',
      'Среда-10.0050.0% success50.0% fail',
    ])
    expect(listRows('Best hours')).toEqual([
      '9:0040.0066.7% success33.3% fail',
      '13:0012.5050.0% success50.0% fail',
      '0:005.00100.0% success0.0% fail',
    ])
    expect(listRows('Worst hours')).toEqual([
      '22:00-30.0033.3% success66.7% fail',
      '17:00-3.000.0% success100.0% fail',
    ])
  })

  it('shows "No data" for an empty list', async () => {
    statsServer({ statsReply: { status: 200, body: { ...stats, weekday: [] } } })
    await openStats()
    await screen.findByRole('list', { name: 'Best hours' })
    expect(screen.getAllByText('No data')).toHaveLength(2)
    expect(screen.queryByRole('list', { name: 'Best weekdays' })).not.toBeInTheDocument()
  })

  it('shows "Loading..." while loading, then "No statistics available for this period."', async () => {
    let answer: (reply: Reply) => void = () => undefined
    const pending = new Promise<Reply>((resolve) => {
      answer = resolve
    })
    statsServer({
      statsReply: () => pending,
      chainsReply: { status: 200, body: { chains: [] } },
    })
    await openStats()
    expect(screen.getAllByRole('status')[0]).toHaveTextContent('Loading...')
    answer({
      status: 200,
      body: { ...stats, total_trades: 0, win_trades: 0, lose_trades: 0, weekday: [], hour: [] },
    })
    expect(await screen.findByText('No statistics available for this period.')).toBeInTheDocument()
    expect(screen.queryByRole('group', { name: 'Total trades' })).not.toBeInTheDocument()
  })

  it('sends the custom dates only when both are set', async () => {
    const { statsCalls, chainCalls } = statsServer()
    await openStats()
    await screen.findByRole('group', { name: 'Total trades' })
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'Custom')
    await waitFor(() => {
      expect(statsCalls()).toContain('/api/stats/?period=custom')
    })
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } })
    await waitFor(() => {
      expect(screen.getByLabelText('From')).toHaveValue('2026-11-01')
    })
    expect(statsCalls().some((url) => url.includes('date_from'))).toBe(false)
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-05' } })
    await waitFor(() => {
      expect(statsCalls()).toContain('/api/stats/?period=custom&date_from=2026-11-01&date_to=2026-11-05')
    })
    expect(chainCalls()).toContain('/api/martingale_chains/?date_from=2026-11-01&date_to=2026-11-05')
    expect(chainCalls().filter((url) => url.includes('date_'))).toHaveLength(1)
  })

  it('lists the chains with Russian headings, by first trade, PnL with 4 decimals, "-" for null, green and red', async () => {
    statsServer()
    await openStats()
    const table = await screen.findByRole('table', { name: 'Martingale chains' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['ID цепочки', 'Статус', 'Количество сделок', 'Общий PnL', 'Сделки'])
    expect(columnTexts(table, 0)).toEqual(['5', '8'])
    expect(columnTexts(table, 1)).toEqual(['Открыта', 'Закрыта'])
    expect(columnTexts(table, 2)).toEqual(['1', '2'])
    expect(columnTexts(table, 3)).toEqual(['2.0000', '-0.5000'])
    const cells = within(table)
    expect(cells.getByText('-')).not.toHaveClass('text-success')
    expect(cells.getByText('-')).not.toHaveClass('text-destructive')
    expect(cells.getByText('1.2346')).toHaveClass('text-success')
    expect(cells.getByText('-1.7346')).toHaveClass('text-destructive')
    expect(cells.getByText('81')).toBeInTheDocument()
    // 10:00 UTC in the settings zone (Pacific/Kiritimati, UTC+14), labelled with it.
    expect(cells.getByText('Nov 21, 2026, 00:00 (Pacific/Kiritimati)')).toBeInTheDocument()
  })

  it('says "No chain data" when there are no chains', async () => {
    statsServer({ chainsReply: { status: 200, body: { chains: [] } } })
    await openStats()
    expect(await screen.findByText('No chain data')).toBeInTheDocument()
    expect(screen.queryByRole('table', { name: 'Martingale chains' })).not.toBeInTheDocument()
  })

  it("asks for the chains of whole days back for Last 7 days in the user's zone, none for All", async () => {
    const { chainCalls, statsCalls } = statsServer()
    await openStats()
    await screen.findByRole('group', { name: 'Total trades' })
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'Last 7 days')
    await waitFor(() => {
      expect(statsCalls()).toContain('/api/stats/?period=7d')
    })
    // Today in the settings' user_timezone (UTC+14), which the server reads the dates in.
    const today = zonedDate(new Date(), 'Pacific/Kiritimati')
    await waitFor(() => {
      expect(chainCalls()).toContain(
        `/api/martingale_chains/?date_from=${daysBefore(today, 7)}&date_to=${today}`,
      )
    })
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'All')
    await waitFor(() => {
      expect(statsCalls()).toContain('/api/stats/?period=all')
    })
  })

  it('draws the equity curve of the period with lightweight-charts: from zero, a baseline at 0, green or red last value', async () => {
    statsServer()
    const view = await openStats()
    const curve = await screen.findByRole('region', { name: 'Equity curve' })
    const image = within(curve).getByRole('figure', { name: 'Cumulative PnL of the period over 3 points' })
    // The (fake) chart mounts its canvas in the container and gets the series in UTC seconds.
    expect(image.querySelector('canvas')).toBeInTheDocument()
    const chart = fakeCharts.find((made) => made.container === image)
    const series = chart?.series[0]
    expect(series?.kind).toBe('Baseline')
    expect(series?.options).toMatchObject({ baseValue: { type: 'price', price: 0 } })
    const start = Date.parse('2026-11-02T09:00:00Z') / 1000
    expect(series?.data).toEqual([
      { time: start - 1, value: 0 },
      { time: start, value: 40 },
      { time: Date.parse('2026-11-08T22:00:00Z') / 1000, value: 10 },
      { time: Date.parse('2026-11-11T13:00:00Z') / 1000, value: 123.456 },
    ])
    expect(series?.priceLines.map((line) => line.options.price)).toEqual([0])
    expect(chart?.options).toMatchObject({ autoSize: true })
    expect(within(curve).getByTestId('equity-last')).toHaveTextContent('123.46')
    expect(within(curve).getByTestId('equity-last')).toHaveClass('text-success')
    // The first and last times are the samples' (not the zero's).
    expect(curve.querySelectorAll('time')[0]).toHaveAttribute('datetime', '2026-11-02T09:00:00.000Z')
    expect(curve.querySelectorAll('time')[1]).toHaveAttribute('datetime', '2026-11-11T13:00:00.000Z')

    // Leaving the page disposes of the chart.
    view.unmount()
    expect(chart?.removed).toBe(true)
  })

  it("shows a losing period's last value in red", async () => {
    statsServer({
      statsReply: { status: 200, body: { ...stats, equity: [{ time: '2026-11-02T09:00:00Z', pnl: -7.5 }] } },
    })
    await openStats()
    const curve = await screen.findByRole('region', { name: 'Equity curve' })
    expect(within(curve).getByTestId('equity-last')).toHaveTextContent('-7.50')
    expect(within(curve).getByTestId('equity-last')).toHaveClass('text-destructive')
    expect(
      within(curve).getByRole('figure', { name: 'Cumulative PnL of the period over 1 point' }),
    ).toBeInTheDocument()
  })

  it('draws the weekday x hour heatmap: Monday..Sunday in Russian, 0..23, green and red by amount, a title per cell', async () => {
    wide(true)
    statsServer()
    await openStats()
    const table = await screen.findByRole('table', { name: 'PnL by weekday and hour' })
    expect(within(table).getAllByRole('row')).toHaveLength(8)
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(Array.from({ length: 24 }, (_, hour) => String(hour)))
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Понедельник', 'Вторник', 'Среда', 'Четверг', 'Пятница', 'Суббота', 'Воскресенье'])
    const monday = within(table).getByRole('rowheader', { name: 'Понедельник' }).parentElement
    const sunday = within(table).getByRole('rowheader', { name: 'Воскресенье' }).parentElement
    expect(monday?.querySelectorAll('td')).toHaveLength(24)

    const monday9 = within(table).getByTitle('Понедельник 9:00: PnL 40.00, 3 trades')
    expect(monday9).toHaveClass('bg-success')
    expect(monday?.children[10]).toBe(monday9)
    expect(within(table).getByTitle('Среда 13:00: PnL 5.00, 1 trade')).toHaveClass('bg-success/20')
    const sunday22 = within(table).getByTitle('Воскресенье 22:00: PnL -30.00, 3 trades')
    expect(sunday22).toHaveClass('bg-destructive/70')
    expect(sunday?.children[23]).toBe(sunday22)
    expect(within(table).getByTitle('Суббота 0:00: PnL 0.00, 1 trade')).toHaveClass('bg-muted-foreground/30')
    const empty = within(table).getByTitle('Вторник 5:00: no trades')
    expect(empty).toHaveClass('bg-muted')
    expect(empty.className).not.toMatch(/bg-(success|destructive)/)
  })

  it('shows neither the curve nor the heatmap for a period without trades', async () => {
    statsServer({
      statsReply: {
        status: 200,
        body: {
          ...stats,
          total_trades: 0,
          win_trades: 0,
          lose_trades: 0,
          weekday: [],
          hour: [],
          heatmap: [],
          equity: [],
        },
      },
    })
    await openStats()
    await screen.findByText('No statistics available for this period.')
    expect(screen.queryByRole('region', { name: 'Equity curve' })).not.toBeInTheDocument()
    expect(screen.queryByRole('table', { name: 'PnL by weekday and hour' })).not.toBeInTheDocument()
  })

  it('on a phone the heatmap turns on its side: 24 hour rows of the seven weekdays, so every hour fits', async () => {
    wide(false)
    statsServer()
    await openStats()
    const table = await screen.findByRole('table', { name: 'PnL by weekday and hour' })
    const rows = within(table).getAllByRole('row')
    expect(rows).toHaveLength(25)
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Понедельник', 'Вторник', 'Среда', 'Четверг', 'Пятница', 'Суббота', 'Воскресенье'])
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((th) => th.textContent),
    ).toEqual(Array.from({ length: 24 }, (_, hour) => String(hour)))
  })
})
