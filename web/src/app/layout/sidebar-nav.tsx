import {
  Activity,
  FlaskConical,
  KeyRound,
  Languages,
  LayoutDashboard,
  ListOrdered,
  LineChart,
  LogOut,
  Monitor,
  Moon,
  Radio,
  ScrollText,
  Settings,
  ShieldCheck,
  Sun,
  type LucideIcon,
} from 'lucide-react'
import { NavLink } from 'react-router'
import { useSession } from '@/features/auth/api/get-me'
import { useLogout } from '@/features/auth/api/logout'
import { useLanguage } from '@/i18n/use-language'
import { useTheme } from '@/lib/use-theme'
import { cn } from '@/lib/utils'
import { layoutStrings } from '@/app/layout/strings'

/** `label` names the link's words in the catalogue, read when the link is drawn (they follow the language). */
type NavItem = { to: string; label: keyof typeof layoutStrings.nav; icon: LucideIcon }

/** The spec's four sidebar links (section 2), in its order. */
const specItems: readonly NavItem[] = [
  { to: '/dashboard', label: 'botStatus', icon: LayoutDashboard },
  { to: '/stats', label: 'statistics', icon: LineChart },
  { to: '/api-keys', label: 'apiKeys', icon: KeyRound },
  { to: '/settings', label: 'settings', icon: Settings },
]

/**
 * The other pages (issue 33): a navigation of their own after the spec's, so the spec's sidebar
 * stays exactly its four links and every page is still one click away.
 */
const moreItems: readonly NavItem[] = [
  { to: '/trading-signals', label: 'signals', icon: Radio },
  { to: '/statistics', label: 'liveStatistics', icon: Activity },
  { to: '/trades', label: 'trades', icon: ListOrdered },
  { to: '/logs', label: 'logs', icon: ScrollText },
  { to: '/backtest', label: 'backtest', icon: FlaskConical },
  { to: '/audit-log', label: 'auditLog', icon: ShieldCheck },
]

const themeIcons = { dark: Moon, light: Sun, system: Monitor } as const

type SidebarNavProps = {
  collapsed?: boolean
  /** Called after a link is followed (the mobile drawer closes). */
  onNavigate?: () => void
}

const rowClass =
  'group relative flex h-10 w-full items-center gap-3 rounded-md px-3 text-sm font-medium text-sidebar-foreground transition-colors hover:bg-sidebar-accent hover:text-sidebar-accent-foreground focus-visible:ring-2 focus-visible:ring-ring/60 focus-visible:outline-none'

/** The links, Toggle Theme, the language switch and Logout: shared by the desktop sidebar and the mobile drawer. */
export function SidebarNav({ collapsed = false, onNavigate }: SidebarNavProps) {
  const { theme, cycleTheme } = useTheme()
  const session = useSession()
  const logout = useLogout()
  const ThemeIcon = themeIcons[theme]
  const themeName = layoutStrings.themeNames[theme]
  const { language, toggleLanguage } = useLanguage()
  const languageName = layoutStrings.languageNames[language]

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex-1 overflow-y-auto px-3 py-4">
        <nav aria-label={layoutStrings.navigationLabel}>
          <NavLinks items={specItems} collapsed={collapsed} onNavigate={onNavigate} />
        </nav>
        <nav
          aria-label={layoutStrings.moreNavigationLabel}
          className="mt-4 border-t border-sidebar-border pt-4"
        >
          {collapsed ? null : (
            <p className="px-3 pb-2 text-xs font-medium text-muted-foreground">
              {layoutStrings.moreNavigationLabel}
            </p>
          )}
          <NavLinks items={moreItems} collapsed={collapsed} onNavigate={onNavigate} />
        </nav>
      </div>

      <div className="space-y-1 border-t border-sidebar-border px-3 py-3">
        {session.user && !collapsed ? (
          <p className="truncate px-3 pb-2 text-xs text-muted-foreground">
            {layoutStrings.signedInAs}{' '}
            <span className="font-medium text-sidebar-foreground">{session.user.username}</span>
          </p>
        ) : null}
        <ToggleRow
          icon={ThemeIcon}
          label={layoutStrings.toggleTheme}
          valueName={themeName}
          chip={themeName}
          collapsed={collapsed}
          onToggle={cycleTheme}
        />
        <ToggleRow
          icon={Languages}
          label={layoutStrings.toggleLanguage}
          valueName={languageName}
          chip={language}
          collapsed={collapsed}
          onToggle={toggleLanguage}
        />
        <button
          type="button"
          onClick={() => {
            logout.mutate()
          }}
          disabled={logout.isPending}
          aria-label={layoutStrings.logout}
          title={collapsed ? layoutStrings.logout : undefined}
          className={cn(
            rowClass,
            'hover:bg-destructive/10 hover:text-destructive disabled:opacity-60',
            collapsed && 'justify-center px-0',
          )}
        >
          <LogOut aria-hidden="true" className="size-[18px] shrink-0" />
          <span className={cn('truncate', collapsed && 'sr-only')}>{layoutStrings.logout}</span>
        </button>
      </div>
    </div>
  )
}

type ToggleRowProps = {
  icon: LucideIcon
  label: string
  /** The current value in words, for the tooltip ("Toggle Theme: Dark"). */
  valueName: string
  /** The current value on the chip at the row's end (hidden from screen readers, like the icon). */
  chip: string
  collapsed: boolean
  onToggle: () => void
}

/** A sidebar row that switches a preference (theme, language): icon, label and the value's chip. */
function ToggleRow({ icon: Icon, label, valueName, chip, collapsed, onToggle }: ToggleRowProps) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-label={label}
      title={`${label}: ${valueName}`}
      className={cn(rowClass, collapsed && 'justify-center px-0')}
    >
      <Icon aria-hidden="true" className="size-[18px] shrink-0" />
      {collapsed ? null : (
        <>
          <span className="truncate">{label}</span>
          <span
            aria-hidden="true"
            className="ml-auto rounded border border-sidebar-border px-1.5 py-0.5 text-[10px] tracking-wide text-muted-foreground uppercase"
          >
            {chip}
          </span>
        </>
      )}
    </button>
  )
}

type NavLinksProps = {
  items: readonly NavItem[]
  collapsed: boolean
  onNavigate?: () => void
}

function NavLinks({ items, collapsed, onNavigate }: NavLinksProps) {
  return (
    <ul className="space-y-1">
      {items.map(({ to, label: labelKey, icon: Icon }) => {
        const label = layoutStrings.nav[labelKey]
        return (
          <li key={to}>
            <NavLink
              to={to}
              onClick={onNavigate}
              title={collapsed ? label : undefined}
              className={({ isActive }) =>
                cn(
                  rowClass,
                  collapsed && 'justify-center px-0',
                  isActive &&
                    'bg-sidebar-accent text-sidebar-accent-foreground before:absolute before:inset-y-2 before:left-0 before:w-0.5 before:rounded-full before:bg-primary',
                )
              }
            >
              {({ isActive }) => (
                <>
                  <Icon
                    aria-hidden="true"
                    className={cn('size-[18px] shrink-0', isActive && 'text-primary')}
                  />
                  <span className={cn('truncate', collapsed && 'sr-only')}>{label}</span>
                </>
              )}
            </NavLink>
          </li>
        )
      })}
    </ul>
  )
}
