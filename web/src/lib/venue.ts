import { liveSection } from '@/i18n/catalogue'
import type { Venue } from '@/types/api'

/**
 * Where a user's bot trades, in words (not worded by the spec): the paper exchange, Bybit's demo
 * trading or Bybit mainnet, in the current language. Every venue badge reads them here.
 */
export const venueStrings = liveSection('venue')

/** "Paper", "Bybit Demo" or "Bybit Real". The environment decides; a paper exchange is always Paper. */
export function venueLabel(venue: Venue): string {
  if (venue.exchange === 'paper' || venue.environment === 'paper') return venueStrings.paper
  return venue.environment === 'real' ? venueStrings.bybitReal : venueStrings.bybitDemo
}

/** Real money: Bybit mainnet. */
export function isRealVenue(venue: Venue | null | undefined): boolean {
  return venue?.exchange === 'bybit' && venue.environment === 'real'
}
