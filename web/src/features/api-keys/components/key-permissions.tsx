import { ShieldAlert, ShieldCheck } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import type { ApiKey } from '@/types/api'
import { apiKeysStrings as s } from '@/features/api-keys/strings'

/**
 * The permission groups that grant something, each as "Group: A, B", in the exchange's own names
 * (Bybit reports every group, most of them empty).
 */
function grantedGroups(permissions: NonNullable<ApiKey['permissions']>): string[] {
  return Object.entries(permissions)
    .filter(([, names]) => names.length > 0)
    .map(([group, names]) => `${group}: ${names.join(', ')}`)
}

/**
 * A key's permissions and IP restriction as the exchange reported them at its last check
 * (issue 31 point 4): not applicable to paper keys, not known before the first check.
 */
export function KeyPermissions({
  apiKey,
  formatDate,
}: {
  apiKey: ApiKey
  formatDate: (iso: string) => string
}) {
  if (apiKey.exchange === 'paper') {
    return (
      <p className="text-xs text-muted-foreground">
        {s.permissionsLabel}: {s.permissionsNotApplicable}
      </p>
    )
  }
  if (!apiKey.permissions) {
    return (
      <p className="text-xs text-muted-foreground">
        {s.permissionsLabel}: {s.permissionsNotChecked}
      </p>
    )
  }
  const groups = grantedGroups(apiKey.permissions)
  const ips = (apiKey.ips ?? []).join(', ')
  return (
    <div className="space-y-1.5">
      <p
        className="text-xs text-muted-foreground"
        title={
          apiKey.permissions_checked_at ? s.checkedAt(formatDate(apiKey.permissions_checked_at)) : undefined
        }
      >
        {s.permissionsLabel}:{' '}
        <span className="text-foreground">{groups.length ? groups.join(' · ') : s.permissionsNone}</span>
      </p>
      {apiKey.ip_restricted ? (
        <Badge variant="outline">
          <ShieldCheck aria-hidden="true" />
          {s.ipRestricted(ips)}
        </Badge>
      ) : (
        <Badge variant="warning">
          <ShieldAlert aria-hidden="true" />
          {s.noIpRestriction}
        </Badge>
      )}
    </div>
  )
}
