import { liveSection } from '@/i18n/catalogue'
/** UI strings of the /backtest page, in the current language (src/i18n/en.ts, section `backtest`). */
export const backtestStrings = liveSection('backtest')
