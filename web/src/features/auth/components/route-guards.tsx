import type { ReactNode } from 'react'
import { Navigate } from 'react-router'
import { LoadingState } from '@/components/query-state'
import { useSession } from '@/features/auth/api/get-me'
import { authStrings } from '@/features/auth/strings'

/** Protected routes: "Загрузка..." while the session is checked, /login when logged out. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const session = useSession()
  if (session.status === 'loading')
    return <LoadingState label={authStrings.loading} className="min-h-svh py-0" />
  if (session.status === 'unauthenticated') return <Navigate to="/login" replace />
  return children
}

/** / and any unknown path: /dashboard when logged in, else /login. */
export function HomeRedirect() {
  const session = useSession()
  if (session.status === 'loading')
    return <LoadingState label={authStrings.loading} className="min-h-svh py-0" />
  return <Navigate to={session.isAuthenticated ? '/dashboard' : '/login'} replace />
}
