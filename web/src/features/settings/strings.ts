import { liveSection } from '@/i18n/catalogue'
/** UI strings of the trading settings page, in the current language (src/i18n/en.ts, section `settings`). */
export const settingsStrings = liveSection('settings')
