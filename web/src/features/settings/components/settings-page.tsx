import type { ReactNode } from 'react'
import { PageHeader } from '@/components/page-header'
import { QueryState } from '@/components/query-state'
import { useBotSettings } from '@/features/settings/api/get-bot-settings'
import { SettingsForm } from '@/features/settings/components/settings-form'
import { ChannelsCard } from '@/features/settings/components/channels-card'
import { WebhookCard } from '@/features/settings/components/webhook-card'
import { settingsStrings } from '@/features/settings/strings'

/**
 * /settings: the trading settings record (spec sections 2, 3 and 5), and below it the TradingView
 * webhook card and the notification channels (not in the spec), then `below` (the app passes the
 * Security section of issue 31), once the record has loaded.
 */
export function SettingsPage({ below }: { below?: ReactNode }) {
  const settings = useBotSettings()

  return (
    <div className="space-y-6">
      <PageHeader title={settingsStrings.title} description={settingsStrings.description} />
      <QueryState query={settings} strings={settingsStrings} className="py-24">
        {(record) => (
          <>
            <SettingsForm key={record?.id ?? 'new'} record={record} />
            <WebhookCard />
            <ChannelsCard />
            {below}
          </>
        )}
      </QueryState>
    </div>
  )
}
