import { useEffect, useRef, type ComponentProps } from 'react'
import { watchCellLabels } from '@/lib/phone-card-labels'
import { cn } from '@/lib/utils'

/**
 * shadcn/ui-style table parts; the wrapper scrolls sideways on narrow screens. With
 * `scrollLabel`, the wrapper is a named region that takes focus, so keyboard users can scroll
 * a table with nothing focusable in it (axe's scrollable-region-focusable). With `phoneCards`,
 * under 768 px each row is a card of "column: value" lines instead (nothing cut, no sideways
 * scroll; the header stays for screen readers).
 */
export function Table({
  className,
  scrollLabel,
  phoneCards = false,
  ...props
}: ComponentProps<'table'> & { scrollLabel?: string; phoneCards?: boolean }) {
  const tableRef = useRef<HTMLTableElement>(null)
  useEffect(() => {
    const table = tableRef.current
    if (!phoneCards || !table) return undefined
    return watchCellLabels(table)
  }, [phoneCards])
  const scrollable = scrollLabel ? { role: 'region', 'aria-label': scrollLabel, tabIndex: 0 } : undefined
  return (
    <div
      data-slot="table-container"
      className={cn(
        'relative w-full overflow-x-auto',
        scrollable && 'rounded-md focus-visible:ring-2 focus-visible:ring-ring/60 focus-visible:outline-none',
      )}
      {...scrollable}
    >
      <table
        ref={tableRef}
        data-slot="table"
        data-phone-cards={phoneCards || undefined}
        className={cn('w-full caption-bottom text-sm', className)}
        {...props}
      />
    </div>
  )
}

export function TableHeader({ className, ...props }: ComponentProps<'thead'>) {
  return <thead data-slot="table-header" className={cn('[&_tr]:border-b', className)} {...props} />
}

export function TableBody({ className, ...props }: ComponentProps<'tbody'>) {
  return <tbody data-slot="table-body" className={cn('[&_tr:last-child]:border-0', className)} {...props} />
}

export function TableRow({ className, ...props }: ComponentProps<'tr'>) {
  return (
    <tr
      data-slot="table-row"
      className={cn('border-b transition-colors hover:bg-muted/40', className)}
      {...props}
    />
  )
}

export function TableHead({ className, ...props }: ComponentProps<'th'>) {
  return (
    <th
      data-slot="table-head"
      className={cn(
        'h-10 px-2 text-left align-middle text-xs font-medium tracking-wide whitespace-nowrap text-muted-foreground uppercase sm:px-3',
        className,
      )}
      {...props}
    />
  )
}

export function TableCell({ className, ...props }: ComponentProps<'td'>) {
  return (
    <td data-slot="table-cell" className={cn('px-2 py-2.5 align-middle sm:px-3', className)} {...props} />
  )
}
