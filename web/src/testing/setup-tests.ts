import '@testing-library/jest-dom/vitest'
import { cleanup, configure } from '@testing-library/react'
import { toast } from 'sonner'
import { afterEach, beforeEach, vi } from 'vitest'
import { setStoreDegraded } from '@/lib/store-health'
import { FakeWebSocket } from '@/testing/fake-web-socket'
import { resetFakeCharts } from '@/testing/fake-lightweight-charts'

// A whole page's first render (the lazy chunk, then the form) can take more than the default
// 1 s of findBy*/waitFor on a loaded 2-core machine: wait up to 5 s before calling it missing.
configure({ asyncUtilTimeout: 5_000 })

// jsdom has no canvas: charts are fakes that record what they draw (fake-lightweight-charts.ts).
vi.mock('lightweight-charts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('lightweight-charts')>()),
  ...(await import('@/testing/fake-lightweight-charts')),
}))

/** False in a test file run in the node environment (`// @vitest-environment node`): no DOM to prepare. */
const hasDom = typeof window !== 'undefined'

// jsdom has no matchMedia; report "no match" (mobile width, light system theme) unless a test stubs it.
if (hasDom && typeof window.matchMedia !== 'function') {
  const matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as unknown as MediaQueryList
  Object.defineProperty(window, 'matchMedia', { configurable: true, writable: true, value: matchMedia })
}

// jsdom has no ResizeObserver; Radix checkboxes and radios measure themselves with it.
if (typeof globalThis.ResizeObserver !== 'function') {
  globalThis.ResizeObserver = class {
    observe() {
      return undefined
    }
    unobserve() {
      return undefined
    }
    disconnect() {
      return undefined
    }
  }
}

beforeEach(() => {
  resetFakeCharts()
  // The app opens its live connection on every protected page: never a real socket in a test.
  FakeWebSocket.reset()
  vi.stubGlobal('WebSocket', FakeWebSocket)
  if (!hasDom) return
  localStorage.clear()
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim()
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`
  }
})

afterEach(() => {
  // Sonner keeps its toasts in a module-wide store and replays them to the next <Toaster>.
  toast.dismiss()
  // Degraded mode is module-wide too: a test's 503 must not raise the next test's banner.
  setStoreDegraded(false)
  cleanup()
  vi.unstubAllGlobals()
})
