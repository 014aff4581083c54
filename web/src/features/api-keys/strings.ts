import { liveSection } from '@/i18n/catalogue'
/** UI strings of the API keys page, in the current language (src/i18n/en.ts, section `apiKeys`). */
export const apiKeysStrings = liveSection('apiKeys')
