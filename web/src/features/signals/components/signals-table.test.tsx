import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { Signal } from '@/types/api'
import { admin, storeSession } from '@/testing/fixtures'
import { liveSend, openLive, signalRecord } from '@/testing/live'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'

function signalsServer(signals: Signal[] | { status: number; body: unknown }) {
  return stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/signals/': () => (Array.isArray(signals) ? { status: 200, body: signals } : signals),
  })
}

let region: HTMLElement

async function openPage() {
  storeSession()
  renderApp('/trading-signals')
  region = await screen.findByRole('region', { name: 'Trading Signals' })
  return within(region)
}

/** The symbols of the table, top to bottom. */
function symbols() {
  return columnTexts(region, 0)
}

describe('signals table', () => {
  it('lists Symbol and Signal in the server order, with a badge per signal', async () => {
    signalsServer([
      signalRecord('BTCUSDT', 'STRONG_BUY'),
      signalRecord('ETHUSDT', 'STRONG_SELL'),
      signalRecord('ADAUSDT', 'NEUTRAL'),
    ])
    const card = await openPage()
    expect(await card.findByRole('cell', { name: 'BTCUSDT' })).toBeInTheDocument()
    expect(card.getByRole('columnheader', { name: 'Symbol' })).toBeInTheDocument()
    expect(card.getByRole('columnheader', { name: 'Signal' })).toBeInTheDocument()
    expect(symbols()).toEqual(['BTCUSDT', 'ETHUSDT', 'ADAUSDT'])
    expect(card.getByRole('heading', { name: 'Trading Signals' })).toBeInTheDocument()

    expect(card.getByText('STRONG_BUY')).toHaveClass('text-success')
    expect(card.getByText('STRONG_SELL')).toHaveClass('text-destructive')
    const neutral = card.getByText('NEUTRAL')
    expect(neutral).toHaveClass('bg-secondary')
    expect(neutral).not.toHaveClass('text-success')
    expect(neutral).not.toHaveClass('text-destructive')
  })

  it('reads the value case-insensitively, shows it as sent and defaults to NEUTRAL', async () => {
    signalsServer([
      signalRecord('BTCUSDT', 'strong_buy'),
      signalRecord('ETHUSDT', 'Strong_Sell'),
      signalRecord('XRPUSDT', 'BUY'),
      signalRecord('ADAUSDT', '', { signal: '' }),
      signalRecord('SOLUSDT', '', { signal: 'STRONG_SELL' }),
    ])
    const card = await openPage()
    expect(await card.findByText('strong_buy')).toHaveClass('text-success')
    expect(card.getByText('Strong_Sell')).toHaveClass('text-destructive')
    expect(card.getByText('BUY')).toHaveClass('bg-secondary')
    expect(card.getByText('NEUTRAL')).toHaveClass('bg-secondary')
    // `signal` is the other name of `recommendation`.
    expect(card.getByText('STRONG_SELL')).toHaveClass('text-destructive')
  })

  it('says "No signals available" for an empty list', async () => {
    signalsServer([])
    const card = await openPage()
    expect(await card.findByText('No signals available')).toBeInTheDocument()
    expect(card.queryByRole('table')).not.toBeInTheDocument()
  })

  it('shows a loading state, then an error state when the list cannot be loaded', async () => {
    signalsServer({ status: 404, body: { error: 'Not found' } })
    const card = await openPage()
    expect(card.getByRole('status')).toHaveTextContent('Loading...')
    expect(await card.findByRole('alert')).toHaveTextContent('Failed to load signals')
    expect(card.getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })

  it('a signals_update message replaces the whole list', async () => {
    signalsServer([signalRecord('BTCUSDT', 'STRONG_BUY'), signalRecord('ETHUSDT')])
    const card = await openPage()
    await card.findByRole('cell', { name: 'BTCUSDT' })
    openLive()
    liveSend({
      type: 'signals_update',
      signals: [signalRecord('SOLUSDT', 'STRONG_SELL'), signalRecord('DOGEUSDT')],
    })
    await waitFor(() => {
      expect(symbols()).toEqual(['SOLUSDT', 'DOGEUSDT'])
    })
    expect(card.getByText('STRONG_SELL')).toHaveClass('text-destructive')

    liveSend({ type: 'signals_update', signals: [] })
    expect(await card.findByText('No signals available')).toBeInTheDocument()
  })

  it('a signal message removes the same symbol and puts the new one first', async () => {
    signalsServer([
      signalRecord('BTCUSDT', 'STRONG_BUY'),
      signalRecord('ETHUSDT', 'STRONG_SELL'),
      signalRecord('ADAUSDT'),
    ])
    const card = await openPage()
    await card.findByRole('cell', { name: 'BTCUSDT' })
    openLive()

    liveSend({ type: 'signal', ...signalRecord('ADAUSDT', 'STRONG_BUY') })
    await waitFor(() => {
      expect(symbols()).toEqual(['ADAUSDT', 'BTCUSDT', 'ETHUSDT'])
    })
    const [, first] = card.getAllByRole('row')
    if (!first) throw new Error('The table has no body row')
    expect(within(first).getByText('STRONG_BUY')).toHaveClass('text-success')

    liveSend({ type: 'signal', ...signalRecord('XRPUSDT', 'STRONG_SELL') })
    await waitFor(() => {
      expect(symbols()).toEqual(['XRPUSDT', 'ADAUSDT', 'BTCUSDT', 'ETHUSDT'])
    })
  })

  it('caps the list at 50', async () => {
    const many = Array.from({ length: 60 }, (_, i) => signalRecord(`S${String(i).padStart(2, '0')}USDT`))
    signalsServer(many.slice(0, 3))
    const card = await openPage()
    await card.findByRole('cell', { name: 'S00USDT' })
    openLive()

    liveSend({ type: 'signals_update', signals: many })
    await waitFor(() => {
      expect(symbols()).toEqual(many.slice(0, 50).map((signal) => signal.symbol))
    })

    liveSend({ type: 'signal', ...signalRecord('NEWUSDT', 'STRONG_BUY') })
    await card.findByRole('cell', { name: 'NEWUSDT' })
    const after = symbols()
    expect(after).toHaveLength(50)
    expect(after[0]).toBe('NEWUSDT')
    expect(after).not.toContain('S49USDT')
    expect(after.at(-1)).toBe('S48USDT')
  })

  it('caps the first answer at 50 too', async () => {
    signalsServer(Array.from({ length: 55 }, (_, i) => signalRecord(`S${String(i).padStart(2, '0')}USDT`)))
    const card = await openPage()
    await card.findByRole('cell', { name: 'S00USDT' })
    expect(symbols()).toHaveLength(50)
  })

  it('ignores an invalid message and keeps the list', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    signalsServer([signalRecord('BTCUSDT', 'STRONG_BUY')])
    const card = await openPage()
    await card.findByRole('cell', { name: 'BTCUSDT' })
    openLive()
    liveSend('{"type": "signals_update", "signals": [', {
      type: 'signals_update',
      signals: [{ symbol: 'X' }],
    })
    // A valid message after them still goes through, so the invalid ones really were dropped.
    liveSend({ type: 'signal', ...signalRecord('ETHUSDT', 'STRONG_SELL') })
    await waitFor(() => {
      expect(symbols()).toEqual(['ETHUSDT', 'BTCUSDT'])
    })
    expect(warn).toHaveBeenCalledTimes(2)
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })
})
