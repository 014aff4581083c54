import { createContext } from 'react'

/**
 * The app's language (issue 33 point 7): English (the spec's own texts) or Russian; default English;
 * stored in localStorage under `language`, like the theme under `theme`.
 */

export type Language = 'en' | 'ru'

export const LANGUAGES = ['en', 'ru'] as const satisfies readonly Language[]
export const LANGUAGE_STORAGE_KEY = 'language'
export const DEFAULT_LANGUAGE: Language = 'en'

/** The Intl locale numbers and dates are formatted with in each language. */
export const LOCALES: Record<Language, string> = { en: 'en-US', ru: 'ru-RU' }

export function isLanguage(value: unknown): value is Language {
  return value === 'en' || value === 'ru'
}

export function readStoredLanguage(): Language {
  try {
    const value = localStorage.getItem(LANGUAGE_STORAGE_KEY)
    return isLanguage(value) ? value : DEFAULT_LANGUAGE
  } catch {
    return DEFAULT_LANGUAGE
  }
}

export function storeLanguage(language: Language) {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, language)
  } catch {
    // Storage can be unavailable (private mode); the language then lasts for this page only.
  }
}

/**
 * The language every string and format is read in now. A module value, not only React state, so
 * that code outside components (zod messages, formatters) reads the same language; the provider
 * sets it before it re-renders the app.
 */
let current: Language = readStoredLanguage()

export function currentLanguage(): Language {
  return current
}

export function currentLocale(): string {
  return LOCALES[current]
}

/** Makes `language` current and marks the page with it (`<html lang>`). */
export function applyLanguage(language: Language) {
  current = language
  document.documentElement.lang = language
}

export type LanguageContextValue = {
  language: Language
  setLanguage: (language: Language) => void
  toggleLanguage: () => void
}

export const LanguageContext = createContext<LanguageContextValue | null>(null)
