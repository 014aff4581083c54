import { liveSection } from '@/i18n/catalogue'
/** UI strings of the Security section of /settings, in the current language (src/i18n/en.ts, section `security`). */
export const securityStrings = liveSection('security')
