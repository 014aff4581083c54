import { lazy, type ComponentType } from 'react'
import { createBrowserRouter, type RouteObject } from 'react-router'
import { DASHBOARD_SIGNALS_LIMIT } from '@/lib/live/constants'
import { LoginPage } from '@/features/auth/components/login-page'
import { HomeRedirect, RequireAuth } from '@/features/auth/components/route-guards'
import { SignalsTable } from '@/features/signals/components/signals-table'
import { AppLayout } from '@/app/layout/app-layout'
import { RootLayout } from '@/app/root-layout'
import { RouteError } from '@/app/route-error'

/**
 * A page loaded on its first visit (the frame shows "Загрузка..." meanwhile), so the first
 * screen does not wait for every page's code, nor for the charting library of /stats and
 * /backtest.
 */
function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(() => load().then((page) => ({ default: page })))
}

const DashboardPage = lazyPage(() =>
  import('@/features/dashboard/components/dashboard-page').then((m) => m.DashboardPage),
)
const TradingSignalsPage = lazyPage(() =>
  import('@/features/signals/components/trading-signals-page').then((m) => m.TradingSignalsPage),
)
const ApiKeysPage = lazyPage(() =>
  import('@/features/api-keys/components/api-keys-page').then((m) => m.ApiKeysPage),
)
const SettingsPage = lazyPage(() => import('@/app/settings-route').then((m) => m.SettingsRoute))
const LogsPage = lazyPage(() => import('@/features/logs/components/logs-page').then((m) => m.LogsPage))
const LiveStatisticsPage = lazyPage(() =>
  import('@/features/live-statistics/components/live-statistics-page').then((m) => m.LiveStatisticsPage),
)
const StatsPage = lazyPage(() =>
  import('@/features/period-statistics/components/stats-page').then((m) => m.StatsPage),
)
const AuditLogPage = lazyPage(() =>
  import('@/features/audit-log/components/audit-log-page').then((m) => m.AuditLogPage),
)
const TradesPage = lazyPage(() =>
  import('@/features/trades/components/trades-page').then((m) => m.TradesPage),
)
const BacktestPage = lazyPage(() =>
  import('@/features/backtest/components/backtest-page').then((m) => m.BacktestPage),
)

/** Every route of spec section 2 with its access rule, /audit-log (issue 31) and /trades (issue 33). */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteError landmark />,
    children: [
      { path: '/login', element: <LoginPage /> },
      {
        element: (
          <RequireAuth>
            <AppLayout />
          </RequireAuth>
        ),
        children: [
          {
            // A page that fails shows RouteError inside the frame: the sidebar stays.
            errorElement: <RouteError />,
            children: [
              {
                path: '/dashboard',
                element: (
                  <DashboardPage
                    signals={<SignalsTable limit={DASHBOARD_SIGNALS_LIMIT} viewAllHref="/trading-signals" />}
                  />
                ),
              },
              { path: '/trading-signals', element: <TradingSignalsPage /> },
              { path: '/api-keys', element: <ApiKeysPage /> },
              { path: '/settings', element: <SettingsPage /> },
              { path: '/logs', element: <LogsPage /> },
              { path: '/statistics', element: <LiveStatisticsPage /> },
              { path: '/stats', element: <StatsPage /> },
              { path: '/trades', element: <TradesPage /> },
              { path: '/backtest', element: <BacktestPage /> },
              { path: '/audit-log', element: <AuditLogPage /> },
            ],
          },
        ],
      },
      { path: '/', element: <HomeRedirect /> },
      { path: '*', element: <HomeRedirect /> },
    ],
  },
]

export function createAppRouter() {
  return createBrowserRouter(routes)
}
