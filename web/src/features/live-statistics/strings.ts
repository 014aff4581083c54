import { liveSection } from '@/i18n/catalogue'
/** The periods of the live statistics select (spec section 2), sent as GET /api/statistics/?period=…. */
export type LivePeriod = '24h' | '7d' | '30d' | 'all'

export const LIVE_PERIODS = ['24h', '7d', '30d', 'all'] as const satisfies readonly LivePeriod[]

/** UI strings of the live statistics page, in the current language (src/i18n/en.ts, section `liveStatistics`). */
export const statisticsStrings = liveSection('liveStatistics')
