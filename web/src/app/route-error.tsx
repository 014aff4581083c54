import { Link, isRouteErrorResponse, useRouteError } from 'react-router'
import { PageHeader } from '@/components/page-header'
import { Button } from '@/components/ui/button'
import { liveSection } from '@/i18n/catalogue'

const s = liveSection('layout')

/** What failed, in a line: the thrown error's message, or the route's status. */
function describe(error: unknown): string | null {
  if (isRouteErrorResponse(error)) return `${String(error.status)} ${error.statusText}`
  if (error instanceof Error) return error.message
  return null
}

/**
 * The page shown when a route fails to render or its code fails to load (after an upgrade, the old
 * page's chunks are gone): what happened, the error's message, a reload and the way back. Inside the
 * app's frame it takes the place of the page (the frame's main landmark holds it); above the frame,
 * `landmark` gives it a main landmark of its own.
 */
export function RouteError({ landmark = false }: { landmark?: boolean }) {
  const error = useRouteError()
  const message = describe(error)
  const body = (
    <div className="space-y-4">
      <PageHeader title={s.routeError.title} description={s.routeError.detail} />
      {message ? <p className="font-mono text-sm break-words text-muted-foreground">{message}</p> : null}
      <div className="flex flex-wrap gap-2">
        <Button
          onClick={() => {
            window.location.reload()
          }}
        >
          {s.routeError.reload}
        </Button>
        <Button variant="outline" asChild>
          <Link to="/dashboard">{s.routeError.dashboard}</Link>
        </Button>
      </div>
    </div>
  )
  return landmark ? <main className="mx-auto w-full max-w-3xl px-4 py-10">{body}</main> : body
}
