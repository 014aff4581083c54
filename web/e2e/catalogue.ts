import { en } from '../src/i18n/en'
import { ru } from '../src/i18n/ru'

/** The app's catalogues (src/i18n), so a spec reads each text in the language it runs in. */
export const CATALOGUES = { en, ru } as const
