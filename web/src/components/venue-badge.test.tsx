import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { VenueBadge } from '@/components/venue-badge'
import { isRealVenue, venueLabel } from '@/lib/venue'
import type { Venue } from '@/types/api'

const paper: Venue = { exchange: 'paper', environment: 'paper' }
const demo: Venue = { exchange: 'bybit', environment: 'demo' }
const real: Venue = { exchange: 'bybit', environment: 'real' }

describe('venue badge', () => {
  it.each([
    ['Paper', paper, 'paper'],
    ['Bybit Demo', demo, 'demo'],
    ['Bybit Real', real, 'real'],
  ] as const)('reads "%s"', (label, venue, environment) => {
    const { container } = render(<VenueBadge venue={venue} />)
    const badge = container.querySelector('[data-slot="venue-badge"]')
    expect(badge).toHaveTextContent(new RegExp(`^${label}$`))
    expect(badge).toHaveAttribute('data-environment', environment)
    expect(venueLabel(venue)).toBe(label)
  })

  it('makes Real stand out: amber, dark and light, with a warning icon; Demo and Paper do not', () => {
    render(
      <>
        <VenueBadge venue={real} />
        <VenueBadge venue={demo} />
        <VenueBadge venue={paper} />
      </>,
    )
    const realBadge = screen.getByText('Bybit Real')
    expect(realBadge).toHaveClass('text-amber-900', 'bg-amber-100', 'dark:text-amber-200')
    expect(realBadge.querySelector('svg')).toHaveClass('lucide-triangle-alert')
    for (const other of [screen.getByText('Bybit Demo'), screen.getByText('Paper')]) {
      expect(other.className).not.toMatch(/amber/)
      expect(other.querySelector('svg')).not.toHaveClass('lucide-triangle-alert')
    }
  })

  it('shows nothing for a trade from before venues were recorded (null)', () => {
    const { container } = render(<VenueBadge venue={null} />)
    expect(container).toBeEmptyDOMElement()
  })

  it('counts only Bybit mainnet as real money', () => {
    expect(isRealVenue(real)).toBe(true)
    expect(isRealVenue(demo)).toBe(false)
    expect(isRealVenue(paper)).toBe(false)
    expect(isRealVenue(null)).toBe(false)
    expect(isRealVenue(undefined)).toBe(false)
  })
})
