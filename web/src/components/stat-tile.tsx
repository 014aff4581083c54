import type { ReactNode } from 'react'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { cn } from '@/lib/utils'

type StatTileProps = {
  /** The tile's title, also its accessible name (role "group"). */
  label: string
  value: string
  /** Classes of the value, e.g. the pnl colour. */
  valueClassName?: string
  /** A line under the value (the dashboard's change against 24 hours ago). */
  children?: ReactNode
}

/** One figure with its title: the tiles of /stats, the cards of /statistics and the dashboard. */
export function StatTile({ label, value, valueClassName, children }: StatTileProps) {
  return (
    <Card role="group" aria-label={label} className="py-4">
      <CardHeader className="px-4 py-0">
        <CardTitle className="text-sm font-medium text-muted-foreground">{label}</CardTitle>
      </CardHeader>
      <CardContent className="space-y-1 px-4 pt-2 pb-0">
        <p className={cn('text-2xl font-semibold tabular-nums', valueClassName)}>{value}</p>
        {children}
      </CardContent>
    </Card>
  )
}
