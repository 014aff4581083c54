import { liveSection } from '@/i18n/catalogue'
/** UI strings of the statistics page with the period filter, in the current language (src/i18n/en.ts, section `periodStatistics`). */
export const statsStrings = liveSection('periodStatistics')
