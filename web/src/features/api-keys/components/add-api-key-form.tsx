import { Plus } from 'lucide-react'
import { useId } from 'react'
import { useForm } from 'react-hook-form'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { NativeSelect } from '@/components/ui/native-select'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import type { ApiKeyExchange } from '@/types/api'
import { useCreateApiKey } from '@/features/api-keys/api/create-api-key'
import { apiKeysStrings as s } from '@/features/api-keys/strings'

type AddKeyValues = { key: string; secret: string; exchange: ApiKeyExchange; mode: 'demo' | 'real' }

const EMPTY: AddKeyValues = { key: '', secret: '', exchange: 'bybit', mode: 'demo' }

/**
 * "Add New API Key" (spec section 2). Empty key or secret: the toast "Please fill in all fields" and
 * no request. After a success the form resets (exchange back to Bybit, mode back to Demo) and the
 * mutation is reset, so neither the form nor the query cache keeps the key or the secret.
 * The Exchange select (not in the spec) sits beside the spec's Mode select and is sent as `exchange`.
 */
export function AddApiKeyForm() {
  const id = useId()
  const create = useCreateApiKey()
  const form = useForm<AddKeyValues>({ defaultValues: EMPTY })

  const onSubmit = form.handleSubmit(({ key, secret, exchange, mode }) => {
    const trimmedKey = key.trim()
    const trimmedSecret = secret.trim()
    if (!trimmedKey || !trimmedSecret) {
      notify.error(s.fillAllFields)
      return
    }
    create.mutate(
      { key: trimmedKey, secret: trimmedSecret, is_demo: mode === 'demo', exchange },
      {
        onSuccess: () => {
          notify.success(s.addedToast)
          form.reset(EMPTY)
          create.reset()
        },
        onError: (error) => {
          notify.error(s.addFailed, { description: serverMessage(error) })
        },
      },
    )
  })

  return (
    <Card>
      <CardHeader>
        <CardTitle>
          <h2 className="text-base">{s.addTitle}</h2>
        </CardTitle>
        <CardDescription>{s.addDescription}</CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-5">
          <FormField id={`${id}-key`} label={s.keyLabel}>
            {(aria) => (
              <Input
                {...aria}
                type="password"
                autoComplete="off"
                spellCheck={false}
                className="font-mono"
                {...form.register('key')}
              />
            )}
          </FormField>
          <FormField id={`${id}-secret`} label={s.secretLabel}>
            {(aria) => (
              <Input
                {...aria}
                type="password"
                autoComplete="new-password"
                spellCheck={false}
                className="font-mono"
                {...form.register('secret')}
              />
            )}
          </FormField>
          <div className="grid grid-cols-2 gap-4">
            <FormField id={`${id}-exchange`} label={s.exchangeLabel}>
              {(aria) => (
                <NativeSelect {...aria} {...form.register('exchange')}>
                  <option value="bybit">{s.bybit}</option>
                  <option value="paper">{s.paper}</option>
                </NativeSelect>
              )}
            </FormField>
            <FormField id={`${id}-mode`} label={s.modeLabel}>
              {(aria) => (
                <NativeSelect {...aria} {...form.register('mode')}>
                  <option value="demo">{s.demo}</option>
                  <option value="real">{s.real}</option>
                </NativeSelect>
              )}
            </FormField>
          </div>
          <Button type="submit" className="w-full" disabled={create.isPending}>
            {create.isPending ? <Spinner className="size-4" /> : <Plus aria-hidden="true" />}
            {create.isPending ? s.adding : s.add}
          </Button>
        </form>
      </CardContent>
    </Card>
  )
}
