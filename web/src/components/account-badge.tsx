import { VenueBadge } from '@/components/venue-badge'
import { liveSection } from '@/i18n/catalogue'
import type { Venue } from '@/types/api'

const s = liveSection('periodStatistics')

/**
 * The account the statistics are of: `venue`, the one the bot trades on now (GET /api/bot/status/),
 * since every statistic follows the account (docs/accounts.md, "Statistics follow the account").
 * Nothing until the status is known.
 */
export function AccountBadge({ venue }: { venue: Venue | undefined }) {
  if (!venue) return null
  return (
    <span title={s.accountHint}>
      <VenueBadge venue={venue} />
    </span>
  )
}
