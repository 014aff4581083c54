import { liveSection } from '@/i18n/catalogue'
/** The alert banner's words, in the current language (src/i18n/en.ts, section `alerts`). */
export const alertStrings = liveSection('alerts')
