import { liveSection } from '@/i18n/catalogue'
/** UI strings of the logs feature, in the current language (src/i18n/en.ts, section `logs`). */
export const logsStrings = liveSection('logs')
