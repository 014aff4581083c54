import type { LucideIcon } from 'lucide-react'
import { useId, type ReactNode } from 'react'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'

type SettingsCardProps = {
  icon: LucideIcon
  title: string
  description: string
  children: ReactNode
  /** A `group` inside a form (the settings form's sections); a page `region` by default. */
  role?: 'region' | 'group'
  testId?: string
  /** The content's layout: two columns from `lg` by default. */
  contentClassName?: string
}

/**
 * A card of the settings page: the form's sections (as groups) and the cards below the form
 * (the channels, the TradingView webhook, the security cards; as regions), named by its heading,
 * with the icon, title and description, and its content.
 */
export function SettingsCard({
  icon: Icon,
  title,
  description,
  children,
  role = 'region',
  testId,
  contentClassName = 'grid grid-cols-1 gap-6 lg:grid-cols-2',
}: SettingsCardProps) {
  const headingId = useId()
  return (
    <Card role={role} aria-labelledby={headingId} data-testid={testId}>
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
      <CardContent className={contentClassName}>{children}</CardContent>
    </Card>
  )
}
