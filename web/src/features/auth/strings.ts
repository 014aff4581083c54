import { liveSection } from '@/i18n/catalogue'
/** UI strings of the auth feature, in the current language (src/i18n/en.ts, section `auth`). */
export const authStrings = liveSection('auth')
