import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RouteError } from '@/app/route-error'
import { applyLanguage } from '@/i18n/language'
import { renderApp, stubServer } from '@/testing/render-app'

// The audit log page fails to render: the route's error page takes its place.
vi.mock('@/features/audit-log/components/audit-log-page', () => ({
  AuditLogPage: () => {
    throw new Error('audit rows unreadable')
  },
}))

afterEach(() => {
  applyLanguage('en')
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
})

describe('RouteError', () => {
  it("takes the failing page's place inside the frame: its message, a reload, the way back, the sidebar kept", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    localStorage.setItem('token', 'stored-token')
    localStorage.setItem('user', JSON.stringify({ id: 1, username: 'admin' }))
    stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: { id: 1, username: 'admin' } }) })
    const { router } = renderApp('/audit-log')

    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeInTheDocument()
    expect(screen.getByText('audit rows unreadable')).toBeInTheDocument()
    expect(screen.getAllByRole('main')).toHaveLength(1)
    expect(screen.getByRole('main')).toContainElement(screen.getByRole('heading', { level: 1 }))
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()

    await userEvent.click(screen.getByRole('link', { name: 'Go to the dashboard' }))
    expect(router.state.location.pathname).toBe('/dashboard')
  })

  it('has a main landmark of its own above the frame, in the language, and reloads the page', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined)
    applyLanguage('ru')
    const reload = vi.fn()
    vi.stubGlobal('location', { href: window.location.href, reload })
    const router = createMemoryRouter([
      {
        path: '/',
        element: <Boom />,
        errorElement: <RouteError landmark />,
      },
    ])
    render(<RouterProvider router={router} />)

    const main = await screen.findByRole('main')
    expect(main).toContainElement(screen.getByRole('heading', { level: 1, name: 'Что-то пошло не так' }))
    expect(screen.getByText('chunk missing')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Перезагрузить страницу' }))
    expect(reload).toHaveBeenCalledOnce()
  })
})

function Boom(): never {
  throw new Error('chunk missing')
}
