import { zodResolver } from '@hookform/resolvers/zod'
import { useId, useState } from 'react'
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

const loginSchema = z.object({
  username: z.string().trim().min(1, authStrings.usernameRequired),
  password: z.string().min(1, authStrings.passwordRequired),
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

export function LoginForm({ onSuccess }: { onSuccess: () => void }) {
  const id = useId()
  const login = useLogin()
  const [failure, setFailure] = useState<string | null>(null)
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
        setFailure(loginErrorMessage(error))
        form.setValue('password', '')
        form.setFocus('password')
      },
    })
  })

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
