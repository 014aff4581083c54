import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Outlet, useNavigate } from 'react-router'
import { setUnauthorizedHandler } from '@/lib/api-client'

/**
 * The root route: makes the API client's 401 (and opted-in 403) handling a router navigation to
 * /login, after dropping every cached query of the old session.
 */
export function RootLayout() {
  const navigate = useNavigate()
  const queryClient = useQueryClient()

  useEffect(
    () =>
      setUnauthorizedHandler(() => {
        queryClient.removeQueries()
        if (window.location.pathname !== '/login') void navigate('/login', { replace: true })
      }),
    [navigate, queryClient],
  )

  return <Outlet />
}
