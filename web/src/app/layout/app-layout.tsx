import { Suspense, useState } from 'react'
import { Outlet } from 'react-router'
import { LoadingState } from '@/components/query-state'
import { authStrings } from '@/features/auth/strings'
import { LiveProvider } from '@/lib/live/live-provider'
import { DESKTOP_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { dispatchLiveMessage } from '@/app/live-dispatch'
import { ConnectionLostBanner } from '@/app/layout/connection-lost-banner'
import { DegradedBanner } from '@/app/layout/degraded-banner'
import { AlertBanner } from '@/features/alerts/components/alert-banner'
import { MobileNav } from '@/app/layout/mobile-nav'
import { Sidebar } from '@/app/layout/sidebar'

const COLLAPSED_STORAGE_KEY = 'sidebar-collapsed'

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(COLLAPSED_STORAGE_KEY) === 'true'
  } catch {
    return false
  }
}

/**
 * The frame of every protected page: sidebar (or drawer under 768 px) and the page, inside the one
 * live connection of the authenticated app (it closes when the session ends or the frame unmounts).
 */
export function AppLayout() {
  const [collapsed, setCollapsed] = useState(readCollapsed)
  const [drawerOpen, setDrawerOpen] = useState(false)
  const isDesktop = useMediaQuery(DESKTOP_QUERY)

  const toggleCollapsed = () => {
    const next = !collapsed
    setCollapsed(next)
    try {
      localStorage.setItem(COLLAPSED_STORAGE_KEY, String(next))
    } catch {
      // The choice then lasts for this page only.
    }
  }

  return (
    <LiveProvider onMessage={dispatchLiveMessage}>
      <div className="flex min-h-svh">
        <Sidebar collapsed={collapsed} onToggleCollapsed={toggleCollapsed} />
        <div className="flex min-w-0 flex-1 flex-col">
          <MobileNav open={drawerOpen && !isDesktop} onOpenChange={setDrawerOpen} />
          <ConnectionLostBanner />
          <DegradedBanner />
          <AlertBanner />
          <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 md:px-8 md:py-8">
            {/* A page's code arrives on its first visit (router.tsx); the frame stays. */}
            <Suspense fallback={<LoadingState label={authStrings.loading} className="min-h-40 py-0" />}>
              <Outlet />
            </Suspense>
          </main>
        </div>
      </div>
    </LiveProvider>
  )
}
