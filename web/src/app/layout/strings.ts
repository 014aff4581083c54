import { liveSection } from '@/i18n/catalogue'
/** UI strings of the app frame, in the current language (src/i18n/en.ts, section `layout`). */
export const layoutStrings = liveSection('layout')
