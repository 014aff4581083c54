import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react'
import { LiveContext, type LiveContextValue } from '@/lib/live/live-context'
import { LiveSocket, liveUrl, type LiveStatus } from '@/lib/live/live-socket'
import type { ServerMessage } from '@/lib/live/messages'
import { getToken, subscribeSession } from '@/lib/session'

/** Turns one live message into query-cache updates (the app wires the features' owners). */
export type LiveMessageHandler = (queryClient: QueryClient, message: ServerMessage) => void

type LiveProviderProps = {
  onMessage: LiveMessageHandler
  children: ReactNode
}

/**
 * The one live connection of the authenticated app. It opens while a token is stored and closes
 * for good (no reconnect) when the token goes (logout, a 401) or the provider unmounts; a new
 * token (another login) opens a new connection.
 */
export function LiveProvider({ onMessage, children }: LiveProviderProps) {
  const queryClient = useQueryClient()
  const token = useSyncExternalStore(subscribeSession, getToken, () => null)
  const [status, setStatus] = useState<LiveStatus>('disconnected')
  const [lostSince, setLostSince] = useState<number | null>(null)
  const socketRef = useRef<LiveSocket | null>(null)
  const onMessageRef = useRef(onMessage)

  useEffect(() => {
    onMessageRef.current = onMessage
  }, [onMessage])

  useEffect(() => {
    if (token === null) return
    const socket = new LiveSocket({
      url: liveUrl(),
      getToken,
      onMessage: (message) => {
        onMessageRef.current(queryClient, message)
      },
      onStatusChange: setStatus,
      onLostSinceChange: setLostSince,
    })
    socketRef.current = socket
    socket.start()
    return () => {
      socket.stop()
      if (socketRef.current === socket) socketRef.current = null
    }
  }, [token, queryClient])

  // Back to the tab or back online: try at once rather than at the next 30 s try.
  useEffect(() => {
    const retry = () => socketRef.current?.retryNow()
    const onVisible = () => {
      if (document.visibilityState === 'visible') retry()
    }
    window.addEventListener('focus', retry)
    window.addEventListener('online', retry)
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      window.removeEventListener('focus', retry)
      window.removeEventListener('online', retry)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [])

  const value = useMemo<LiveContextValue>(
    () => ({
      status,
      lostSince,
      retryNow: () => socketRef.current?.retryNow(),
      requestSignals: () => socketRef.current?.send({ action: 'get_signals' }) ?? false,
      requestTrades: () => socketRef.current?.send({ action: 'get_trades' }) ?? false,
    }),
    [status, lostSince],
  )

  return <LiveContext value={value}>{children}</LiveContext>
}
