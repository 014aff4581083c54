import { RotateCw } from 'lucide-react'
import { PageHeader } from '@/components/page-header'
import { ErrorAlert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { useBotSettings } from '@/features/settings/api/get-bot-settings'
import { SettingsForm } from '@/features/settings/components/settings-form'
import { ChannelsCard } from '@/features/settings/components/channels-card'
import { WebhookCard } from '@/features/settings/components/webhook-card'
import { settingsStrings } from '@/features/settings/strings'
import { SecuritySection } from '@/features/security/components/security-section'

/**
 * /settings: the trading settings record (spec sections 2, 3 and 5), and below it the TradingView
 * webhook card (not in the spec), and the Security section (issue 31: two-factor
 * login, sessions, password), once the record has loaded.
 */
export function SettingsPage() {
  const settings = useBotSettings()

  return (
    <div className="space-y-6">
      <PageHeader title={settingsStrings.title} description={settingsStrings.description} />
      {settings.isPending ? (
        <div
          role="status"
          aria-live="polite"
          className="flex items-center justify-center gap-3 py-24 text-muted-foreground"
        >
          <Spinner className="size-6 text-primary" />
          <span>{settingsStrings.loading}</span>
        </div>
      ) : settings.isError ? (
        <ErrorAlert className="max-w-xl">
          <p className="font-medium">{settingsStrings.loadFailed}</p>
          <p className="mt-1 text-destructive/90">
            {settings.error instanceof Error ? settings.error.message : null}
          </p>
          <Button
            variant="outline"
            size="sm"
            className="mt-3"
            onClick={() => void settings.refetch()}
            disabled={settings.isFetching}
          >
            <RotateCw aria-hidden="true" />
            {settingsStrings.retry}
          </Button>
        </ErrorAlert>
      ) : (
        <>
          <SettingsForm key={settings.data?.id ?? 'new'} record={settings.data} />
          <WebhookCard />
          <ChannelsCard />
          <SecuritySection />
        </>
      )}
    </div>
  )
}
