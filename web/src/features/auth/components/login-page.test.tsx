import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'

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

  it('asks for the two-factor code after a right password, then logs in with it', async () => {
    const fetchMock = stubServer({
      'POST /api/auth/login/': ({ body }) => {
        const sent = body as { username: string; password: string; otp?: string }
        if (sent.password !== 'secret')
          return { status: 401, body: { error: 'Invalid username or password' } }
        if (sent.otp === '123456') return { status: 200, body: { token: 'f00d', user: admin } }
        return { status: 401, body: { error: 'Invalid or already used code.', otp_required: true } }
      },
    })
    const { router } = renderApp('/login')
    await userEvent.type(await screen.findByLabelText('Имя пользователя'), 'admin')
    await userEvent.type(screen.getByLabelText('Пароль'), 'secret')
    await userEvent.click(screen.getByRole('button', { name: 'Войти' }))

    const code = await screen.findByLabelText('Код подтверждения')
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(localStorage.getItem('token')).toBeNull()
    await userEvent.type(code, '000000')
    await userEvent.click(screen.getByRole('button', { name: 'Подтвердить' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Неверный или уже использованный код')
    expect(router.state.location.pathname).toBe('/login')

    await userEvent.type(screen.getByLabelText('Код подтверждения'), '123456')
    await userEvent.click(screen.getByRole('button', { name: 'Подтвердить' }))
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument()
    expect(localStorage.getItem('token')).toBe('f00d')
    const bodies = fetchMock.mock.calls
      .filter(([url]) => url === '/api/auth/login/')
      .map(([, init]) => sentJson(init))
    expect(bodies).toEqual([
      { username: 'admin', password: 'secret' },
      { username: 'admin', password: 'secret', otp: '000000' },
      { username: 'admin', password: 'secret', otp: '123456' },
    ])
  })

  it('goes back to the password with "Неверный логин или пароль" when the password no longer works', async () => {
    let calls = 0
    stubServer({
      'POST /api/auth/login/': () => {
        calls += 1
        return calls === 1
          ? {
              status: 401,
              body: { error: 'Enter the code from your authenticator app.', otp_required: true },
            }
          : { status: 401, body: { error: 'Invalid username or password' } }
      },
    })
    renderApp('/login')
    await userEvent.type(await screen.findByLabelText('Имя пользователя'), 'admin')
    await userEvent.type(screen.getByLabelText('Пароль'), 'secret')
    await userEvent.click(screen.getByRole('button', { name: 'Войти' }))
    await userEvent.type(await screen.findByLabelText('Код подтверждения'), '123456')
    await userEvent.click(screen.getByRole('button', { name: 'Подтвердить' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Неверный логин или пароль')
    expect(screen.getByLabelText('Пароль')).toBeInTheDocument()
  })
})
