import { Copy, RefreshCw, Trash2, TriangleAlert, Webhook } from 'lucide-react'
import { useId, useRef, useState, type ReactNode } from 'react'
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
  AlertDialogTrigger,
} from '@/components/ui/alert-dialog'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { useCreateWebhook } from '@/features/settings/api/create-webhook'
import { useDeleteWebhook } from '@/features/settings/api/delete-webhook'
import { useWebhookStatus } from '@/features/settings/api/get-webhook'
import { QueryState } from '@/components/query-state'
import { SettingsCard } from '@/components/settings-card'
import { settingsStrings } from '@/features/settings/strings'
import { formatZonedDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'

const s = settingsStrings.webhook

/**
 * "TradingView webhook" on the settings page: whether the user has a secret alert URL and since
 * when; generate, regenerate or remove it (both of the latter confirmed, since the old URL stops
 * working at once). A new URL is shown once, in this component's state only: it is never put in
 * the query cache or localStorage and is gone when the page is left.
 */
export function WebhookCard() {
  const timeZone = useUserTimeZone()
  const status = useWebhookStatus()
  const create = useCreateWebhook()
  const remove = useDeleteWebhook()
  const [shownUrl, setShownUrl] = useState<string | null>(null)

  const busy = create.isPending || remove.isPending
  const configured = status.data?.configured === true

  const generate = () => {
    const regenerating = configured
    create.mutate(undefined, {
      onSuccess: ({ path }) => {
        setShownUrl(window.location.origin + path)
        // Lets go of the mutation (gcTime 0), whose data holds the secret path.
        create.reset()
        notify.success(regenerating ? s.regeneratedToast : s.createdToast)
      },
      onError: (error) => notify.error(s.createFailed, { description: serverMessage(error) }),
    })
  }

  const onRemove = () => {
    remove.mutate(undefined, {
      onSuccess: () => {
        setShownUrl(null)
        notify.success(s.removedToast)
      },
      onError: (error) => notify.error(s.removeFailed, { description: serverMessage(error) }),
    })
  }

  return (
    <SettingsCard icon={Webhook} title={s.title} description={s.description}>
      <div className="min-w-0 space-y-4">
        <QueryState query={status} strings={s} layout="inline">
          {(data) => (
            <>
              <div className="flex items-start gap-2 text-sm">
                <span
                  aria-hidden="true"
                  className={
                    configured
                      ? 'mt-1.5 size-2 shrink-0 rounded-full bg-success'
                      : 'mt-1.5 size-2 shrink-0 rounded-full bg-muted-foreground/50'
                  }
                />
                {configured ? (
                  <div className="space-y-0.5">
                    <p className="font-medium">{s.configured}</p>
                    {data.created_at ? (
                      <p className="text-muted-foreground">
                        {s.created(formatZonedDateTime(data.created_at, timeZone))}
                      </p>
                    ) : null}
                  </div>
                ) : (
                  <p className="text-muted-foreground">{s.none}</p>
                )}
              </div>

              <div className="flex flex-wrap gap-2">
                {configured ? (
                  <>
                    <ConfirmButton
                      label={s.regenerate}
                      icon={
                        create.isPending ? <Spinner className="size-4" /> : <RefreshCw aria-hidden="true" />
                      }
                      title={s.regenerateTitle}
                      description={s.regenerateDescription}
                      disabled={busy}
                      onConfirm={generate}
                    />
                    <ConfirmButton
                      label={s.remove}
                      icon={remove.isPending ? <Spinner className="size-4" /> : <Trash2 aria-hidden="true" />}
                      title={s.removeTitle}
                      description={s.removeDescription}
                      destructive
                      disabled={busy}
                      onConfirm={onRemove}
                    />
                  </>
                ) : (
                  <Button disabled={busy} onClick={generate}>
                    {create.isPending ? <Spinner className="size-4" /> : <Webhook aria-hidden="true" />}
                    {s.generate}
                  </Button>
                )}
              </div>
            </>
          )}
        </QueryState>

        {shownUrl ? <ShownUrl url={shownUrl} /> : null}
      </div>

      <div className="min-w-0 space-y-2 text-sm text-muted-foreground">
        <h3 className="font-medium text-foreground">{s.helpTitle}</h3>
        <p>{s.help}</p>
        {/* Wrapped, not scrolled: a scroll area would have to be focusable (axe scrollable-region-focusable). */}
        <pre className="rounded-md border bg-muted/50 px-3 py-2 font-mono text-xs break-words whitespace-pre-wrap text-foreground">
          <code>{s.messageExample}</code>
        </pre>
        <p>{s.helpSignals}</p>
        <p>{s.helpTime}</p>
        <p>{s.helpActive}</p>
      </div>
    </SettingsCard>
  )
}

/** The new URL, read-only, with Copy; shown once. */
function ShownUrl({ url }: { url: string }) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)

  const copy = async () => {
    try {
      // navigator.clipboard is missing outside secure contexts: that throws here too.
      await navigator.clipboard.writeText(url)
      notify.success(s.copiedToast)
    } catch {
      input.current?.select()
      notify.error(s.copyFailed)
    }
  }

  return (
    <div className="space-y-2 rounded-lg border border-primary/40 bg-primary/[0.06] p-4">
      <Label htmlFor={`${id}-url`}>{s.urlLabel}</Label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          ref={input}
          id={`${id}-url`}
          readOnly
          value={url}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={`${id}-once`}
          className="font-mono text-xs"
          onFocus={(event) => {
            event.currentTarget.select()
          }}
        />
        <Button variant="outline" className="h-10" onClick={() => void copy()}>
          <Copy aria-hidden="true" />
          {s.copy}
        </Button>
      </div>
      <p id={`${id}-once`} className="flex items-start gap-2 text-xs text-amber-800 dark:text-amber-400">
        <TriangleAlert aria-hidden="true" className="mt-px size-3.5 shrink-0" />
        {s.shownOnce}
      </p>
    </div>
  )
}

type ConfirmButtonProps = {
  label: string
  icon: ReactNode
  title: string
  description: string
  destructive?: boolean
  disabled: boolean
  onConfirm: () => void
}

/** A button that asks first, in an alert dialog whose confirming button repeats the label. */
function ConfirmButton({
  label,
  icon,
  title,
  description,
  destructive = false,
  disabled,
  onConfirm,
}: ConfirmButtonProps) {
  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>
        <Button
          variant="outline"
          disabled={disabled}
          className={
            destructive ? 'text-destructive hover:bg-destructive/10 hover:text-destructive' : undefined
          }
        >
          {icon}
          {label}
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <div className="space-y-2">
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </div>
        <AlertDialogFooter>
          <AlertDialogCancel>{s.cancel}</AlertDialogCancel>
          <AlertDialogAction destructive={destructive} onClick={onConfirm}>
            {label}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  )
}
