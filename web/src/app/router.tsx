import { createBrowserRouter, type RouteObject } from 'react-router'
import { DASHBOARD_SIGNALS_LIMIT } from '@/lib/live/constants'
import { ApiKeysPage } from '@/features/api-keys/components/api-keys-page'
import { BacktestPage } from '@/features/backtest/components/backtest-page'
import { LoginPage } from '@/features/auth/components/login-page'
import { HomeRedirect, RequireAuth } from '@/features/auth/components/route-guards'
import { DashboardPage } from '@/features/dashboard/components/dashboard-page'
import { LogsPage } from '@/features/logs/components/logs-page'
import { SettingsPage } from '@/features/settings/components/settings-page'
import { SignalsTable } from '@/features/signals/components/signals-table'
import { TradingSignalsPage } from '@/features/signals/components/trading-signals-page'
import { LiveStatisticsPage } from '@/features/statistics/components/live-statistics-page'
import { StatsPage } from '@/features/stats/components/stats-page'
import { AppLayout } from '@/app/layout/app-layout'
import { RootLayout } from '@/app/root-layout'

/** Every route of spec section 2 with its access rule. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
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
          { path: '/backtest', element: <BacktestPage /> },
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
