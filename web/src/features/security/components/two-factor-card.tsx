import { KeyRound, ShieldCheck, ShieldOff } from 'lucide-react'
import { useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Spinner } from '@/components/ui/spinner'
import { ApiError, serverMessage } from '@/lib/api-client'
import { QueryState } from '@/components/query-state'
import { notify } from '@/lib/toast'
import { useDisableTwoFactor } from '@/features/security/api/disable-two-factor'
import { useEnableTwoFactor } from '@/features/security/api/enable-two-factor'
import { useTwoFactorStatus } from '@/features/security/api/get-two-factor'
import { useSetupTwoFactor } from '@/features/security/api/setup-two-factor'
import { QrCode } from '@/features/security/components/qr-code'
import { securityStrings } from '@/features/security/strings'
import type { TwoFactorSetup } from '@/types/api'

const s = securityStrings.twoFactor

/** The server's sentence for a refused code (its `fields.code`), else its error, else `fallback`. */
function refusal(error: unknown, fallback: string): string {
  const first = error instanceof ApiError ? error.fields?.code?.[0] : undefined
  return first ?? serverMessage(error) ?? fallback
}

/**
 * "Two-factor login" in the Security section: set up (QR code and secret), turn on with a code
 * (the recovery codes are then shown once), turn off with a code or a recovery code. The secret
 * and the recovery codes live in this component's state only, gone when the page is left.
 */
export function TwoFactorCard() {
  const headingId = useId()
  const status = useTwoFactorStatus()
  const [pending, setPending] = useState<TwoFactorSetup | null>(null)
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null)

  const enabled = status.data?.two_factor_enabled === true

  return (
    <Card role="region" aria-labelledby={headingId}>
      <CardHeader className="flex-row items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <ShieldCheck aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="space-y-1">
          <CardTitle>
            <h3 id={headingId} className="text-base">
              {s.title}
            </h3>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        <QueryState
          query={status}
          strings={{ loading: s.loading, loadFailed: s.loadFailed, retry: securityStrings.retry }}
          layout="inline"
        >
          {(data) => (
            <>
              <div className="flex items-start gap-2 text-sm">
                <span
                  aria-hidden="true"
                  className={
                    enabled
                      ? 'mt-1.5 size-2 shrink-0 rounded-full bg-success'
                      : 'mt-1.5 size-2 shrink-0 rounded-full bg-muted-foreground/50'
                  }
                />
                <div className="space-y-0.5">
                  <p className="font-medium">{enabled ? s.on : s.off}</p>
                  {enabled ? (
                    <p className="text-muted-foreground">{s.codesLeft(data.recovery_codes_left)}</p>
                  ) : null}
                </div>
              </div>
              {recoveryCodes ? (
                <RecoveryCodes
                  codes={recoveryCodes}
                  onDone={() => {
                    setRecoveryCodes(null)
                  }}
                />
              ) : enabled ? (
                <DisableForm />
              ) : pending ? (
                <EnableForm
                  setup={pending}
                  onCancel={() => {
                    setPending(null)
                  }}
                  onEnabled={(codes) => {
                    setPending(null)
                    setRecoveryCodes(codes)
                  }}
                />
              ) : (
                <SetupButton onSetup={setPending} />
              )}
            </>
          )}
        </QueryState>
      </CardContent>
    </Card>
  )
}

function SetupButton({ onSetup }: { onSetup: (setup: TwoFactorSetup) => void }) {
  const setup = useSetupTwoFactor()
  return (
    <Button
      disabled={setup.isPending}
      onClick={() => {
        setup.mutate(undefined, {
          onSuccess: (answer) => {
            onSetup(answer)
            // Lets go of the mutation, whose data holds the secret.
            setup.reset()
          },
          onError: (error) => notify.error(s.setUpFailed, { description: serverMessage(error) }),
        })
      }}
    >
      {setup.isPending ? <Spinner className="size-4" /> : <KeyRound aria-hidden="true" />}
      {s.setUp}
    </Button>
  )
}

function EnableForm({
  setup,
  onCancel,
  onEnabled,
}: {
  setup: TwoFactorSetup
  onCancel: () => void
  onEnabled: (codes: string[]) => void
}) {
  const id = useId()
  const enable = useEnableTwoFactor()
  const [code, setCode] = useState('')
  const [problem, setProblem] = useState<string | null>(null)

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    if (!code.trim()) {
      setProblem(s.codeRequired)
      return
    }
    setProblem(null)
    enable.mutate(code.trim(), {
      onSuccess: ({ recovery_codes }) => {
        enable.reset()
        notify.success(s.enabledToast)
        onEnabled(recovery_codes)
      },
      onError: (error) => {
        setProblem(refusal(error, s.enableFailed))
        setCode('')
      },
    })
  }

  return (
    <form noValidate onSubmit={submit} className="grid gap-6 rounded-lg border p-4 sm:grid-cols-[auto_1fr]">
      <QrCode text={setup.otpauth_url} label={s.qrLabel} className="size-44 rounded-md border bg-white" />
      <div className="min-w-0 space-y-4">
        <p className="text-sm text-muted-foreground">{s.scan}</p>
        <div className="space-y-2">
          <Label htmlFor={`${id}-secret`}>{s.secretLabel}</Label>
          {/* A text area, so the 32 characters wrap on a phone instead of hiding past the edge. */}
          <textarea
            id={`${id}-secret`}
            readOnly
            rows={1}
            value={setup.secret}
            spellCheck={false}
            autoComplete="off"
            className="field-sizing-content min-h-10 w-full min-w-0 resize-none rounded-md border border-input bg-background/60 px-3 py-2.5 font-mono text-xs break-all shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/40"
            onFocus={(event) => {
              event.currentTarget.select()
            }}
          />
        </div>
        <div className="space-y-2">
          <Label htmlFor={`${id}-code`}>{s.codeLabel}</Label>
          <Input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={64}
            value={code}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onChange={(event) => {
              setCode(event.target.value)
            }}
          />
          {problem ? (
            <p id={`${id}-problem`} role="alert" className="text-xs text-destructive">
              {problem}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={enable.isPending}>
            {enable.isPending ? <Spinner className="size-4" /> : <ShieldCheck aria-hidden="true" />}
            {s.enable}
          </Button>
          <Button type="button" variant="outline" disabled={enable.isPending} onClick={onCancel}>
            {s.cancel}
          </Button>
        </div>
      </div>
    </form>
  )
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const id = useId()
  return (
    <div
      role="region"
      aria-labelledby={`${id}-title`}
      className="space-y-3 rounded-lg border border-primary/40 bg-primary/[0.06] p-4"
    >
      <h4 id={`${id}-title`} className="text-sm font-medium">
        {s.recoveryTitle}
      </h4>
      <p className="text-sm text-muted-foreground">{s.recoveryHelp}</p>
      <ul className="grid grid-cols-1 gap-1 font-mono text-sm sm:grid-cols-2">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <Button variant="outline" onClick={onDone}>
        {s.recoveryDone}
      </Button>
    </div>
  )
}

function DisableForm() {
  const id = useId()
  const disable = useDisableTwoFactor()
  const [code, setCode] = useState('')
  const [problem, setProblem] = useState<string | null>(null)

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    if (!code.trim()) {
      setProblem(s.codeRequired)
      return
    }
    setProblem(null)
    disable.mutate(code.trim(), {
      onSuccess: () => {
        setCode('')
        notify.success(s.disabledToast)
      },
      onError: (error) => {
        setProblem(refusal(error, s.disableFailed))
        setCode('')
      },
    })
  }

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-2 sm:max-w-md">
      <Label htmlFor={`${id}-code`}>{s.disableCodeLabel}</Label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          id={`${id}-code`}
          autoComplete="one-time-code"
          maxLength={64}
          value={code}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(event) => {
            setCode(event.target.value)
          }}
        />
        <Button type="submit" variant="outline" className="h-10" disabled={disable.isPending}>
          {disable.isPending ? <Spinner className="size-4" /> : <ShieldOff aria-hidden="true" />}
          {s.disable}
        </Button>
      </div>
      {problem ? (
        <p id={`${id}-problem`} role="alert" className="text-xs text-destructive">
          {problem}
        </p>
      ) : null}
    </form>
  )
}
