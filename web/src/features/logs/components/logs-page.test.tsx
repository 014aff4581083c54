import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { LogEntry, LogLevel } from '@/types/api'
import { admin, storeSession } from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'
import { browserTimeZone, formatDateTime } from '@/lib/user-time'

function logEntry(id: number, level: LogLevel = 'info', message = `entry ${id}`): LogEntry {
  const timestamp = new Date(Date.UTC(2026, 10, 22, 4, 0, 0) + id * 1000).toISOString()
  return { id, timestamp, level, message }
}

/** A log server: newest first, filtered by `level` like the real one. */
function logsServer(entries: LogEntry[] | { status: number; body: unknown }) {
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/logs/': ({ url }) => {
      if (!Array.isArray(entries)) return entries
      const level = new URLSearchParams(url.split('?')[1] ?? '').get('level')
      return { status: 200, body: entries.filter((entry) => !level || entry.level === level) }
    },
  })
  const logCalls = () =>
    fetchMock.mock.calls
      .map(([url]) => (typeof url === 'string' ? url : ''))
      .filter((url) => url.startsWith('/api/logs/'))
  return { logCalls }
}

async function openLogs() {
  storeSession()
  renderApp('/logs')
  await screen.findByRole('heading', { level: 1, name: 'Trading Logs' })
}

/** The Message cells of the rendered rows, top to bottom (the windowing spacers have none). */
function messages() {
  return columnTexts(screen.getByRole('table', { name: 'Trading Logs' }), 2).filter(
    (text) => text !== undefined,
  )
}

/** The entry rows in the DOM (the window), not the spacers. */
function renderedRows() {
  return screen.getAllByRole('row', { hidden: true }).filter((row) => row.hasAttribute('data-row-key'))
}

/** Scrolls the log's own scroll container (jsdom does no layout: the position is set by hand). */
function scrollLogTo(scrollTop: number) {
  const scroller = screen.getByTestId('logs-scroller')
  Object.defineProperty(scroller, 'scrollTop', { configurable: true, value: scrollTop })
  fireEvent.scroll(scroller)
}

const serverLog = [
  logEntry(3, 'error', 'Order rejected'),
  logEntry(2, 'warning', 'Skipped ETHUSDT'),
  logEntry(1, 'info', 'Bot started'),
]

describe('logs page', () => {
  it('lists Time, Level and Message, newest first, the time in the settings zone (the browser zone while unread)', async () => {
    const { logCalls } = logsServer(serverLog)
    await openLogs()
    expect(await screen.findByText('Order rejected')).toBeInTheDocument()
    expect(screen.getByRole('columnheader', { name: 'Time' })).toBeInTheDocument()
    expect(screen.getByRole('columnheader', { name: 'Level' })).toBeInTheDocument()
    expect(screen.getByRole('columnheader', { name: 'Message' })).toBeInTheDocument()
    expect(messages()).toEqual(['Order rejected', 'Skipped ETHUSDT', 'Bot started'])
    const first = screen.getAllByRole('row')[1]
    if (!first) throw new Error('The table has no body row')
    expect(within(first).getAllByRole('cell')[0]).toHaveTextContent(
      formatDateTime(serverLog[0]?.timestamp ?? '', browserTimeZone(), { seconds: true }),
    )
    expect(logCalls()).toEqual(['/api/logs/?limit=1000'])
  })

  it('colours the level badges: red for error, yellow for warning, green otherwise', async () => {
    logsServer(serverLog)
    await openLogs()
    const table = within(await screen.findByRole('table', { name: 'Trading Logs' }))
    expect(table.getByText('error')).toHaveClass('text-destructive')
    expect(table.getByText('warning')).toHaveClass('text-amber-800')
    const info = table.getByText('info')
    expect(info).toHaveClass('text-success')
    expect(info).not.toHaveClass('text-destructive')
    expect(table.getByText('warning')).not.toHaveClass('text-success')
  })

  it('filters by level with All Levels, Info, Warning, Error', async () => {
    const { logCalls } = logsServer(serverLog)
    await openLogs()
    await screen.findByText('Order rejected')
    const select = screen.getByRole('combobox', { name: 'Level' })
    expect(
      within(select)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['All Levels', 'Info', 'Warning', 'Error'])
    expect(select).toHaveValue('all')

    await userEvent.selectOptions(select, 'Error')
    await waitFor(() => {
      expect(messages()).toEqual(['Order rejected'])
    })
    expect(logCalls()).toContain('/api/logs/?level=error&limit=1000')

    await userEvent.selectOptions(select, 'Warning')
    await waitFor(() => {
      expect(messages()).toEqual(['Skipped ETHUSDT'])
    })
    expect(logCalls()).toContain('/api/logs/?level=warning&limit=1000')

    await userEvent.selectOptions(select, 'Info')
    await waitFor(() => {
      expect(messages()).toEqual(['Bot started'])
    })

    await userEvent.selectOptions(select, 'All Levels')
    await waitFor(() => {
      expect(messages()).toEqual(['Order rejected', 'Skipped ETHUSDT', 'Bot started'])
    })
    expect(logCalls().filter((url) => url.includes('level='))).toHaveLength(3)
  })

  it('prepends each new_log to the all list and to its own level, once', async () => {
    logsServer(serverLog)
    await openLogs()
    await screen.findByText('Order rejected')
    openLive()

    liveSend({ type: 'new_log', data: logEntry(4, 'info', 'Position opened') })
    await waitFor(() => {
      expect(messages()).toEqual(['Position opened', 'Order rejected', 'Skipped ETHUSDT', 'Bot started'])
    })
    // The same id again is not listed twice.
    liveSend({ type: 'new_log', data: logEntry(4, 'info', 'Position opened') })

    const select = screen.getByRole('combobox', { name: 'Level' })
    await userEvent.selectOptions(select, 'Warning')
    await waitFor(() => {
      expect(messages()).toEqual(['Skipped ETHUSDT'])
    })
    liveSend({ type: 'new_log', data: logEntry(5, 'warning', 'Margin low') })
    await waitFor(() => {
      expect(messages()).toEqual(['Margin low', 'Skipped ETHUSDT'])
    })
    // An entry of another level stays out of this list (messages are handled in order).
    liveSend(
      { type: 'new_log', data: logEntry(6, 'error', 'Venue error') },
      { type: 'new_log', data: logEntry(7, 'warning', 'Margin still low') },
    )
    await waitFor(() => {
      expect(messages()).toEqual(['Margin still low', 'Margin low', 'Skipped ETHUSDT'])
    })
  })

  it('keeps at most 1000 entries, dropping the oldest, and renders only a window of them', async () => {
    const thousand = Array.from({ length: 1000 }, (_, i) => logEntry(1000 - i))
    logsServer(thousand)
    await openLogs()
    await screen.findByText('entry 1000')
    // The whole buffer is the table's (aria-rowcount counts the header row), a window is in the DOM.
    const table = screen.getByRole('table', { name: 'Trading Logs' })
    expect(table).toHaveAttribute('aria-rowcount', '1001')
    expect(renderedRows().length).toBeGreaterThan(5)
    expect(renderedRows().length).toBeLessThan(60)

    openLive()
    liveSend({ type: 'new_log', data: logEntry(1001, 'error', 'newest') })
    await screen.findByText('newest')
    expect(table).toHaveAttribute('aria-rowcount', '1001')
    const top = messages()
    expect(top[0]).toBe('newest')
    expect(top[1]).toBe('entry 1000')
    expect(renderedRows().length).toBeLessThan(60)

    // At the bottom of the list: the oldest kept entry, and the dropped one nowhere.
    scrollLogTo(1000 * 45)
    await waitFor(() => {
      expect(messages().at(-1)).toBe('entry 2')
    })
    expect(renderedRows().length).toBeLessThan(60)
    expect(screen.queryByText('newest')).not.toBeInTheDocument()
    expect(screen.queryByText('entry 1')).not.toBeInTheDocument()
    expect(renderedRows()[0]).toHaveAttribute('aria-rowindex')
  }, 15_000)

  it('filters a long log by level and still renders only a window', async () => {
    // Every tenth entry is a warning: 100 of 1000.
    const thousand = Array.from({ length: 1000 }, (_, i) =>
      logEntry(1000 - i, (1000 - i) % 10 === 0 ? 'warning' : 'info'),
    )
    logsServer(thousand)
    await openLogs()
    await screen.findByText('entry 1000')
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Level' }), 'Warning')
    await waitFor(() => {
      expect(screen.getByRole('table', { name: 'Trading Logs' })).toHaveAttribute('aria-rowcount', '101')
    })
    expect(messages().slice(0, 3)).toEqual(['entry 1000', 'entry 990', 'entry 980'])
    expect(renderedRows().length).toBeLessThan(60)
    expect(screen.queryByText('entry 999')).not.toBeInTheDocument()
  }, 15_000)

  it('says so when there are no entries', async () => {
    logsServer([])
    await openLogs()
    expect(await screen.findByText('No logs found')).toBeInTheDocument()
    expect(screen.queryByRole('table')).not.toBeInTheDocument()
  })

  it('shows a loading state, then an error state', async () => {
    logsServer({ status: 400, body: { error: 'level must be info, warning, error or all.' } })
    await openLogs()
    expect(screen.getByRole('status')).toHaveTextContent('Loading...')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load logs')
    expect(alert).toHaveTextContent('level must be info, warning, error or all.')
  })
})
