import { LockKeyhole } from 'lucide-react'
import { useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Spinner } from '@/components/ui/spinner'
import { ApiError, serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { useChangePassword } from '@/features/security/api/change-password'
import { securityStrings } from '@/features/security/strings'

const s = securityStrings.password

type Field = 'current_password' | 'new_password' | 'confirm'
type Problems = Partial<Record<Field, string>>

const MIN_PASSWORD_LENGTH = 8

/** "Password" in the Security section: the current password and the new one twice. */
export function PasswordCard() {
  const id = useId()
  const change = useChangePassword()
  const [values, setValues] = useState<Record<Field, string>>({
    current_password: '',
    new_password: '',
    confirm: '',
  })
  const [problems, setProblems] = useState<Problems>({})

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    const found: Problems = {}
    if (!values.current_password) found.current_password = s.required
    if (!values.new_password) found.new_password = s.required
    else if (values.new_password.length < MIN_PASSWORD_LENGTH) found.new_password = s.tooShort
    if (values.confirm !== values.new_password) found.confirm = s.mismatch
    setProblems(found)
    if (Object.keys(found).length > 0) return
    change.mutate(
      { current_password: values.current_password, new_password: values.new_password },
      {
        onSuccess: () => {
          setValues({ current_password: '', new_password: '', confirm: '' })
          notify.success(s.changedToast)
        },
        onError: (error) => {
          if (error instanceof ApiError && error.fields) {
            setProblems({
              current_password: error.fields.current_password?.[0],
              new_password: error.fields.new_password?.[0],
            })
          } else {
            notify.error(s.changeFailed, { description: serverMessage(error) })
          }
        },
      },
    )
  }

  const field = (name: Field, label: string, autoComplete: string) => {
    const fieldId = `${id}-${name}`
    const problem = problems[name]
    return (
      <div className="space-y-2">
        <Label htmlFor={fieldId}>{label}</Label>
        <Input
          id={fieldId}
          type="password"
          autoComplete={autoComplete}
          value={values[name]}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${fieldId}-error` : undefined}
          onChange={(event) => {
            setValues((old) => ({ ...old, [name]: event.target.value }))
          }}
        />
        {problem ? (
          <p id={`${fieldId}-error`} className="text-xs text-destructive">
            {problem}
          </p>
        ) : null}
      </div>
    )
  }

  return (
    <Card role="region" aria-labelledby={`${id}-title`}>
      <CardHeader className="flex-row items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <LockKeyhole aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="space-y-1">
          <CardTitle>
            <h3 id={`${id}-title`} className="text-base">
              {s.title}
            </h3>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={submit} className="grid gap-4 sm:max-w-md">
          {field('current_password', s.currentLabel, 'current-password')}
          {field('new_password', s.newLabel, 'new-password')}
          {field('confirm', s.confirmLabel, 'new-password')}
          <div>
            <Button type="submit" disabled={change.isPending}>
              {change.isPending ? <Spinner className="size-4" /> : null}
              {change.isPending ? s.submitting : s.submit}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  )
}
