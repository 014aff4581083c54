import { zodResolver } from '@hookform/resolvers/zod'
import { useId, useState, type SyntheticEvent } from 'react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'
import { AlertCircle } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Spinner } from '@/components/ui/spinner'
import { ApiError } from '@/lib/api-client'
import { useLogin } from '@/features/auth/api/login'
import { authStrings } from '@/features/auth/strings'

// Messages as functions: read in the language of the moment the form is checked.
const loginSchema = z.object({
  username: z
    .string()
    .trim()
    .min(1, { error: () => authStrings.usernameRequired }),
  password: z.string().min(1, { error: () => authStrings.passwordRequired }),
})

type LoginValues = z.infer<typeof loginSchema>

/**
 * Wrong credentials (401) and rejected input (400) read "Неверный логин или пароль" as the spec
 * says; other failures (429 rate limit, network, server) show the server's own sentence, since
 * telling a locked-out trader the password is wrong would mislead.
 */
function loginErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status !== 401 && error.status !== 400) return error.message
  return authStrings.invalidCredentials
}

/** A 401 saying the password was right and the two-factor code is missing or wrong. */
function asksForCode(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 401) return false
  const body = error.body
  return typeof body === 'object' && body !== null && 'otp_required' in body && body.otp_required === true
}

/**
 * The login form. With two-factor login on, the server answers a right password with 401
 * `otp_required`: the form then asks for the code (second step) and sends the three together.
 */
export function LoginForm({ onSuccess }: { onSuccess: () => void }) {
  const id = useId()
  const login = useLogin()
  const [failure, setFailure] = useState<string | null>(null)
  const [credentials, setCredentials] = useState<LoginValues | null>(null)
  const form = useForm<LoginValues>({
    resolver: zodResolver(loginSchema),
    defaultValues: { username: '', password: '' },
  })
  const { errors } = form.formState

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    login.mutate(values, {
      onSuccess,
      onError: (error) => {
        if (asksForCode(error)) {
          setCredentials(values)
          return
        }
        setFailure(loginErrorMessage(error))
        form.setValue('password', '')
        form.setFocus('password')
      },
    })
  })

  if (credentials) {
    return (
      <CodeStep
        credentials={credentials}
        onSuccess={onSuccess}
        onBack={(message) => {
          setCredentials(null)
          setFailure(message)
          form.setValue('password', '')
        }}
      />
    )
  }

  const usernameId = `${id}-username`
  const passwordId = `${id}-password`

  return (
    <form noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-5">
      {failure ? (
        <div
          role="alert"
          className="flex items-center gap-2 rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2.5 text-sm text-destructive"
        >
          <AlertCircle aria-hidden="true" className="size-4 shrink-0" />
          <span>{failure}</span>
        </div>
      ) : null}

      <div className="space-y-2">
        <Label htmlFor={usernameId}>{authStrings.usernameLabel}</Label>
        <Input
          id={usernameId}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          autoFocus
          required
          aria-invalid={errors.username ? true : undefined}
          aria-describedby={errors.username ? `${usernameId}-error` : undefined}
          {...form.register('username')}
        />
        {errors.username ? (
          <p id={`${usernameId}-error`} className="text-xs text-destructive">
            {errors.username.message}
          </p>
        ) : null}
      </div>

      <div className="space-y-2">
        <Label htmlFor={passwordId}>{authStrings.passwordLabel}</Label>
        <Input
          id={passwordId}
          type="password"
          autoComplete="current-password"
          required
          aria-invalid={errors.password ? true : undefined}
          aria-describedby={errors.password ? `${passwordId}-error` : undefined}
          {...form.register('password')}
        />
        {errors.password ? (
          <p id={`${passwordId}-error`} className="text-xs text-destructive">
            {errors.password.message}
          </p>
        ) : null}
      </div>

      <Button type="submit" size="lg" className="w-full" disabled={login.isPending}>
        {login.isPending ? <Spinner className="size-4" /> : null}
        {authStrings.submit}
      </Button>
    </form>
  )
}

/** The second step: the code of the authenticator app (or a recovery code). */
function CodeStep({
  credentials,
  onSuccess,
  onBack,
}: {
  credentials: LoginValues
  onSuccess: () => void
  onBack: (message: string | null) => void
}) {
  const id = useId()
  const login = useLogin()
  const [code, setCode] = useState('')
  const [failure, setFailure] = useState<string | null>(null)
  const codeId = `${id}-code`

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    const otp = code.trim()
    if (!otp) {
      setFailure(authStrings.codeRequired)
      return
    }
    setFailure(null)
    login.mutate(
      { ...credentials, otp },
      {
        onSuccess,
        onError: (error) => {
          setCode('')
          if (asksForCode(error)) setFailure(authStrings.invalidCode)
          else if (error instanceof ApiError && error.status === 401) onBack(authStrings.invalidCredentials)
          else setFailure(loginErrorMessage(error))
        },
      },
    )
  }

  return (
    <form noValidate onSubmit={submit} className="space-y-5">
      {failure ? (
        <div
          role="alert"
          className="flex items-center gap-2 rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2.5 text-sm text-destructive"
        >
          <AlertCircle aria-hidden="true" className="size-4 shrink-0" />
          <span>{failure}</span>
        </div>
      ) : null}
      <div className="space-y-2">
        <Label htmlFor={codeId}>{authStrings.codeLabel}</Label>
        <Input
          id={codeId}
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          required
          maxLength={64}
          value={code}
          aria-describedby={`${codeId}-hint`}
          onChange={(event) => {
            setCode(event.target.value)
          }}
        />
        <p id={`${codeId}-hint`} className="text-xs text-muted-foreground">
          {authStrings.codeHint}
        </p>
      </div>
      <div className="space-y-2">
        <Button type="submit" size="lg" className="w-full" disabled={login.isPending}>
          {login.isPending ? <Spinner className="size-4" /> : null}
          {authStrings.confirm}
        </Button>
        <Button
          type="button"
          variant="ghost"
          className="w-full"
          disabled={login.isPending}
          onClick={() => {
            onBack(null)
          }}
        >
          {authStrings.back}
        </Button>
      </div>
    </form>
  )
}
