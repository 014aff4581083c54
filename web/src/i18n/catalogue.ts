import { en } from '@/i18n/en'
import { ru } from '@/i18n/ru'
import { currentLanguage, type Language } from '@/i18n/language'

/** A catalogue's shape: en's keys and function signatures, with any text in place of en's words. */
type Widen<T> = T extends string
  ? string
  : T extends (...args: infer A) => infer R
    ? (...args: A) => Widen<R>
    : T extends object
      ? { readonly [K in keyof T]: Widen<T[K]> }
      : T

export type Catalogue = Widen<typeof en>
export type Section = keyof Catalogue

export const catalogues: Record<Language, Catalogue> = { en, ru }

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function resolve(path: readonly string[]): unknown {
  let value: unknown = catalogues[currentLanguage()]
  for (const key of path) value = isPlainObject(value) ? value[key] : undefined
  return value
}

/**
 * A view of one part of the catalogue that always reads the current language: `s.title` is the
 * title in the language of the moment of the read, even through `const s = section.part` kept in a
 * module. Words read once into a module value (a zod message, a list of links) would not follow
 * the language: read them where they are shown.
 */
function liveView(path: readonly string[]): object {
  const read = (key: string | symbol): unknown => {
    if (typeof key !== 'string') return undefined
    const value = resolve([...path, key])
    return isPlainObject(value) ? liveView([...path, key]) : value
  }
  const target = (): Record<string, unknown> => {
    const value = resolve(path)
    return isPlainObject(value) ? value : {}
  }
  return new Proxy(
    {},
    {
      get: (_, key) => read(key),
      has: (_, key) => typeof key === 'string' && key in target(),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) =>
        typeof key === 'string' && key in target()
          ? { value: read(key), enumerable: true, configurable: true, writable: false }
          : undefined,
    },
  )
}

/** The live view of one section, typed as en's section so the features keep their exact types. */
export function liveSection<K extends Section>(section: K): (typeof en)[K] {
  return liveView([section]) as (typeof en)[K]
}
