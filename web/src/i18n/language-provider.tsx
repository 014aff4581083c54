import { Fragment, useCallback, useLayoutEffect, useMemo, useState, type ReactNode } from 'react'
import {
  LanguageContext,
  applyLanguage,
  readStoredLanguage,
  storeLanguage,
  type Language,
} from '@/i18n/language'

/**
 * Holds the language and re-renders the whole app in it when it changes, without a reload: the
 * children are keyed by the language, so every component reads its strings again (the catalogue's
 * live views are read while rendering, not subscribed to).
 */
export function LanguageProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(() => {
    const stored = readStoredLanguage()
    applyLanguage(stored)
    return stored
  })

  useLayoutEffect(() => {
    applyLanguage(language)
  }, [language])

  const setLanguage = useCallback((value: Language) => {
    storeLanguage(value)
    applyLanguage(value)
    setLanguageState(value)
  }, [])

  const toggleLanguage = useCallback(() => {
    setLanguage(language === 'en' ? 'ru' : 'en')
  }, [language, setLanguage])

  const value = useMemo(
    () => ({ language, setLanguage, toggleLanguage }),
    [language, setLanguage, toggleLanguage],
  )
  return (
    <LanguageContext value={value}>
      <Fragment key={language}>{children}</Fragment>
    </LanguageContext>
  )
}
