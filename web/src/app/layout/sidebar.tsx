import { ChevronsLeft, ChevronsRight } from 'lucide-react'
import { BrandMark } from '@/features/auth/components/brand-mark'
import { cn } from '@/lib/utils'
import { SidebarNav } from '@/app/layout/sidebar-nav'
import { layoutStrings } from '@/app/layout/strings'

type SidebarProps = {
  collapsed: boolean
  onToggleCollapsed: () => void
}

/** The desktop sidebar (768 px and wider): w-64 open, w-20 collapsed (spec section 9). */
export function Sidebar({ collapsed, onToggleCollapsed }: SidebarProps) {
  const CollapseIcon = collapsed ? ChevronsRight : ChevronsLeft
  return (
    <aside
      data-testid="sidebar"
      data-collapsed={collapsed}
      className={cn(
        'sticky top-0 hidden h-svh shrink-0 flex-col border-r border-sidebar-border bg-sidebar transition-[width] duration-200 ease-out md:flex',
        collapsed ? 'w-20' : 'w-64',
      )}
    >
      <div
        className={cn(
          'flex h-16 items-center gap-3 border-b border-sidebar-border px-5',
          collapsed && 'justify-center px-0',
        )}
      >
        <BrandMark />
        <span className={cn('truncate text-base font-semibold tracking-tight', collapsed && 'sr-only')}>
          {layoutStrings.productName}
        </span>
      </div>
      <SidebarNav collapsed={collapsed} />
      <div className="border-t border-sidebar-border px-3 py-3">
        <button
          type="button"
          onClick={onToggleCollapsed}
          aria-label={collapsed ? layoutStrings.expandSidebar : layoutStrings.collapseSidebar}
          aria-expanded={!collapsed}
          title={collapsed ? layoutStrings.expandSidebar : layoutStrings.collapseSidebar}
          className={cn(
            'flex h-9 w-full items-center gap-3 rounded-md px-3 text-sm text-muted-foreground transition-colors hover:bg-sidebar-accent hover:text-sidebar-accent-foreground focus-visible:ring-2 focus-visible:ring-ring/60 focus-visible:outline-none',
            collapsed && 'justify-center px-0',
          )}
        >
          <CollapseIcon aria-hidden="true" className="size-[18px] shrink-0" />
          {collapsed ? null : <span>{layoutStrings.collapseSidebar}</span>}
        </button>
      </div>
    </aside>
  )
}
