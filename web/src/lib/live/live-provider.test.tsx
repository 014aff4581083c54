import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { LiveProvider } from '@/lib/live/live-provider'
import type { ServerMessage } from '@/lib/live/messages'
import { useLiveActions, useLiveStatus } from '@/lib/live/use-live'
import { createQueryClient } from '@/lib/query-client'
import { clearSession, setSession } from '@/lib/session'
import { admin, storeSession } from '@/testing/fixtures'
import { FakeWebSocket } from '@/testing/fake-web-socket'

function Probe() {
  const status = useLiveStatus()
  const { requestSignals, requestTrades } = useLiveActions()
  return (
    <div>
      <p>status: {status}</p>
      <button type="button" onClick={() => requestSignals()}>
        signals
      </button>
      <button type="button" onClick={() => requestTrades()}>
        trades
      </button>
    </div>
  )
}

function renderProvider(
  onMessage: (queryClient: QueryClient, message: ServerMessage) => void = () => undefined,
) {
  const queryClient = createQueryClient()
  return render(
    <QueryClientProvider client={queryClient}>
      <LiveProvider onMessage={onMessage}>
        <Probe />
      </LiveProvider>
    </QueryClientProvider>,
  )
}

describe('live provider', () => {
  it('opens one connection on the page host and reports connected / disconnected', () => {
    storeSession('tok-1')
    renderProvider()
    expect(FakeWebSocket.instances).toHaveLength(1)
    const socket = FakeWebSocket.latest()
    expect(socket.url).toBe(`ws://${window.location.host}/ws/dashboard/`)
    expect(screen.getByText('status: disconnected')).toBeInTheDocument()

    act(() => {
      socket.open()
    })
    expect(screen.getByText('status: connected')).toBeInTheDocument()
    expect(socket.sentJson()).toEqual([{ action: 'authenticate', token: 'tok-1' }])

    act(() => {
      socket.drop()
    })
    expect(screen.getByText('status: disconnected')).toBeInTheDocument()
  })

  it('hands each parsed message to onMessage with the query client', () => {
    storeSession()
    const onMessage = vi.fn()
    renderProvider(onMessage)
    const socket = FakeWebSocket.latest()
    act(() => {
      socket.open()
      socket.receive({ type: 'pong' })
    })
    expect(onMessage).toHaveBeenCalledTimes(1)
    expect(onMessage.mock.calls[0]?.[1]).toEqual({ type: 'pong' })
  })

  it('sends get_signals and get_trades', async () => {
    storeSession()
    renderProvider()
    const socket = FakeWebSocket.latest()
    act(() => {
      socket.open()
    })
    await userEvent.click(screen.getByRole('button', { name: 'signals' }))
    await userEvent.click(screen.getByRole('button', { name: 'trades' }))
    expect(socket.sentJson().slice(1)).toEqual([{ action: 'get_signals' }, { action: 'get_trades' }])
  })

  it('opens nothing without a session', () => {
    renderProvider()
    expect(FakeWebSocket.instances).toHaveLength(0)
    expect(screen.getByText('status: disconnected')).toBeInTheDocument()
  })

  it('closes for good when the session ends, and reconnects for a new login', () => {
    vi.useFakeTimers()
    try {
      storeSession()
      renderProvider()
      const socket = FakeWebSocket.latest()
      act(() => {
        socket.open()
      })

      act(() => {
        clearSession()
      })
      expect(socket.closedByClient).toBe(1000)
      expect(screen.getByText('status: disconnected')).toBeInTheDocument()
      act(() => {
        vi.advanceTimersByTime(60_000)
      })
      expect(FakeWebSocket.instances).toHaveLength(1)

      act(() => {
        setSession('tok-2', admin)
      })
      expect(FakeWebSocket.instances).toHaveLength(2)
      act(() => {
        FakeWebSocket.latest().open()
      })
      expect(FakeWebSocket.latest().sentJson()).toEqual([{ action: 'authenticate', token: 'tok-2' }])
    } finally {
      vi.useRealTimers()
    }
  })

  it('closes on unmount and does not reconnect', () => {
    vi.useFakeTimers()
    try {
      storeSession()
      const view = renderProvider()
      const socket = FakeWebSocket.latest()
      act(() => {
        socket.open()
      })
      view.unmount()
      expect(socket.closedByClient).toBe(1000)
      vi.advanceTimersByTime(60_000)
      expect(FakeWebSocket.instances).toHaveLength(1)
    } finally {
      vi.useRealTimers()
    }
  })
})
