import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import type { Alert } from '@/types/api'

const raised: Alert = {
  id: 7,
  kind: 'market_feed_stale',
  title: 'Market feed stale',
  detail: 'No price for BTCUSDT for two signal intervals (30.0 min): the market feed is stale.',
  action: 'It waits for prices to come back.',
  raised_at: '2026-11-22T04:30:00Z',
  cleared_at: null,
  active: true,
}

function serve(alerts: Alert[]) {
  stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [settingsRecord()] }),
    'GET /api/logs/': () => ({ status: 200, body: [] }),
    'GET /api/alerts/': () => ({ status: 200, body: alerts }),
  })
}

const alertsRegion = () => screen.queryByRole('region', { name: 'Alerts' })

describe('alert banner', () => {
  it('shows each raised alert with what happened, since when and what the bot does', async () => {
    serve([
      raised,
      {
        ...raised,
        id: 3,
        kind: 'lease_lost',
        title: 'Old one',
        active: false,
        cleared_at: '2026-11-21T00:00:00Z',
      },
    ])
    storeSession()
    renderApp('/logs')
    const region = await screen.findByRole('region', { name: 'Alerts' })
    const banners = within(region).getAllByRole('alert')
    expect(banners).toHaveLength(1)
    expect(banners[0]).toHaveTextContent('Market feed stale')
    expect(banners[0]).toHaveTextContent(raised.detail)
    expect(banners[0]).toHaveTextContent(/Since /)
    expect(banners[0]).toHaveTextContent(`What the bot does: ${raised.action}`)
    expect(region).not.toHaveTextContent('Old one')
  })

  it('appears on a live alert and stays until the alert is cleared', async () => {
    serve([])
    storeSession()
    renderApp('/logs')
    // The live connection opens once the session is known.
    await waitFor(() => openLive())
    expect(alertsRegion()).toBeNull()

    liveSend({ type: 'alert', data: raised })
    await waitFor(() => expect(alertsRegion()).toHaveTextContent('Market feed stale'))

    // Another alert's clearing leaves it in place.
    liveSend({
      type: 'alert',
      data: {
        ...raised,
        id: 9,
        kind: 'venue_unreachable',
        active: false,
        cleared_at: '2026-11-22T05:00:00Z',
      },
    })
    expect(alertsRegion()).toHaveTextContent('Market feed stale')

    liveSend({ type: 'alert', data: { ...raised, active: false, cleared_at: '2026-11-22T05:00:00Z' } })
    await waitFor(() => {
      expect(alertsRegion()).toBeNull()
    })
  })
})
