import { useCallback, useLayoutEffect, useRef, useState, type UIEvent } from 'react'

/**
 * Windowing for long lists of rows of varying height (the 1,000-entry log): only the rows in the
 * scroll container's view, plus a few either side, are rendered; two spacers stand in for the rest
 * so the scroll bar keeps the whole list's length. Rows are measured once rendered (keyed, so a
 * prepended entry keeps the others' heights); rows never rendered count as `estimate` pixels.
 */

/** The height assumed for the scroll container before it is measured (and in jsdom, where it is 0). */
export const FALLBACK_VIEWPORT_PX = 600

export type RowWindow = {
  /** Index of the first row rendered. */
  first: number
  /** One past the last row rendered. */
  last: number
  /** Height of the rows above the window (the top spacer), in px. */
  before: number
  /** Height of the rows below the window (the bottom spacer), in px. */
  after: number
}

/** The rows to render for a scroll position: those in `[scrollTop, scrollTop + viewport)`, ± `overscan`. */
export function computeWindow(
  heights: readonly number[],
  scrollTop: number,
  viewport: number,
  overscan: number,
): RowWindow {
  const count = heights.length
  let start = 0
  let top = 0
  while (start < count && top + (heights[start] ?? 0) <= scrollTop) {
    top += heights[start] ?? 0
    start += 1
  }
  let end = start
  let bottom = top
  while (end < count && bottom < scrollTop + viewport) {
    bottom += heights[end] ?? 0
    end += 1
  }
  const first = Math.max(0, start - overscan)
  const last = Math.min(count, Math.max(end, start + 1) + overscan)
  let before = 0
  for (let i = 0; i < first; i += 1) before += heights[i] ?? 0
  let after = 0
  for (let i = last; i < count; i += 1) after += heights[i] ?? 0
  return { first, last, before, after }
}

type Options = {
  /** The rows' keys, in order. */
  keys: readonly string[]
  /** Height of a row not measured yet, in px. */
  estimate: number
  /** Rows rendered beyond each edge of the view. */
  overscan?: number
}

/**
 * The window of `keys` to render. Put `scrollRef` and `onScroll` on the scrolling element and
 * `data-row-key={key}` on each rendered row (that is how rows are measured).
 */
export function useWindowedRows({ keys, estimate, overscan = 8 }: Options) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [viewport, setViewport] = useState(FALLBACK_VIEWPORT_PX)
  const [measured, setMeasured] = useState<ReadonlyMap<string, number>>(() => new Map())

  useLayoutEffect(() => {
    const element = scrollRef.current
    if (!element) return
    const read = () => {
      setViewport(element.clientHeight > 0 ? element.clientHeight : FALLBACK_VIEWPORT_PX)
    }
    read()
    const observer = new ResizeObserver(read)
    observer.observe(element)
    return () => {
      observer.disconnect()
    }
  }, [])

  const heights = keys.map((key) => measured.get(key) ?? estimate)
  const rows = computeWindow(heights, scrollTop, viewport, overscan)
  const rendered = keys.slice(rows.first, rows.last).join(',')

  // Once the window's rows are in the DOM: measure them; a changed height renders once more.
  useLayoutEffect(() => {
    const element = scrollRef.current
    if (!element) return
    let next: Map<string, number> | null = null
    for (const row of element.querySelectorAll<HTMLElement>('[data-row-key]')) {
      const key = row.dataset.rowKey
      const height = row.getBoundingClientRect().height
      if (key === undefined || height <= 0 || measured.get(key) === height) continue
      next ??= new Map(measured)
      next.set(key, height)
    }
    if (next) setMeasured(next)
  }, [measured, rendered])

  const onScroll = useCallback((event: UIEvent<HTMLElement>) => {
    setScrollTop(event.currentTarget.scrollTop)
  }, [])

  return { scrollRef, onScroll, ...rows }
}
