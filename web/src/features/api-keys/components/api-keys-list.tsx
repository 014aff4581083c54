import { CheckCircle2, KeyRound, PowerOff, Trash2, type LucideIcon } from 'lucide-react'
import { useEffect, useState, type ReactNode } from 'react'
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
} from '@/components/ui/alert-dialog'
import { QueryState } from '@/components/query-state'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { cn } from '@/lib/utils'
import type { ApiKey } from '@/types/api'
import { useApiKeys } from '@/features/api-keys/api/get-api-keys'
import { useDeactivateApiKey } from '@/features/api-keys/api/deactivate-api-key'
import { useDeleteApiKey } from '@/features/api-keys/api/delete-api-key'
import { useSetActiveApiKey } from '@/features/api-keys/api/set-active-api-key'
import { formatZonedDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import { KeyPermissions } from '@/features/api-keys/components/key-permissions'
import { apiKeysStrings as s } from '@/features/api-keys/strings'

/** "Paper", or "Bybit Demo" / "Bybit Real": how the delete confirmation names a key. */
function keyLabel(key: ApiKey): string {
  return key.exchange === 'paper' ? s.paper : `${s.bybit} ${key.is_demo ? s.demo : s.real}`
}

/**
 * "Existing API Keys" (spec section 2): exchange, mode, state, date, masked key, and the key's
 * permissions and IP restriction as the exchange reported them;
 * Set Active, Deactivate (the active key: back to the paper account) and Delete, which asks first.
 */
/** One of a key's buttons: its icon, or a spinner while its request runs. */
function KeyAction({
  icon: Icon,
  pending,
  disabled,
  className,
  onClick,
  children,
}: {
  icon: LucideIcon
  pending: boolean
  disabled: boolean
  className?: string
  onClick: () => void
  children: ReactNode
}) {
  return (
    <Button
      variant="outline"
      size="sm"
      className={cn('flex-1 sm:flex-none', className)}
      disabled={disabled}
      onClick={onClick}
    >
      {pending ? <Spinner className="size-3.5" /> : <Icon aria-hidden="true" />}
      {children}
    </Button>
  )
}

export function ApiKeysList() {
  const timeZone = useUserTimeZone()
  const formatAdded = (at: string) => formatZonedDateTime(at, timeZone)
  const keys = useApiKeys()
  const remove = useDeleteApiKey()
  const activate = useSetActiveApiKey()
  const deactivate = useDeactivateApiKey()
  /** The key whose deletion is being confirmed; nothing is sent before the dialog's confirm. */
  const [deleting, setDeleting] = useState<ApiKey | null>(null)

  useEffect(() => {
    if (keys.isError) notify.error(s.loadFailed, { id: 'api-keys-load' })
  }, [keys.isError, keys.errorUpdatedAt])

  // The spec: "server message first if present", and the toast still names what failed.
  const notifyFailure = (error: unknown, title: string) => {
    const message = serverMessage(error)
    if (message) notify.error(message, { description: title })
    else notify.error(title)
  }

  const onDelete = (key: ApiKey) => {
    remove.mutate(key.id, {
      onSuccess: () => notify.success(s.deletedToast),
      onError: (error) => notify.error(s.deleteFailed, { description: serverMessage(error) }),
    })
  }

  const onDeactivate = (key: ApiKey) => {
    deactivate.mutate(key.id, {
      onSuccess: () => notify.success(s.deactivatedToast),
      onError: (error) => {
        notifyFailure(error, s.deactivateFailed)
      },
    })
  }

  const onSetActive = (key: ApiKey) => {
    activate.mutate(key.id, {
      onSuccess: ({ warning }) => {
        notify.success(s.activatedToast)
        // Accepted, but weaker than it should be (no IP allow-list): the server's sentence.
        if (warning) notify.warning(s.noIpWarningTitle, { description: warning })
      },
      onError: (error) => {
        notifyFailure(error, s.activateFailed)
      },
    })
  }

  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-4 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>
            <h2 className="text-base">{s.listTitle}</h2>
          </CardTitle>
          <CardDescription>{s.listDescription}</CardDescription>
        </div>
        {keys.data?.length ? (
          <Badge variant="secondary" className="tabular-nums">
            {keys.data.length}
          </Badge>
        ) : null}
      </CardHeader>
      <CardContent>
        <QueryState
          query={keys}
          strings={s}
          isEmpty={(data) => data.length === 0}
          emptyIcon={KeyRound}
          showErrorMessage={false}
        >
          {(data) => (
            <ul className="space-y-3" aria-label={s.listTitle}>
              {data.map((key) => {
                const removing = remove.isPending && remove.variables === key.id
                const activating = activate.isPending && activate.variables === key.id
                const deactivating = deactivate.isPending && deactivate.variables === key.id
                const busy = removing || activating || deactivating
                return (
                  <li
                    key={key.id}
                    data-active={key.is_active}
                    className={cn(
                      'flex flex-col gap-3 rounded-lg border p-4 transition-colors sm:flex-row sm:items-center sm:justify-between',
                      key.is_active
                        ? 'border-primary/50 bg-primary/[0.06] shadow-[inset_3px_0_0_var(--primary)]'
                        : 'bg-background/40',
                    )}
                  >
                    <div className="flex min-w-0 items-start gap-3">
                      <span
                        className={cn(
                          'mt-0.5 flex size-9 shrink-0 items-center justify-center rounded-lg',
                          key.is_active ? 'bg-primary/15 text-primary' : 'bg-muted text-muted-foreground',
                        )}
                      >
                        <KeyRound aria-hidden="true" className="size-[18px]" />
                      </span>
                      <div className="min-w-0 space-y-1.5">
                        <div className="flex flex-wrap items-center gap-2">
                          <Badge variant={key.exchange === 'paper' ? 'secondary' : 'outline'}>
                            {key.exchange === 'paper' ? s.paper : s.bybit}
                          </Badge>
                          {/* The spec's mode on every row; only a Bybit Real key trades real money. */}
                          <Badge
                            variant={key.exchange === 'bybit' && !key.is_demo ? 'destructive' : 'warning'}
                          >
                            {key.is_demo ? s.demo : s.real}
                          </Badge>
                          <Badge variant={key.is_active ? 'success' : 'outline'}>
                            {key.is_active ? <CheckCircle2 aria-hidden="true" /> : null}
                            {key.is_active ? s.active : s.inactive}
                          </Badge>
                        </div>
                        <p className="truncate font-mono text-sm tracking-wider">{key.key}</p>
                        <p className="text-xs text-muted-foreground">
                          {s.added} {formatAdded(key.created_at)}
                        </p>
                        <KeyPermissions apiKey={key} formatDate={formatAdded} />
                      </div>
                    </div>
                    <div className="flex shrink-0 gap-2 sm:justify-end">
                      {key.is_active ? (
                        <KeyAction
                          icon={PowerOff}
                          pending={deactivating}
                          disabled={busy}
                          onClick={() => {
                            onDeactivate(key)
                          }}
                        >
                          {s.deactivate}
                        </KeyAction>
                      ) : (
                        <KeyAction
                          icon={CheckCircle2}
                          pending={activating}
                          disabled={busy}
                          onClick={() => {
                            onSetActive(key)
                          }}
                        >
                          {s.setActive}
                        </KeyAction>
                      )}
                      <KeyAction
                        icon={Trash2}
                        pending={removing}
                        disabled={busy}
                        className="text-destructive hover:bg-destructive/10 hover:text-destructive"
                        onClick={() => {
                          setDeleting(key)
                        }}
                      >
                        {s.delete}
                      </KeyAction>
                    </div>
                  </li>
                )
              })}
            </ul>
          )}
        </QueryState>
      </CardContent>
      <AlertDialog
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null)
        }}
      >
        <AlertDialogContent>
          <div className="space-y-2">
            <AlertDialogTitle>{s.deleteTitle}</AlertDialogTitle>
            <AlertDialogDescription>
              {deleting ? s.deleteDescription(keyLabel(deleting), formatAdded(deleting.created_at)) : null}
            </AlertDialogDescription>
          </div>
          <AlertDialogFooter>
            <AlertDialogCancel>{s.cancel}</AlertDialogCancel>
            <AlertDialogAction
              destructive
              onClick={() => {
                if (deleting) onDelete(deleting)
              }}
            >
              {s.deleteConfirm}
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </Card>
  )
}
