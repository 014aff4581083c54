import { render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { vi } from 'vitest'
import { AppProvider } from '@/app/provider'
import { routes } from '@/app/router'

/** Renders the whole app (providers and every route) at `path`, in memory. */
export function renderApp(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const view = render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return { ...view, router }
}

type Reply = { status: number; body?: unknown }
type Handler = (request: { method: string; url: string; body: unknown }) => Reply | Promise<Reply>

/** Stubs fetch with a table of "METHOD /path" -> reply; anything else answers 404. */
export function stubServer(handlers: Record<string, Handler>) {
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = input instanceof Request ? input.url : input.toString()
    const method = (init?.method ?? 'GET').toUpperCase()
    const handler = handlers[`${method} ${url.split('?')[0] ?? url}`]
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body
    const reply = handler
      ? await handler({ method, url, body })
      : { status: 404, body: { error: 'Not found' } }
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'Content-Type': 'application/json' },
    })
  })
  vi.stubGlobal('fetch', fetchMock)
  return fetchMock
}

/** The JSON body a stubbed fetch call sent. */
export function sentJson(init: RequestInit | undefined): unknown {
  return typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
}
