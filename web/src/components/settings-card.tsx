import type { LucideIcon } from 'lucide-react'
import { useId, type ReactNode } from 'react'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'

type SettingsCardProps = {
  icon: LucideIcon
  title: string
  description: string
  children: ReactNode
}

/**
 * A card of the settings page below the form (the channels, the TradingView webhook, the security
 * cards): a region
 * named by its heading, the icon, title and description, and its content in two columns from
 * the `lg` breakpoint.
 */
export function SettingsCard({ icon: Icon, title, description, children }: SettingsCardProps) {
  const headingId = useId()
  return (
    <Card role="region" aria-labelledby={headingId}>
      <CardHeader className="flex-row items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <Icon aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="space-y-1">
          <CardTitle>
            <h2 id={headingId} className="text-base">
              {title}
            </h2>
          </CardTitle>
          <CardDescription>{description}</CardDescription>
        </div>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-6 lg:grid-cols-2">{children}</CardContent>
    </Card>
  )
}
