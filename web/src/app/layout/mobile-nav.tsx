import { Menu } from 'lucide-react'
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from '@/components/ui/sheet'
import { BrandMark } from '@/features/auth/components/brand-mark'
import { SidebarNav } from '@/app/layout/sidebar-nav'
import { layoutStrings } from '@/app/layout/strings'

type MobileNavProps = {
  open: boolean
  onOpenChange: (open: boolean) => void
}

/**
 * Under 768 px: a top bar with the menu button; the sidebar is a drawer that closes on a click
 * outside, on Escape or when a link is followed.
 */
export function MobileNav({ open, onOpenChange }: MobileNavProps) {
  return (
    <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-sidebar-border bg-sidebar/95 px-3 backdrop-blur md:hidden">
      <Sheet open={open} onOpenChange={onOpenChange}>
        <SheetTrigger asChild>
          <button
            type="button"
            aria-label={layoutStrings.openMenu}
            className="inline-flex size-9 items-center justify-center rounded-md text-sidebar-foreground hover:bg-sidebar-accent focus-visible:ring-2 focus-visible:ring-ring/60 focus-visible:outline-none"
          >
            <Menu aria-hidden="true" className="size-5" />
          </button>
        </SheetTrigger>
        <SheetContent side="left" className="w-64">
          <div className="flex h-14 items-center gap-3 border-b border-sidebar-border px-5">
            <BrandMark />
            <SheetTitle className="truncate tracking-tight">{layoutStrings.productName}</SheetTitle>
            <SheetDescription className="sr-only">{layoutStrings.navigationTitle}</SheetDescription>
          </div>
          <SidebarNav
            onNavigate={() => {
              onOpenChange(false)
            }}
          />
        </SheetContent>
      </Sheet>
      <div className="flex items-center gap-2">
        <BrandMark className="size-7" />
        <span className="font-semibold tracking-tight">{layoutStrings.productName}</span>
      </div>
    </header>
  )
}
