import { PageHeader } from '@/components/page-header'
import { AddApiKeyForm } from '@/features/api-keys/components/add-api-key-form'
import { ApiKeysList } from '@/features/api-keys/components/api-keys-list'
import { apiKeysStrings } from '@/features/api-keys/strings'

/** /api-keys: add a key, list the keys, pick the active one, delete (spec section 2). */
export function ApiKeysPage() {
  return (
    <div className="space-y-6">
      <PageHeader title={apiKeysStrings.title} description={apiKeysStrings.description} />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,380px)_minmax(0,1fr)]">
        <AddApiKeyForm />
        <ApiKeysList />
      </div>
    </div>
  )
}
