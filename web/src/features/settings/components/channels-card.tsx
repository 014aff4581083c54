import { BellRing, Send, Trash2 } from 'lucide-react'
import { useId, useState, type SyntheticEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { useCreateNotificationChannel } from '@/features/settings/api/create-notification-channel'
import { useDeleteNotificationChannel } from '@/features/settings/api/delete-notification-channel'
import { useNotificationChannels } from '@/features/settings/api/get-notification-channels'
import { useTestNotificationChannel } from '@/features/settings/api/test-notification-channel'
import { QueryState, SettingsCard } from '@/features/settings/components/settings-card'
import { settingsStrings } from '@/features/settings/strings'
import { formatDateTime } from '@/features/settings/utils/date-time'
import type { NewNotificationChannel, NotificationChannel, NotificationChannelKind } from '@/types/api'

const s = settingsStrings.channels
const KINDS: NotificationChannelKind[] = ['telegram', 'discord', 'email', 'webhook']

function kindLabel(kind: string): string {
  return (s.kinds as Record<string, string>)[kind] ?? kind
}

/**
 * "Channels" on the settings page: the user's notification channels (docs/alerts.md) with
 * add, delete and a Test button each, and each channel's delivery failures. URLs come masked
 * and secrets never come back; a secret the server made is shown once, in this component's
 * state only.
 */
export function ChannelsCard() {
  const channels = useNotificationChannels()
  const [madeSecret, setMadeSecret] = useState<string | null>(null)

  return (
    <SettingsCard icon={BellRing} title={s.title} description={s.description}>
      <div className="min-w-0 space-y-3">
        <QueryState query={channels} strings={s}>
          {(list) =>
            list.length === 0 ? (
              <p className="text-sm text-muted-foreground">{s.empty}</p>
            ) : (
              <ul className="space-y-3">
                {list.map((channel) => (
                  <ChannelRow key={channel.id} channel={channel} />
                ))}
              </ul>
            )
          }
        </QueryState>
        {madeSecret ? (
          <div className="rounded-md border border-amber-500/40 bg-amber-500/10 p-3 text-sm">
            <p>{s.madeSecret}</p>
            <code className="mt-1 block font-mono break-all">{madeSecret}</code>
          </div>
        ) : null}
      </div>
      <AddChannelForm onMadeSecret={setMadeSecret} />
    </SettingsCard>
  )
}

function ChannelRow({ channel }: { channel: NotificationChannel }) {
  const test = useTestNotificationChannel()
  const remove = useDeleteNotificationChannel()
  const busy = test.isPending || remove.isPending

  const onTest = () => {
    test.mutate(channel.id, {
      onSuccess: (result) => {
        if (result.delivered) notify.success(s.testDelivered)
        else notify.error(s.testFailed, { description: result.error ?? undefined })
      },
      onError: (error) => notify.error(s.testFailed, { description: serverMessage(error) }),
    })
  }
  const onDelete = () => {
    remove.mutate(channel.id, {
      onSuccess: () => notify.success(s.deleted),
      onError: (error) => notify.error(s.deleteFailed, { description: serverMessage(error) }),
    })
  }

  return (
    <li
      aria-label={`${kindLabel(channel.kind)} ${channel.target}`}
      className="rounded-md border border-border p-3 text-sm"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <p className="font-medium">{kindLabel(channel.kind)}</p>
          <p className="truncate text-muted-foreground">{channel.target}</p>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" disabled={busy} onClick={onTest}>
            {test.isPending ? <Spinner className="size-4" /> : <Send aria-hidden="true" />}
            {test.isPending ? s.testing : s.test}
          </Button>
          <Button variant="outline" size="sm" disabled={busy} onClick={onDelete}>
            <Trash2 aria-hidden="true" />
            {s.delete}
          </Button>
        </div>
      </div>
      {channel.failures > 0 ? (
        <div className="mt-2 text-destructive">
          <p>
            {s.failures(
              channel.failures,
              channel.last_failure_at ? formatDateTime(channel.last_failure_at) : null,
            )}
          </p>
          {channel.last_error ? <p className="break-words">{s.lastError(channel.last_error)}</p> : null}
        </div>
      ) : (
        <p className="mt-2 text-muted-foreground">{s.working}</p>
      )}
    </li>
  )
}

function AddChannelForm({ onMadeSecret }: { onMadeSecret: (secret: string | null) => void }) {
  const id = useId()
  const create = useCreateNotificationChannel()
  const [kind, setKind] = useState<NotificationChannelKind>('telegram')
  const [url, setUrl] = useState('')
  const [address, setAddress] = useState('')
  const [secret, setSecret] = useState('')

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault()
    const input: NewNotificationChannel = { kind }
    if (kind === 'discord' || kind === 'webhook') input.url = url.trim()
    if (kind === 'email' || kind === 'telegram') {
      if (address.trim() !== '') input.address = address.trim()
    }
    if (kind === 'webhook' && secret.trim() !== '') input.secret = secret.trim()
    create.mutate(input, {
      onSuccess: (made) => {
        onMadeSecret(made.secret ?? null)
        setUrl('')
        setAddress('')
        setSecret('')
        create.reset()
        notify.success(s.added)
      },
      onError: (error) => notify.error(s.addFailed, { description: serverMessage(error) }),
    })
  }

  return (
    <form className="space-y-3" onSubmit={submit}>
      <div className="space-y-1.5">
        <Label htmlFor={`${id}-kind`}>{s.kind}</Label>
        <NativeSelect
          id={`${id}-kind`}
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as NotificationChannelKind)
          }}
        >
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {kindLabel(k)}
            </option>
          ))}
        </NativeSelect>
      </div>
      {kind === 'discord' || kind === 'webhook' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${id}-url`}>{s.url}</Label>
          <Input
            id={`${id}-url`}
            type="password"
            autoComplete="off"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value)
            }}
          />
          <p className="text-xs text-muted-foreground">
            {kind === 'discord' ? s.discordUrlHint : s.webhookUrlHint}
          </p>
        </div>
      ) : null}
      {kind === 'email' || kind === 'telegram' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${id}-address`}>{kind === 'email' ? s.address : s.chatId}</Label>
          <Input
            id={`${id}-address`}
            type={kind === 'email' ? 'email' : 'text'}
            value={address}
            onChange={(e) => {
              setAddress(e.target.value)
            }}
          />
          {kind === 'telegram' ? <p className="text-xs text-muted-foreground">{s.chatIdHint}</p> : null}
        </div>
      ) : null}
      {kind === 'webhook' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${id}-secret`}>{s.secret}</Label>
          <Input
            id={`${id}-secret`}
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(e) => {
              setSecret(e.target.value)
            }}
          />
          <p className="text-xs text-muted-foreground">{s.secretHint}</p>
        </div>
      ) : null}
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? <Spinner className="size-4" /> : null}
        {create.isPending ? s.adding : s.add}
      </Button>
    </form>
  )
}
