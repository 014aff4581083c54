import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'
import { describe, expect, it } from 'vitest'
import { AppProvider } from '@/app/provider'
import { SidebarNav } from '@/app/layout/sidebar-nav'
import { readStoredLanguage } from '@/i18n/language'
import { stubServer } from '@/testing/render-app'

function renderSidebar() {
  stubServer({})
  return render(
    <AppProvider>
      <MemoryRouter>
        <SidebarNav />
      </MemoryRouter>
    </AppProvider>,
  )
}

describe('the language switch', () => {
  it('defaults to English (the spec texts) and ignores unknown stored values', () => {
    expect(readStoredLanguage()).toBe('en')
    localStorage.setItem('language', 'de')
    expect(readStoredLanguage()).toBe('en')
    localStorage.setItem('language', 'ru')
    expect(readStoredLanguage()).toBe('ru')
  })

  it('switches the sidebar to Russian and back without a reload, stores it and sets <html lang>', async () => {
    renderSidebar()
    expect(document.documentElement.lang).toBe('en')
    expect(screen.getByRole('link', { name: 'Bot Status' })).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Toggle Language' }))
    expect(await screen.findByRole('link', { name: 'Статус бота' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Сменить тему' })).toBeInTheDocument()
    expect(localStorage.getItem('language')).toBe('ru')
    expect(document.documentElement.lang).toBe('ru')

    await userEvent.click(screen.getByRole('button', { name: 'Сменить язык' }))
    expect(await screen.findByRole('link', { name: 'Bot Status' })).toBeInTheDocument()
    expect(localStorage.getItem('language')).toBe('en')
    expect(document.documentElement.lang).toBe('en')
  })

  it('starts in the stored language', () => {
    localStorage.setItem('language', 'ru')
    renderSidebar()
    expect(screen.getByRole('link', { name: 'Настройки' })).toBeInTheDocument()
    expect(document.documentElement.lang).toBe('ru')
  })
})
