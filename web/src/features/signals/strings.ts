import { liveSection } from '@/i18n/catalogue'
/** UI strings of the signals feature, in the current language (src/i18n/en.ts, section `signals`). */
export const signalsStrings = liveSection('signals')
