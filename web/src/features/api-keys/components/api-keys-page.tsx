import { PageHeader } from '@/components/page-header'
import { apiKeysStrings } from '@/features/api-keys/strings'

/** /api-keys. The add form and the key list come with their own issue. */
export function ApiKeysPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={apiKeysStrings.title} />
    </div>
  )
}
