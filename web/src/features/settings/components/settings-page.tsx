import { PageHeader } from '@/components/page-header'
import { settingsStrings } from '@/features/settings/strings'

/** /settings. The settings form comes with its own issue. */
export function SettingsPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={settingsStrings.title} />
    </div>
  )
}
