import { BellRing, Pencil, Send, Trash2 } from 'lucide-react'
import { useId, useRef, useState, type ChangeEvent, type SyntheticEvent } from 'react'
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
import { useUpdateNotificationChannel } from '@/features/settings/api/update-notification-channel'
import { QueryState } from '@/components/query-state'
import { SettingsCard } from '@/components/settings-card'
import { settingsStrings } from '@/features/settings/strings'
import { formatZonedDateTime } from '@/lib/user-time'
import { useUserTimeZone } from '@/features/settings/api/use-user-time-zone'
import type { NewNotificationChannel, NotificationChannel, NotificationChannelKind } from '@/types/api'

const s = settingsStrings.channels
const KINDS: NotificationChannelKind[] = ['telegram', 'discord', 'email', 'webhook']

function kindLabel(kind: string): string {
  return (s.kinds as Record<string, string>)[kind] ?? kind
}

/**
 * "Channels" on the settings page: the user's notification channels (docs/alerts.md) with
 * add, edit, delete and a Test button each, and each channel's delivery failures. URLs come masked
 * and secrets never come back; a secret the server made is shown once, in this component's
 * state only.
 */
export function ChannelsCard() {
  const channels = useNotificationChannels()
  const [madeSecret, setMadeSecret] = useState<string | null>(null)

  return (
    <SettingsCard icon={BellRing} title={s.title} description={s.description}>
      <div className="min-w-0 space-y-3">
        <QueryState query={channels} strings={s} isEmpty={(list) => list.length === 0} layout="inline">
          {(list) => (
            <ul className="space-y-3">
              {list.map((channel) => (
                <ChannelRow key={channel.id} channel={channel} />
              ))}
            </ul>
          )}
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
  const timeZone = useUserTimeZone()
  const test = useTestNotificationChannel()
  const remove = useDeleteNotificationChannel()
  const [editing, setEditing] = useState(false)
  const editButton = useRef<HTMLButtonElement>(null)
  const rowId = useId()
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
        {/* Describes the row's buttons, whose names repeat on every row. */}
        <div id={`${rowId}-channel`} className="min-w-0">
          <p className="font-medium">{kindLabel(channel.kind)}</p>
          <p className="truncate text-muted-foreground">{channel.target}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button
            variant="outline"
            size="sm"
            aria-describedby={`${rowId}-channel`}
            disabled={busy}
            onClick={onTest}
          >
            {test.isPending ? <Spinner className="size-4" /> : <Send aria-hidden="true" />}
            {test.isPending ? s.testing : s.test}
          </Button>
          <Button
            ref={editButton}
            variant="outline"
            size="sm"
            aria-describedby={`${rowId}-channel`}
            aria-expanded={editing}
            aria-controls={editing ? `${rowId}-edit` : undefined}
            disabled={busy}
            onClick={() => {
              setEditing((open) => !open)
            }}
          >
            <Pencil aria-hidden="true" />
            {s.edit}
          </Button>
          <Button
            variant="outline"
            size="sm"
            aria-describedby={`${rowId}-channel`}
            disabled={busy}
            onClick={onDelete}
          >
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
              channel.last_failure_at ? formatZonedDateTime(channel.last_failure_at, timeZone) : null,
            )}
          </p>
          {channel.last_error ? <p className="break-words">{s.lastError(channel.last_error)}</p> : null}
        </div>
      ) : (
        <p className="mt-2 text-muted-foreground">{s.working}</p>
      )}
      {editing ? (
        <EditChannelForm
          id={`${rowId}-edit`}
          channel={channel}
          onDone={() => {
            setEditing(false)
            // The form goes: the focus goes back to the button that opened it.
            editButton.current?.focus()
          }}
        />
      ) : null}
    </li>
  )
}

type ChannelValues = { url: string; address: string; secret: string }
const EMPTY_VALUES: ChannelValues = { url: '', address: '', secret: '' }

/**
 * What a channel of `kind` takes, from the values typed in: the URL (Discord, webhook), the
 * address or chat id (e-mail, Telegram) and the signing secret (webhook); empty ones left out.
 */
function channelInput(
  kind: NotificationChannelKind,
  values: ChannelValues,
): Omit<NewNotificationChannel, 'kind'> {
  const input: Omit<NewNotificationChannel, 'kind'> = {}
  const url = values.url.trim()
  const address = values.address.trim()
  const secret = values.secret.trim()
  if ((kind === 'discord' || kind === 'webhook') && url !== '') input.url = url
  if ((kind === 'email' || kind === 'telegram') && address !== '') input.address = address
  if (kind === 'webhook' && secret !== '') input.secret = secret
  return input
}

type ChannelFieldsProps = {
  idPrefix: string
  kind: NotificationChannelKind
  values: ChannelValues
  onChange: (values: ChannelValues) => void
  /** Editing: an empty URL or secret keeps the stored one (neither is ever shown); the first field takes the focus. */
  editing?: boolean
}

/** The URL, address or chat id, and signing secret inputs a channel of `kind` takes. */
function ChannelFields({ idPrefix, kind, values, onChange, editing = false }: ChannelFieldsProps) {
  const set = (name: keyof ChannelValues) => (event: ChangeEvent<HTMLInputElement>) => {
    onChange({ ...values, [name]: event.target.value })
  }
  return (
    <>
      {kind === 'discord' || kind === 'webhook' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${idPrefix}-url`}>{s.url}</Label>
          <Input
            id={`${idPrefix}-url`}
            type="password"
            autoComplete="off"
            aria-describedby={`${idPrefix}-url-hint`}
            autoFocus={editing}
            value={values.url}
            onChange={set('url')}
          />
          <p id={`${idPrefix}-url-hint`} className="text-xs text-muted-foreground">
            {editing ? s.keepUrl : kind === 'discord' ? s.discordUrlHint : s.webhookUrlHint}
          </p>
        </div>
      ) : null}
      {kind === 'email' || kind === 'telegram' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${idPrefix}-address`}>{kind === 'email' ? s.address : s.chatId}</Label>
          <Input
            id={`${idPrefix}-address`}
            type={kind === 'email' ? 'email' : 'text'}
            aria-describedby={kind === 'telegram' ? `${idPrefix}-address-hint` : undefined}
            autoFocus={editing}
            value={values.address}
            onChange={set('address')}
          />
          {kind === 'telegram' ? (
            <p id={`${idPrefix}-address-hint`} className="text-xs text-muted-foreground">
              {s.chatIdHint}
            </p>
          ) : null}
        </div>
      ) : null}
      {kind === 'webhook' ? (
        <div className="space-y-1.5">
          <Label htmlFor={`${idPrefix}-secret`}>{s.secret}</Label>
          <Input
            id={`${idPrefix}-secret`}
            type="password"
            autoComplete="off"
            aria-describedby={`${idPrefix}-secret-hint`}
            value={values.secret}
            onChange={set('secret')}
          />
          <p id={`${idPrefix}-secret-hint`} className="text-xs text-muted-foreground">
            {editing ? s.keepSecret : s.secretHint}
          </p>
        </div>
      ) : null}
    </>
  )
}

/** A channel's URL, address or secret changed in place; the kind stays. */
function EditChannelForm({
  id,
  channel,
  onDone,
}: {
  id: string
  channel: NotificationChannel
  onDone: () => void
}) {
  const update = useUpdateNotificationChannel()
  const kind = channel.kind as NotificationChannelKind
  // The address and chat id are shown as they are; URLs and secrets are never shown back.
  const [values, setValues] = useState<ChannelValues>({
    ...EMPTY_VALUES,
    address: kind === 'email' || kind === 'telegram' ? channel.target : '',
  })

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault()
    update.mutate(
      { id: channel.id, input: channelInput(kind, values) },
      {
        onSuccess: () => {
          update.reset()
          notify.success(s.saved)
          onDone()
        },
        onError: (error) => notify.error(s.saveFailed, { description: serverMessage(error) }),
      },
    )
  }

  return (
    <form
      id={id}
      aria-label={s.editTitle(kindLabel(channel.kind))}
      className="mt-3 space-y-3 border-t border-border pt-3"
      onSubmit={submit}
    >
      <ChannelFields idPrefix={id} kind={kind} values={values} onChange={setValues} editing />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" disabled={update.isPending}>
          {update.isPending ? <Spinner className="size-4" /> : null}
          {update.isPending ? s.saving : s.save}
        </Button>
        <Button type="button" variant="outline" size="sm" disabled={update.isPending} onClick={onDone}>
          {s.cancel}
        </Button>
      </div>
    </form>
  )
}

function AddChannelForm({ onMadeSecret }: { onMadeSecret: (secret: string | null) => void }) {
  const id = useId()
  const create = useCreateNotificationChannel()
  const [kind, setKind] = useState<NotificationChannelKind>('telegram')
  const [values, setValues] = useState<ChannelValues>(EMPTY_VALUES)

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault()
    const input: NewNotificationChannel = { kind, ...channelInput(kind, values) }
    // A URL is required: an empty one is sent, so the server says so under the field.
    if (kind === 'discord' || kind === 'webhook') input.url = values.url.trim()
    create.mutate(input, {
      onSuccess: (made) => {
        onMadeSecret(made.secret ?? null)
        setValues(EMPTY_VALUES)
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
      <ChannelFields idPrefix={id} kind={kind} values={values} onChange={setValues} />
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? <Spinner className="size-4" /> : null}
        {create.isPending ? s.adding : s.add}
      </Button>
    </form>
  )
}
