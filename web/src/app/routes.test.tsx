import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { renderApp, stubServer } from '@/testing/render-app'

const admin = { id: 1, username: 'admin' }

function storeSession(token = 'stored-token') {
  localStorage.setItem('token', token)
  localStorage.setItem('user', JSON.stringify(admin))
}

describe('routes and access rules', () => {
  it.each(['/dashboard', '/trading-signals', '/api-keys', '/settings', '/logs', '/statistics', '/stats'])(
    'sends a logged-out visitor of %s to /login',
    async (path) => {
      stubServer({})
      const { router } = renderApp(path)
      expect(await screen.findByRole('heading', { name: 'Вход' })).toBeInTheDocument()
      expect(router.state.location.pathname).toBe('/login')
    },
  )

  it.each(['/', '/no-such-page'])('sends a logged-out visitor of %s to /login', async (path) => {
    stubServer({})
    const { router } = renderApp(path)
    await screen.findByRole('heading', { name: 'Вход' })
    expect(router.state.location.pathname).toBe('/login')
  })

  it('shows "Загрузка..." while the stored session is checked, then the page', async () => {
    storeSession()
    let answer: (value: { status: number; body: unknown }) => void = () => undefined
    stubServer({ 'GET /api/auth/me/': () => new Promise((resolve) => (answer = resolve)) })
    renderApp('/settings')
    expect(await screen.findByText('Загрузка...')).toBeInTheDocument()
    answer({ status: 200, body: admin })
    expect(await screen.findByRole('heading', { name: 'Настройки торговли' })).toBeInTheDocument()
  })

  it.each([
    ['/dashboard', 'Dashboard'],
    ['/trading-signals', 'Trading Signals'],
    ['/api-keys', 'API Keys'],
    ['/settings', 'Настройки торговли'],
    ['/logs', 'Trading Logs'],
    ['/statistics', 'Live Trading Statistics'],
    ['/stats', 'Statistics'],
  ])('shows %s with its heading %s to a logged-in user', async (path, heading) => {
    storeSession()
    stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: admin }) })
    renderApp(path)
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Logout' })).toBeInTheDocument()
  })

  it('shows the dashboard subtitle', async () => {
    storeSession()
    stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: admin }) })
    renderApp('/dashboard')
    expect(await screen.findByText('Welcome back to your trading dashboard')).toBeInTheDocument()
  })

  it.each(['/', '/login', '/no-such-page'])('sends a logged-in user at %s to /dashboard', async (path) => {
    storeSession()
    stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: admin }) })
    const { router } = renderApp(path)
    await screen.findByRole('heading', { name: 'Dashboard' })
    expect(router.state.location.pathname).toBe('/dashboard')
  })

  it('drops a stored token the server rejects and shows the login form', async () => {
    storeSession('revoked')
    stubServer({ 'GET /api/auth/me/': () => ({ status: 401, body: { error: 'Authentication required' } }) })
    const { router } = renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Вход' })
    expect(router.state.location.pathname).toBe('/login')
    expect(localStorage.getItem('token')).toBeNull()
    expect(localStorage.getItem('user')).toBeNull()
  })

  it('drops the stored token when the session check fails for any reason, after one retry', async () => {
    storeSession()
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => ({ status: 500, body: { error: 'Internal error' } }),
    })
    renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Вход' }, { timeout: 5000 })
    expect(localStorage.getItem('token')).toBeNull()
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/me/')).toHaveLength(2)
  })

  it('keeps the session through one network blip on load: the check retries once', async () => {
    storeSession()
    let calls = 0
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => {
        calls += 1
        if (calls === 1) throw new TypeError('Failed to fetch')
        return { status: 200, body: admin }
      },
    })
    renderApp('/dashboard')
    expect(await screen.findByText('Загрузка...')).toBeInTheDocument()
    expect(localStorage.getItem('token')).toBe('stored-token')
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Dashboard' }, { timeout: 5000 }),
    ).toBeInTheDocument()
    expect(localStorage.getItem('token')).toBe('stored-token')
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/me/')).toHaveLength(2)
  })

  it('does not retry a 403 of the session check: the token is dropped at once', async () => {
    storeSession()
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => ({ status: 403, body: { error: 'Forbidden' } }),
    })
    renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Вход' })
    expect(localStorage.getItem('token')).toBeNull()
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/me/')).toHaveLength(1)
  })

  it('lists the sidebar links to a logged-in user', async () => {
    storeSession()
    stubServer({ 'GET /api/auth/me/': () => ({ status: 200, body: admin }) })
    renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Dashboard' })
    // jsdom matches no media query, so the app renders its mobile frame: open the drawer.
    await userEvent.click(screen.getByRole('button', { name: 'Open menu' }))
    expect(screen.getByRole('link', { name: 'Bot Status' })).toHaveAttribute('href', '/dashboard')
    expect(screen.getByRole('link', { name: 'Statistics' })).toHaveAttribute('href', '/stats')
    expect(screen.getByRole('link', { name: 'API Keys' })).toHaveAttribute('href', '/api-keys')
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings')
    expect(screen.getByRole('button', { name: 'Toggle Theme' })).toBeInTheDocument()
  })

  it('logs out: calls the server, clears token and user, goes to /login', async () => {
    storeSession()
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'POST /api/auth/logout/': () => ({ status: 200, body: { status: 'ok' } }),
    })
    const { router } = renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Dashboard' })
    await userEvent.click(screen.getByRole('button', { name: 'Logout' }))
    await screen.findByRole('heading', { name: 'Вход' })
    expect(router.state.location.pathname).toBe('/login')
    expect(fetchMock).toHaveBeenCalledWith('/api/auth/logout/', expect.objectContaining({ method: 'POST' }))
    expect(localStorage.getItem('token')).toBeNull()
    expect(localStorage.getItem('user')).toBeNull()
  })

  it('logs out locally even when the server call fails', async () => {
    storeSession()
    stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'POST /api/auth/logout/': () => ({ status: 500, body: { error: 'Internal error' } }),
    })
    const { router } = renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Dashboard' })
    await userEvent.click(screen.getByRole('button', { name: 'Logout' }))
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/login')
    })
    expect(localStorage.getItem('token')).toBeNull()
  })
})
