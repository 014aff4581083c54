import { liveSection } from '@/i18n/catalogue'
/** UI strings of the Trades page, in the current language (src/i18n/en.ts, section `trades`). */
export const tradesStrings = liveSection('trades')
