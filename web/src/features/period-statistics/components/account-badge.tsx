import { VenueBadge } from '@/components/venue-badge'
import { useBotStatus } from '@/features/dashboard/api/get-bot-status'
import { statsStrings as s } from '@/features/period-statistics/strings'

/**
 * The account the statistics are of: the one the bot trades on now (GET /api/bot/status/), since
 * every statistic follows the account (docs/accounts.md, "Statistics follow the account").
 * Nothing until the status is known.
 */
export function AccountBadge() {
  const venue = useBotStatus().data?.venue
  if (!venue) return null
  return (
    <span title={s.accountHint}>
      <VenueBadge venue={venue} />
    </span>
  )
}
