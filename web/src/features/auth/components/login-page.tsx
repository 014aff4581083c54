import { Navigate, useNavigate } from 'react-router'
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui/card'
import { LoadingState } from '@/components/query-state'
import { useSession } from '@/features/auth/api/get-me'
import { BrandMark } from '@/features/auth/components/brand-mark'
import { LoginForm } from '@/features/auth/components/login-form'
import { authStrings } from '@/features/auth/strings'

/** /login: public; a logged-in user is sent to /dashboard (spec section 2). */
export function LoginPage() {
  const session = useSession()
  const navigate = useNavigate()

  if (session.status === 'loading')
    return <LoadingState label={authStrings.loading} className="min-h-svh py-0" />
  if (session.status === 'authenticated') return <Navigate to="/dashboard" replace />

  return (
    <div className="relative flex min-h-svh items-center justify-center overflow-hidden px-4 py-12">
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,color-mix(in_oklab,var(--primary)_16%,transparent),transparent_60%)]"
      />
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-0 bg-[linear-gradient(to_right,var(--color-border)_1px,transparent_1px),linear-gradient(to_bottom,var(--color-border)_1px,transparent_1px)] [mask-image:radial-gradient(ellipse_at_center,black_20%,transparent_70%)] bg-[size:48px_48px] opacity-40"
      />
      <main className="relative w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center gap-3 text-center">
          <BrandMark className="size-11" />
          <div>
            <p className="text-lg font-semibold tracking-tight">{authStrings.productName}</p>
            <p className="text-sm text-muted-foreground">{authStrings.productTagline}</p>
          </div>
        </div>
        <Card className="bg-card/90 shadow-xl backdrop-blur">
          <CardHeader className="pb-4">
            <h1 className="text-xl font-semibold tracking-tight">{authStrings.heading}</h1>
            <CardDescription className="sr-only">{authStrings.productName}</CardDescription>
          </CardHeader>
          <CardContent>
            <LoginForm onSuccess={() => void navigate('/', { replace: true })} />
          </CardContent>
        </Card>
      </main>
    </div>
  )
}
