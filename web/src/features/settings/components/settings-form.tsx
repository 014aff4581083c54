import { zodResolver } from '@hookform/resolvers/zod'
import { CalendarClock, Gauge, Layers, Save, Send, ShieldAlert, ShieldCheck, Target } from 'lucide-react'
import { useId, useMemo, type ReactNode } from 'react'
import { Controller, useForm, useWatch, type Control, type FieldPath } from 'react-hook-form'
import { FormField } from '@/components/form-field'
import { SettingsCard } from '@/components/settings-card'
import { Button } from '@/components/ui/button'
import { Checkbox } from '@/components/ui/checkbox'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { NativeSelect } from '@/components/ui/native-select'
import { Spinner } from '@/components/ui/spinner'
import { ApiError, serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { cn } from '@/lib/utils'
import type { BotSettings, BotSettingsPayload } from '@/types/api'
import { useCreateBotSettings } from '@/features/settings/api/create-bot-settings'
import { useUpdateBotSettings } from '@/features/settings/api/update-bot-settings'
import { RiskPreviewCard } from '@/features/settings/components/risk-preview-card'
import { settingsStrings as s } from '@/features/settings/strings'
import { describeForbiddenHours, parseForbiddenHours } from '@/features/settings/utils/forbidden-hours'
import {
  DEFAULT_SETTINGS,
  MAX_DAILY_LOSS_PCT,
  MAX_LEVERAGE,
  MAX_LOSSES_IN_ROW,
  MAX_LOSSES_PAUSE_MINUTES,
  MIN_LOSSES_PAUSE_MINUTES,
  MAX_MARTINGALE_DEPTH,
  STOP_LOSS_PCT_BELOW,
  MIN_COUNT,
  MIN_LEVERAGE,
  MIN_PCT,
  MIN_USDT,
  settingsFormSchema,
  toFormValues,
  type SettingsFormField,
  type SettingsFormValues,
} from '@/features/settings/utils/settings-form'
import { timeZoneOffset, timeZoneOptions } from '@/features/settings/utils/time-zones'

type NumberFieldName = Extract<
  SettingsFormField,
  | 'max_trades'
  | 'max_total_usdt'
  | 'max_trade_usdt'
  | 'initial_stop_loss_pct'
  | 'take_profit_first_pct'
  | 'take_profit_next_pct'
  | 'trail_activation_pct'
  | 'trail_step_pct'
  | 'leverage'
  | 'martingale_max_depth'
  | 'martingale_max_active_chains'
  | 'martingale_step'
  | 'martingale_initial_margin'
  | 'daily_loss_limit_pct'
  | 'max_losses_in_row'
  | 'losses_pause_minutes'
>

type BooleanFieldName = Extract<
  SettingsFormField,
  | 'use_trailing_stop'
  | 'reverse_mode'
  | 'telegram_notify_deals'
  | 'telegram_notify_stats'
  | 'forbidden_hours_enabled'
  | 'forbidden_days_enabled'
>

/** Input attributes per number field: integers step by 1, the stop loss by 0.01 (spec section 5). */
const numberInputs: Record<
  NumberFieldName,
  { min: number; max?: number; step: string; placeholder?: string }
> = {
  max_trades: { min: MIN_COUNT, step: '1' },
  max_total_usdt: { min: MIN_USDT, step: 'any' },
  max_trade_usdt: { min: MIN_USDT, step: 'any' },
  initial_stop_loss_pct: { min: MIN_PCT, max: STOP_LOSS_PCT_BELOW - MIN_PCT, step: String(MIN_PCT) },
  take_profit_first_pct: { min: MIN_PCT, step: 'any' },
  take_profit_next_pct: { min: MIN_PCT, step: 'any' },
  trail_activation_pct: { min: MIN_PCT, step: 'any' },
  trail_step_pct: { min: MIN_PCT, step: 'any' },
  leverage: { min: MIN_LEVERAGE, max: MAX_LEVERAGE, step: '1' },
  martingale_max_depth: { min: MIN_COUNT, max: MAX_MARTINGALE_DEPTH, step: '1' },
  martingale_max_active_chains: { min: MIN_COUNT, step: '1' },
  martingale_step: { min: MIN_PCT, step: 'any' },
  martingale_initial_margin: { min: MIN_PCT, step: 'any' },
  daily_loss_limit_pct: { min: 0, max: MAX_DAILY_LOSS_PCT, step: 'any' },
  max_losses_in_row: { min: 0, max: MAX_LOSSES_IN_ROW, step: '1' },
  losses_pause_minutes: { min: MIN_LOSSES_PAUSE_MINUTES, max: MAX_LOSSES_PAUSE_MINUTES, step: '1' },
}

const formFields = new Set<string>(Object.keys(toFormValues(DEFAULT_SETTINGS)))

type SettingsFormProps = {
  /** The stored record; null when the user has none yet (the form then shows the defaults and creates one). */
  record: BotSettings | null
}

export function SettingsForm({ record }: SettingsFormProps) {
  const id = useId()
  const update = useUpdateBotSettings()
  const create = useCreateBotSettings()
  const form = useForm<SettingsFormValues, unknown, BotSettingsPayload>({
    resolver: zodResolver(settingsFormSchema),
    defaultValues: toFormValues(record ?? DEFAULT_SETTINGS),
  })
  const { errors, isDirty } = form.formState
  const { control, register } = form
  const [botMode, hoursEnabled, daysEnabled, hoursText, timeZone] = useWatch({
    control,
    name: [
      'bot_mode',
      'forbidden_hours_enabled',
      'forbidden_days_enabled',
      'forbidden_hours',
      'user_timezone',
    ],
  })
  const saving = update.isPending || create.isPending
  const zones = useMemo(() => timeZoneOptions(timeZone), [timeZone])
  const hoursPreview = useMemo(() => parseForbiddenHours(hoursText), [hoursText])

  const onSaved = (saved: BotSettings) => {
    notify.success(s.savedToast)
    form.reset(toFormValues(saved))
  }

  const onFailed = (error: unknown) => {
    notify.error(serverMessage(error) ?? s.saveFailed)
    if (error instanceof ApiError && error.fields) {
      let first: SettingsFormField | undefined
      for (const [field, messages] of Object.entries(error.fields)) {
        if (!formFields.has(field) || messages.length === 0) continue
        const name = field as SettingsFormField
        first ??= name
        form.setError(name, { type: 'server', message: messages.join(' ') })
      }
      if (first) form.setFocus(first)
    }
  }

  const onSubmit = form.handleSubmit((payload) => {
    if (record) update.mutate({ id: record.id, payload }, { onSuccess: onSaved, onError: onFailed })
    else create.mutate(payload, { onSuccess: onSaved, onError: onFailed })
  })

  const numberField = (name: NumberFieldName, extra?: { hint?: ReactNode; className?: string }) => {
    const attrs = numberInputs[name]
    return (
      <FormField
        id={`${id}-${name}`}
        label={s.fields[name]}
        apiName={name}
        hint={extra?.hint ?? (name in s.hints ? s.hints[name as keyof typeof s.hints] : undefined)}
        error={errors[name]?.message}
        className={extra?.className}
      >
        {(aria) => (
          <Input
            {...aria}
            type="number"
            inputMode={attrs.step === '1' ? 'numeric' : 'decimal'}
            min={attrs.min}
            max={attrs.max}
            step={attrs.step}
            // Left empty, the field saves as its default (spec section 5): the placeholder shows it.
            placeholder={attrs.placeholder ?? String(DEFAULT_SETTINGS[name])}
            className="font-mono tabular-nums"
            {...register(name)}
          />
        )}
      </FormField>
    )
  }

  const checkboxField = (name: BooleanFieldName, hint?: string) => (
    <CheckboxField control={control} name={name} id={`${id}-${name}`} label={s.fields[name]} hint={hint} />
  )

  return (
    <form noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-6">
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Section icon={Gauge} title={s.sections.mode.title} description={s.sections.mode.description}>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <FormField
              id={`${id}-bot_mode`}
              label={s.fields.bot_mode}
              apiName="bot_mode"
              error={errors.bot_mode?.message}
            >
              {(aria) => (
                <NativeSelect {...aria} {...register('bot_mode')}>
                  <option value="classic">{s.botModes.classic}</option>
                  <option value="martingale">{s.botModes.martingale}</option>
                </NativeSelect>
              )}
            </FormField>
            {numberField('leverage')}
          </div>
          {checkboxField('reverse_mode', s.hints.reverse_mode)}
          {/* Not in the spec: the symbols rating signals trade (the server checks each one). */}
          <FormField
            id={`${id}-symbols`}
            label={s.fields.symbols}
            apiName="symbols"
            hint={s.hints.symbols}
            error={errors.symbols?.message}
          >
            {(aria) => (
              <Input
                {...aria}
                autoComplete="off"
                autoCapitalize="characters"
                spellCheck={false}
                className="font-mono"
                {...register('symbols')}
              />
            )}
          </FormField>
        </Section>

        <Section
          icon={ShieldAlert}
          title={s.sections.limits.title}
          description={s.sections.limits.description}
        >
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {numberField('max_trades')}
            {numberField('initial_stop_loss_pct')}
            {numberField('max_total_usdt')}
            {numberField('max_trade_usdt')}
          </div>
        </Section>

        <Section icon={Target} title={s.sections.exits.title} description={s.sections.exits.description}>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {numberField('take_profit_first_pct')}
            {numberField('take_profit_next_pct')}
          </div>
          {checkboxField('use_trailing_stop', s.hints.use_trailing_stop)}
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {numberField('trail_activation_pct')}
            {numberField('trail_step_pct')}
          </div>
        </Section>

        {botMode === 'martingale' ? (
          <Section
            icon={Layers}
            title={s.sections.martingale.title}
            description={s.sections.martingale.description}
            testId="martingale-settings"
          >
            <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
              {numberField('martingale_max_depth')}
              {numberField('martingale_max_active_chains')}
              {numberField('martingale_step')}
              {numberField('martingale_initial_margin')}
            </div>
          </Section>
        ) : null}

        <Section
          icon={CalendarClock}
          title={s.sections.schedule.title}
          description={s.sections.schedule.description}
        >
          <FormField
            id={`${id}-user_timezone`}
            label={s.fields.user_timezone}
            apiName="user_timezone"
            hint={s.hints.user_timezone}
            error={errors.user_timezone?.message}
          >
            {(aria) => (
              <NativeSelect {...aria} {...register('user_timezone')}>
                {zones.map((zone) => {
                  const offset = timeZoneOffset(zone)
                  return (
                    <option key={zone} value={zone}>
                      {offset ? `${zone} (${offset})` : zone}
                    </option>
                  )
                })}
              </NativeSelect>
            )}
          </FormField>

          <div className="space-y-3 rounded-lg border bg-muted/30 p-4">
            {checkboxField('forbidden_hours_enabled')}
            {hoursEnabled ? (
              <FormField
                id={`${id}-forbidden_hours`}
                label={s.fields.forbidden_hours}
                apiName="forbidden_hours"
                error={errors.forbidden_hours?.message}
                hint={
                  <>
                    {s.hints.forbidden_hours}{' '}
                    <span
                      className={cn(
                        'font-medium',
                        hoursPreview.length ? 'text-foreground' : 'text-amber-800 dark:text-amber-400',
                      )}
                    >
                      {hoursPreview.length
                        ? `${s.hints.forbidden_hours_preview} ${describeForbiddenHours(hoursPreview)}`
                        : s.hints.forbidden_hours_none}
                    </span>
                  </>
                }
              >
                {(aria) => (
                  <Input
                    {...aria}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder={s.forbiddenHoursPlaceholder}
                    className="font-mono"
                    {...register('forbidden_hours')}
                  />
                )}
              </FormField>
            ) : errors.forbidden_hours?.message ? (
              <p className="text-xs font-medium text-destructive">{errors.forbidden_hours.message}</p>
            ) : null}
          </div>

          <div className="space-y-3 rounded-lg border bg-muted/30 p-4">
            {checkboxField('forbidden_days_enabled')}
            {daysEnabled ? <WeekdayPicker control={control} idPrefix={`${id}-day`} /> : null}
            {errors.forbidden_days?.message ? (
              <p className="text-xs font-medium text-destructive">{errors.forbidden_days.message}</p>
            ) : null}
          </div>
        </Section>

        {/* Not in the spec: the protection check and the circuit breakers (docs/alerts.md). */}
        <Section
          icon={ShieldCheck}
          title={s.sections.protection.title}
          description={s.sections.protection.description}
          testId="protection-settings"
        >
          <FormField
            id={`${id}-unprotected_action`}
            label={s.fields.unprotected_action}
            apiName="unprotected_action"
            hint={s.hints.unprotected_action}
            error={errors.unprotected_action?.message}
          >
            {(aria) => (
              <NativeSelect {...aria} {...register('unprotected_action')}>
                <option value="close">{s.unprotectedActions.close}</option>
                <option value="alert">{s.unprotectedActions.alert}</option>
              </NativeSelect>
            )}
          </FormField>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            {numberField('daily_loss_limit_pct', { hint: s.hints.daily_loss_limit_pct })}
            {numberField('max_losses_in_row', { hint: s.hints.max_losses_in_row })}
            {numberField('losses_pause_minutes')}
          </div>
        </Section>

        <Section icon={Send} title={s.sections.telegram.title} description={s.sections.telegram.description}>
          <FormField
            id={`${id}-telegram_id`}
            label={s.fields.telegram_id}
            apiName="telegram_id"
            hint={s.hints.telegram_id}
            error={errors.telegram_id?.message}
          >
            {(aria) => (
              <Input
                {...aria}
                autoComplete="off"
                spellCheck={false}
                inputMode="numeric"
                className="font-mono"
                {...register('telegram_id')}
              />
            )}
          </FormField>
          {checkboxField('telegram_notify_deals', s.hints.telegram_notify_deals)}
          {checkboxField('telegram_notify_stats', s.hints.telegram_notify_stats)}
        </Section>
      </div>

      {/* Not in the spec: what a chain of the values above would cost, before they are saved. */}
      {botMode === 'martingale' ? <RiskPreviewCard control={control} /> : null}

      <div className="sticky bottom-0 z-10 -mx-4 border-t bg-background/85 px-4 py-3 backdrop-blur md:-mx-8 md:px-8">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {isDirty ? (
              <span className="inline-flex items-center gap-2">
                <span aria-hidden="true" className="size-2 rounded-full bg-amber-500" />
                {s.unsaved}
              </span>
            ) : (
              s.saved
            )}
          </p>
          <Button type="submit" size="lg" disabled={saving} className="w-full sm:w-auto">
            {saving ? <Spinner className="size-4" /> : <Save aria-hidden="true" />}
            {saving ? s.saving : s.save}
          </Button>
        </div>
      </div>
    </form>
  )
}

type SectionProps = Omit<Parameters<typeof SettingsCard>[0], 'role' | 'contentClassName'>

/** One section of the form: a settings card grouping its fields. */
function Section(props: SectionProps) {
  return <SettingsCard {...props} role="group" contentClassName="space-y-5" />
}

type CheckboxFieldProps = {
  control: Control<SettingsFormValues, unknown, BotSettingsPayload>
  name: BooleanFieldName
  id: string
  label: string
  hint?: string | undefined
}

function CheckboxField({ control, name, id, label, hint }: CheckboxFieldProps) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <div className="flex items-start gap-3">
          <Checkbox
            id={id}
            ref={field.ref}
            name={field.name}
            checked={field.value}
            onCheckedChange={(checked) => {
              field.onChange(checked === true)
            }}
            onBlur={field.onBlur}
            aria-describedby={hint ? `${id}-hint` : undefined}
            className="mt-0.5"
          />
          <div className="grid gap-1">
            <div className="flex flex-wrap items-baseline gap-x-2">
              <Label htmlFor={id} className="cursor-pointer">
                {label}
              </Label>
              <code aria-hidden="true" className="font-mono text-[11px] text-muted-foreground">
                {name}
              </code>
            </div>
            {hint ? (
              <p id={`${id}-hint`} className="text-xs leading-relaxed text-muted-foreground">
                {hint}
              </p>
            ) : null}
          </div>
        </div>
      )}
    />
  )
}

function WeekdayPicker({
  control,
  idPrefix,
}: {
  control: Control<SettingsFormValues, unknown, BotSettingsPayload>
  idPrefix: string
}) {
  const name: FieldPath<SettingsFormValues> = 'forbidden_days'
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => {
        const days = field.value
        const toggle = (day: number, on: boolean) => {
          const next = on ? [...days.filter((d) => d !== day), day] : days.filter((d) => d !== day)
          field.onChange(next.sort((a, b) => a - b))
        }
        return (
          <fieldset className="space-y-2">
            <legend className="mb-2 text-sm font-medium">{s.fields.forbidden_days}</legend>
            <div className="grid grid-cols-7 gap-1.5">
              {s.weekdays.map((short, day) => {
                const checked = days.includes(day)
                const dayId = `${idPrefix}-${day}`
                return (
                  <label
                    key={short}
                    htmlFor={dayId}
                    title={s.weekdayNames[day]}
                    className={cn(
                      'flex cursor-pointer flex-col items-center gap-1.5 rounded-md border px-1 py-2 text-xs font-medium transition-colors select-none',
                      checked
                        ? 'border-primary/60 bg-primary/10 text-foreground'
                        : 'bg-background/60 text-muted-foreground hover:bg-accent',
                    )}
                  >
                    <span>{short}</span>
                    <Checkbox
                      id={dayId}
                      checked={checked}
                      aria-label={short}
                      onCheckedChange={(on) => {
                        toggle(day, on === true)
                      }}
                      ref={day === 0 ? field.ref : undefined}
                      className="size-4"
                    />
                  </label>
                )
              })}
            </div>
          </fieldset>
        )
      }}
    />
  )
}
