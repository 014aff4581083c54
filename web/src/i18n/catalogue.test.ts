import { afterEach, describe, expect, it } from 'vitest'
import { catalogues, liveSection } from '@/i18n/catalogue'
import { en } from '@/i18n/en'
import { ru } from '@/i18n/ru'
import { applyLanguage } from '@/i18n/language'

type Leaf = { path: string; value: unknown }

/** Every leaf of a catalogue (strings, functions, array items) with its dotted path. */
function leaves(node: unknown, path = ''): Leaf[] {
  if (typeof node === 'object' && node !== null) {
    return Object.entries(node).flatMap(([key, value]) => leaves(value, path ? `${path}.${key}` : key))
  }
  return [{ path, value: node }]
}

const enLeaves = new Map(leaves(en).map((l) => [l.path, l.value]))
const ruLeaves = new Map(leaves(ru).map((l) => [l.path, l.value]))

afterEach(() => {
  applyLanguage('en')
})

describe('the catalogues', () => {
  it('have the same keys in both languages', () => {
    expect([...ruLeaves.keys()].filter((k) => !enLeaves.has(k))).toEqual([])
    expect([...enLeaves.keys()].filter((k) => !ruLeaves.has(k))).toEqual([])
  })

  it('have no empty string and the same kind of value under each key', () => {
    for (const [path, value] of [...enLeaves, ...ruLeaves]) {
      expect(typeof value === 'string' || typeof value === 'function', path).toBe(true)
      if (typeof value === 'string') expect(value.trim(), path).not.toBe('')
      expect(typeof ruLeaves.get(path), path).toBe(typeof enLeaves.get(path))
    }
  })

  it('have functions of the same arity that give non-empty text', () => {
    for (const [path, value] of enLeaves) {
      if (typeof value !== 'function') continue
      const other = ruLeaves.get(path) as (...args: unknown[]) => unknown
      expect(other.length, path).toBe(value.length)
      // ['2'] reads as a text, a number and a list alike.
      const args = Array.from({ length: value.length }, () => ['2'])
      expect(String(other(...args)).trim(), path).not.toBe('')
    }
  })

  it('keep the spec texts in English and translate them in Russian', () => {
    expect(en.dashboard.title).toBe('Dashboard')
    expect(en.auth.loading).toBe('Загрузка...')
    expect(ru.dashboard.title).not.toBe(en.dashboard.title)
    expect(catalogues.ru).toBe(ru)
  })
})

describe('liveSection', () => {
  it('reads the current language, also through a part kept before the switch', () => {
    const dashboard = liveSection('dashboard')
    const botStatus = dashboard.botStatus
    expect(dashboard.title).toBe('Dashboard')
    applyLanguage('ru')
    expect(dashboard.title).toBe(ru.dashboard.title)
    expect(botStatus.startBot).toBe(ru.dashboard.botStatus.startBot)
    expect('startBot' in botStatus).toBe(true)
    expect(Object.keys(botStatus)).toEqual(Object.keys(ru.dashboard.botStatus))
    expect(document.documentElement.lang).toBe('ru')
  })
})
