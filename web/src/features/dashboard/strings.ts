import { liveSection } from '@/i18n/catalogue'
/** UI strings of the dashboard, in the current language (src/i18n/en.ts, section `dashboard`). */
export const dashboardStrings = liveSection('dashboard')
