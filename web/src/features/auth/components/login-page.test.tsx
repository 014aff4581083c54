import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { renderApp, stubServer } from '@/testing/render-app'

const admin = { id: 1, username: 'admin' }

describe('login page', () => {
  it('has the Russian labels, heading and button', async () => {
    stubServer({})
    renderApp('/login')
    expect(await screen.findByRole('heading', { name: 'Вход' })).toBeInTheDocument()
    expect(screen.getByLabelText('Имя пользователя')).toBeRequired()
    expect(screen.getByLabelText('Пароль')).toBeRequired()
    expect(screen.getByLabelText('Пароль')).toHaveAttribute('type', 'password')
    expect(screen.getByRole('button', { name: 'Войти' })).toBeInTheDocument()
  })

  it('requires both fields and sends nothing without them', async () => {
    const fetchMock = stubServer({})
    renderApp('/login')
    await userEvent.click(await screen.findByRole('button', { name: 'Войти' }))
    expect(await screen.findByText('Введите имя пользователя')).toBeInTheDocument()
    expect(screen.getByText('Введите пароль')).toBeInTheDocument()
    expect(fetchMock).not.toHaveBeenCalled()
  })

  it('shows "Неверный логин или пароль" on wrong credentials and stores nothing', async () => {
    stubServer({
      'POST /api/auth/login/': () => ({ status: 401, body: { error: 'Invalid username or password' } }),
    })
    const { router } = renderApp('/login')
    await userEvent.type(await screen.findByLabelText('Имя пользователя'), 'admin')
    await userEvent.type(screen.getByLabelText('Пароль'), 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Войти' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Неверный логин или пароль')
    expect(router.state.location.pathname).toBe('/login')
    expect(localStorage.getItem('token')).toBeNull()
  })

  it("shows the server's sentence when login is rate limited", async () => {
    stubServer({
      'POST /api/auth/login/': () => ({
        status: 429,
        body: { error: 'Too many login attempts; try again later' },
      }),
    })
    renderApp('/login')
    await userEvent.type(await screen.findByLabelText('Имя пользователя'), 'admin')
    await userEvent.type(screen.getByLabelText('Пароль'), 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Войти' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many login attempts; try again later')
  })

  it('stores token and user on success and lands on /dashboard', async () => {
    const fetchMock = stubServer({
      'POST /api/auth/login/': ({ body }) =>
        JSON.stringify(body) === JSON.stringify({ username: 'admin', password: 'secret' })
          ? { status: 200, body: { token: 'f00d', user: admin } }
          : { status: 401, body: { error: 'Invalid username or password' } },
    })
    const { router } = renderApp('/login')
    await userEvent.type(await screen.findByLabelText('Имя пользователя'), 'admin')
    await userEvent.type(screen.getByLabelText('Пароль'), 'secret')
    await userEvent.click(screen.getByRole('button', { name: 'Войти' }))
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/dashboard')
    expect(localStorage.getItem('token')).toBe('f00d')
    expect(JSON.parse(localStorage.getItem('user') ?? 'null')).toEqual(admin)
    // The fresh login seeds the session: no extra /auth/me/ round trip.
    const calls = fetchMock.mock.calls.map(([url]) => (url instanceof Request ? url.url : url.toString()))
    expect(calls.filter((url) => url === '/api/auth/login/')).toHaveLength(1)
    expect(calls.filter((url) => url.startsWith('/api/auth/me/'))).toHaveLength(0)
  })
})
