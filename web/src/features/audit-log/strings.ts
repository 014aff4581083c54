import { liveSection } from '@/i18n/catalogue'
/** UI strings of the Audit log page, in the current language (src/i18n/en.ts, section `auditLog`). */
export const auditLogStrings = liveSection('auditLog')
