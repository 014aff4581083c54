import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { nextTheme, readStoredTheme, resolveTheme } from '@/lib/theme'
import { ThemeProvider } from '@/lib/theme-provider'
import { useTheme } from '@/lib/use-theme'

function ThemeProbe() {
  const { theme, resolvedTheme, cycleTheme } = useTheme()
  return (
    <button type="button" onClick={cycleTheme}>
      {theme}/{resolvedTheme}
    </button>
  )
}

describe('theme', () => {
  it('defaults to dark and ignores unknown stored values', () => {
    expect(readStoredTheme()).toBe('dark')
    localStorage.setItem('theme', 'sepia')
    expect(readStoredTheme()).toBe('dark')
    localStorage.setItem('theme', 'system')
    expect(readStoredTheme()).toBe('system')
  })

  it('cycles dark -> light -> system -> dark', () => {
    expect(nextTheme('dark')).toBe('light')
    expect(nextTheme('light')).toBe('system')
    expect(nextTheme('system')).toBe('dark')
  })

  it('resolves system from the browser preference', () => {
    expect(resolveTheme('system', true)).toBe('dark')
    expect(resolveTheme('system', false)).toBe('light')
    expect(resolveTheme('light', true)).toBe('light')
  })

  it('applies the dark class on <html> and stores the choice under "theme"', async () => {
    const user = userEvent.setup()
    render(
      <ThemeProvider>
        <ThemeProbe />
      </ThemeProvider>,
    )
    expect(document.documentElement).toHaveClass('dark')
    await user.click(screen.getByRole('button', { name: 'dark/dark' }))
    expect(localStorage.getItem('theme')).toBe('light')
    expect(document.documentElement).not.toHaveClass('dark')
    // jsdom's matchMedia never matches, so "system" resolves to light here.
    await user.click(screen.getByRole('button', { name: 'light/light' }))
    expect(localStorage.getItem('theme')).toBe('system')
    expect(document.documentElement).not.toHaveClass('dark')
    await user.click(screen.getByRole('button', { name: 'system/light' }))
    expect(localStorage.getItem('theme')).toBe('dark')
    expect(document.documentElement).toHaveClass('dark')
  })
})
