import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { expect } from './fixtures'

/**
 * Accessibility checks shared by the specs: axe-core (WCAG 2.1 A and AA, contrast included, and
 * axe's best practices) on one part of a page or the whole page, and a part fitting the
 * viewport's width.
 */

export const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']

type Violation = { rule: string; impact: string | null | undefined; nodes: string[] }

async function violations(builder: AxeBuilder): Promise<Violation[]> {
  // Only violations are read: axe then details one node of the passes and incomplete (much faster).
  const results = await builder
    .withTags(WCAG)
    .options({ resultTypes: ['violations'] })
    .analyze()
  return results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
  }))
}

export async function axe(page: Page, part: Locator, name: string) {
  await part.evaluate((element, mark) => {
    element.setAttribute('data-axe-part', mark)
  }, name)
  const found = await violations(new AxeBuilder({ page }).include(`[data-axe-part="${name}"]`))
  expect(found, `axe violations in ${name}`).toEqual([])
}

/** axe-core on the whole page (a soft check: every page of a walk is reported). */
export async function axePage(page: Page, name: string) {
  expect.soft(await violations(new AxeBuilder({ page })), `axe violations on ${name}`).toEqual([])
}

/** The part lies within the viewport's width and nothing in it scrolls sideways. */
export async function fitsWidth(page: Page, part: Locator, name: string) {
  const width = page.viewportSize()?.width ?? 0
  const box = await part.boundingBox()
  expect(box, name).not.toBeNull()
  expect(box?.x ?? -1, `${name} starts inside the screen`).toBeGreaterThanOrEqual(0)
  expect((box?.x ?? 0) + (box?.width ?? Infinity), `${name} ends inside the screen`).toBeLessThanOrEqual(
    width,
  )
  const overflowing = await part.evaluate((root) =>
    [root, ...root.querySelectorAll('*')]
      .filter((el) => {
        const style = getComputedStyle(el)
        // Text cut with an ellipsis on purpose, and scroll areas, are not overflow.
        if (style.textOverflow === 'ellipsis' || ['auto', 'scroll'].includes(style.overflowX)) return false
        // Nor is what is clipped on purpose: screen-reader-only text (a 1 px absolute box, clipped)
        // and decorative animations hidden from assistive technology (the live dot's ping).
        const clippedBox = (node: Element) => {
          const own = getComputedStyle(node)
          return (
            own.position === 'absolute' &&
            (own.getPropertyValue('clip') !== 'auto' || own.clipPath !== 'none')
          )
        }
        for (let node: Element | null = el; node && node !== root.parentElement; node = node.parentElement) {
          if (clippedBox(node)) return false
        }
        const animated = (node: Element) => getComputedStyle(node).animationName !== 'none'
        if (el.closest('[aria-hidden="true"]') && [el, ...el.querySelectorAll('*')].some(animated))
          return false
        if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) return false
        // Content let out of its box (overflow visible) on purpose, as a full-bleed bar, is
        // shown whole while it stays on the screen.
        const shownWhole = el.getBoundingClientRect().left + el.scrollWidth <= window.innerWidth + 1
        return !(style.overflowX === 'visible' && shownWhole)
      })
      .map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''}`),
  )
  expect(overflowing, `${name}: elements wider than their box`).toEqual([])
  const page_ = await page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }))
  expect(page_.document, 'the page does not scroll sideways').toBeLessThanOrEqual(page_.viewport)
}
