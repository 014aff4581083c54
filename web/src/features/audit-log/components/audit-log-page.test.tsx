import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { AuditEntry, TimeZone } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'

function entry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    at: '2026-11-27T09:30:00Z',
    action: 'login',
    detail: { via: 'browser' },
    address: '203.0.113.7',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0',
    ...overrides,
  }
}

type Reply = { status: number; body: unknown }

/** A server answering the audit log from `pages` by `before` (none: the first), and the settings. */
function auditServer(pages: Record<string, Reply>, zone: TimeZone = 'Asia/Tokyo') {
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord({ user_timezone: zone })] }),
    'GET /api/audit-log/': ({ url }) => {
      const before = new URLSearchParams(url.split('?')[1] ?? '').get('before') ?? 'first'
      return pages[before] ?? { status: 404, body: { error: 'Not found' } }
    },
  })
  const auditCalls = () =>
    fetchMock.mock.calls
      .map(([url]) => (typeof url === 'string' ? url : ''))
      .filter((url) => url.startsWith('/api/audit-log/'))
  return { auditCalls }
}

async function openAuditLog() {
  storeSession()
  renderApp('/audit-log')
  await screen.findByRole('heading', { level: 1, name: 'Audit log' })
}

function bodyRows() {
  return within(screen.getByRole('table', { name: 'Audit log' }))
    .getAllByRole('row')
    .slice(1)
}

describe('audit log page', () => {
  it('lists time in the settings time zone, readable action, details, address and a truncated agent', async () => {
    const changed = entry(3, {
      action: 'settings_changed',
      detail: {
        changes: [
          { field: 'max_trades', old: 3, new: 4 },
          { field: 'symbols', old: [], new: ['BTCUSDT', 'ETHUSDT'] },
        ],
      },
    })
    const { auditCalls } = auditServer({
      first: {
        status: 200,
        body: {
          entries: [
            changed,
            entry(2, { action: 'login_failed', detail: { reason: 'otp', username: 'admin' } }),
            entry(1, { action: 'bot_stopped', detail: {}, address: 'telegram', user_agent: null }),
          ],
          next_before: null,
        },
      },
    })
    await openAuditLog()
    expect(await screen.findByRole('columnheader', { name: 'Time (Asia/Tokyo)' })).toBeInTheDocument()
    for (const name of ['Action', 'Details', 'Address', 'User agent']) {
      expect(screen.getByRole('columnheader', { name })).toBeInTheDocument()
    }
    const [first, second, third] = bodyRows()
    if (!first || !second || !third) throw new Error('three rows expected')
    const cells = within(first).getAllByRole('cell')
    const tokyo = new Intl.DateTimeFormat('en-US', {
      dateStyle: 'medium',
      timeStyle: 'medium',
      hourCycle: 'h23',
      timeZone: 'Asia/Tokyo',
    }).format(new Date(changed.at))
    expect(cells[0]).toHaveTextContent(tokyo)
    expect(cells[1]).toHaveTextContent('Settings changed')
    expect(cells[2]).toHaveTextContent('max_trades: 3 → 4')
    expect(cells[2]).toHaveTextContent('symbols: — → BTCUSDT, ETHUSDT')
    expect(cells[3]).toHaveTextContent('203.0.113.7')
    expect(cells[4]).toHaveAttribute('title', changed.user_agent)
    expect(cells[4]?.textContent).toHaveLength(40)
    expect(cells[4]?.textContent.endsWith('…')).toBe(true)
    expect(within(second).getAllByRole('cell')[1]).toHaveTextContent('Failed login')
    expect(within(second).getAllByRole('cell')[2]).toHaveTextContent('Wrong two-factor code, user "admin"')
    expect(within(third).getAllByRole('cell')[3]).toHaveTextContent('telegram')
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument()
    expect(auditCalls()).toEqual(['/api/audit-log/?limit=50'])
  })

  it('loads older rows with before = next_before, appended below', async () => {
    const { auditCalls } = auditServer({
      first: { status: 200, body: { entries: [entry(9), entry(8)], next_before: 8 } },
      '8': {
        status: 200,
        body: { entries: [entry(5, { action: 'logout', detail: { session_id: 4 } })], next_before: null },
      },
    })
    await openAuditLog()
    await userEvent.click(await screen.findByRole('button', { name: 'Load more' }))
    await waitFor(() => {
      expect(bodyRows()).toHaveLength(3)
    })
    const [, , older] = bodyRows()
    if (!older) throw new Error('the older row is missing')
    expect(within(older).getAllByRole('cell')[2]).toHaveTextContent('Session #4')
    expect(auditCalls()).toEqual(['/api/audit-log/?limit=50', '/api/audit-log/?limit=50&before=8'])
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument()
  })

  it('keeps the rows and says so when a later page fails', async () => {
    auditServer({
      first: { status: 200, body: { entries: [entry(9)], next_before: 9 } },
      '9': { status: 500, body: { error: 'Internal server error.' } },
    })
    await openAuditLog()
    await userEvent.click(await screen.findByRole('button', { name: 'Load more' }))
    expect(await screen.findByText('Failed to load more rows')).toBeInTheDocument()
    expect(bodyRows()).toHaveLength(1)
  })

  it('shows the empty state', async () => {
    auditServer({ first: { status: 200, body: { entries: [], next_before: null } } })
    await openAuditLog()
    expect(await screen.findByText('Nothing recorded yet.')).toBeInTheDocument()
  })

  it('shows the failure with the server message and retries', async () => {
    let fail = true
    stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
      'GET /api/audit-log/': () =>
        fail
          ? { status: 503, body: { error: 'Database unreachable.' } }
          : { status: 200, body: { entries: [entry(1)], next_before: null } },
    })
    await openAuditLog()
    expect(await screen.findByText('Failed to load the audit log', {}, { timeout: 5000 })).toBeInTheDocument()
    expect(screen.getByText('Database unreachable.')).toBeInTheDocument()
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('table', { name: 'Audit log' })).toBeInTheDocument()
  })

  it('is linked among the other pages after the four spec links, and from the Security section', async () => {
    auditServer({ first: { status: 200, body: { entries: [], next_before: null } } })
    storeSession()
    renderApp('/settings')
    await screen.findByRole('heading', { level: 1, name: 'Настройки торговли' })
    const security = await screen.findByRole('link', { name: 'View the audit log' })
    expect(security).toHaveAttribute('href', '/audit-log')
    await userEvent.click(screen.getByRole('button', { name: 'Open menu' }))
    const nav = screen.getByRole('navigation', { name: 'Main navigation' })
    const links = within(nav)
      .getAllByRole('link')
      .map((link) => [link.textContent, link.getAttribute('href')])
    expect(links).toEqual([
      ['Bot Status', '/dashboard'],
      ['Statistics', '/stats'],
      ['API Keys', '/api-keys'],
      ['Settings', '/settings'],
    ])
    // The other pages have a navigation of their own after the spec's four links.
    const more = screen.getByRole('navigation', { name: 'More pages' })
    expect(within(more).getByRole('link', { name: 'Audit log' })).toHaveAttribute('href', '/audit-log')
  })
})
