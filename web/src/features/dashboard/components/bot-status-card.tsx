import { Activity, Play, Square, TriangleAlert } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { Link } from 'react-router'
import { VenueBadge } from '@/components/venue-badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { RadioGroup, RadioGroupItem } from '@/components/ui/radio-group'
import { LoadingState } from '@/components/query-state'
import { Spinner } from '@/components/ui/spinner'
import { serverMessage } from '@/lib/api-client'
import { notify } from '@/lib/toast'
import { cn } from '@/lib/utils'
import { useLiveConnection } from '@/lib/live/use-live'
import { isRealVenue, venueLabel, venueStrings } from '@/lib/venue'
import type { BotMode, NotTrading, NotTradingReason } from '@/types/api'
import { useApiKeys } from '@/features/api-keys/api/get-api-keys'
import { useBotSettingsPolling } from '@/features/settings/api/get-bot-settings'
import { useUpdateBotSettings } from '@/features/settings/api/update-bot-settings'
import { useControlBot, type BotControlAction } from '@/features/dashboard/api/control-bot'
import { useOpenTrades } from '@/features/trades/api/get-open-trades'
import { useBotStatus } from '@/features/dashboard/api/get-bot-status'
import { RealConfirmDialog } from '@/features/dashboard/components/real-confirm-dialog'
import { dashboardStrings } from '@/features/dashboard/strings'
import { isRealConfirmed, rememberRealConfirmed } from '@/features/dashboard/utils/real-confirmation'

const s = dashboardStrings.botStatus

/** The toast of a control that worked, read when it is shown so that it is in the current language. */
function successToast(action: BotControlAction): { title: string; description: string } {
  switch (action) {
    case 'start_trading_worker':
      return { title: s.botStarted, description: s.botToastText }
    case 'stop_bot':
      return { title: s.botStopped, description: s.botToastText }
    case 'start_signals':
      return { title: s.signalsStarted, description: s.signalsToastText }
    case 'stop_signals':
      return { title: s.signalsStopped, description: s.signalsToastText }
  }
}

function StatusTile({ on, label }: { on: boolean; label: string }) {
  return (
    <div
      className={cn(
        'flex items-center gap-3 rounded-lg border px-4 py-3',
        on ? 'border-success/30 bg-success/[0.07]' : 'border-destructive/25 bg-destructive/[0.05]',
      )}
    >
      <span className="relative flex size-2.5 shrink-0" aria-hidden="true">
        {on ? (
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-success opacity-60" />
        ) : null}
        <span
          data-testid="status-dot"
          className={cn('relative inline-flex size-2.5 rounded-full', on ? 'bg-success' : 'bg-destructive')}
        />
      </span>
      <span className="text-sm font-semibold whitespace-nowrap">{label}</span>
    </div>
  )
}

/**
 * "Bot Status" (spec section 2): polls the settings record every 5 seconds (a 403 there logs out),
 * starts and stops the bot and the signals, and switches the bot mode with PUT `{bot_mode}`.
 *
 * Beside the controls, the venue the bot trades on (GET /api/bot/status/, kept current by the live
 * `bot_status` messages). On Bybit Real, Start Bot first asks for REAL to be typed, once per active
 * key on this browser (`utils/real-confirmation.ts`); Paper and Demo start at once. The venue counts
 * as real when the status says so or the keys list shows a Bybit Real key active; when neither could
 * be read it is not known, and the dialog is asked rather than skipped. While both are still
 * loading, Start Bot waits.
 */
export function BotStatusCard() {
  const id = useId()
  const settings = useBotSettingsPolling()
  const control = useControlBot()
  const updateMode = useUpdateBotSettings()
  const status = useBotStatus()
  const keys = useApiKeys()
  const [confirmingReal, setConfirmingReal] = useState(false)
  const record = settings.data ?? null
  const venue = status.data?.venue
  const { lostSince } = useLiveConnection()
  // The open trades the Open Positions card lists (refetched on every fill and close).
  const openTrades = useOpenTrades()
  const notTrading = status.data?.not_trading
  const silentOwner = status.data?.runs_on?.answering === false ? status.data.runs_on : null
  const activeKey = keys.data?.find((key) => key.is_active)
  const activeKeyReal = activeKey?.exchange === 'bybit' && !activeKey.is_demo
  const venueLoading = status.isPending && keys.isPending
  const mayBeReal = isRealVenue(venue) || activeKeyReal || (venue === undefined && keys.data === undefined)

  useEffect(() => {
    // With the live connection lost, its one banner says so (issue 33): no toast every 5 s.
    if (settings.isError && lostSince === null) notify.error(s.fetchFailed, { id: 'bot-settings-poll' })
  }, [settings.isError, settings.errorUpdatedAt, lostSince])

  const run = (action: BotControlAction) => {
    if (!record) {
      notify.error(s.noSettings)
      return
    }
    control.mutate(
      { id: record.id, action },
      {
        onSuccess: () => {
          const toast = successToast(action)
          notify.success(toast.title, { description: toast.description })
        },
        onError: (error) => notify.error(serverMessage(error) ?? s.controlFailed),
      },
    )
  }

  const startBot = () => {
    if (!record) {
      notify.error(s.noSettings)
      return
    }
    // Only a Bybit Real key in the list can be confirmed: a list that disagrees with the status asks.
    if (mayBeReal && !(activeKey && activeKeyReal && isRealConfirmed(activeKey.id))) {
      setConfirmingReal(true)
      return
    }
    run('start_trading_worker')
  }

  const confirmReal = () => {
    if (activeKey && activeKeyReal) rememberRealConfirmed(activeKey.id)
    run('start_trading_worker')
  }

  const changeMode = (value: string) => {
    if (value !== 'classic' && value !== 'martingale') return
    if (!record) {
      notify.error(s.noSettings)
      return
    }
    updateMode.mutate(
      { id: record.id, payload: { bot_mode: value } },
      {
        onSuccess: () => notify.success(s.modeSaved),
        onError: (error) => notify.error(serverMessage(error) ?? s.modeSaveFailed),
      },
    )
  }

  const running = record?.is_bot_running ?? false
  // Stopping the bot closes nothing: say what stays open, and where.
  const stopLeaves = running ? (openTrades.data?.length ?? 0) : 0
  const signals = record?.is_signals_fetching_active ?? false
  const busy = control.isPending
  const mode: BotMode | undefined = updateMode.isPending
    ? updateMode.variables.payload.bot_mode
    : record?.bot_mode
  const pendingAction = busy ? control.variables.action : null

  return (
    <Card aria-labelledby={`${id}-title`} role="region">
      <CardHeader className="flex-row items-start justify-between gap-4 space-y-0">
        <div className="space-y-1.5">
          <CardTitle>
            <h2 id={`${id}-title`} className="text-base">
              {s.title}
            </h2>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
        {settings.isFetching && !settings.isPending ? (
          <Spinner className="size-4 text-muted-foreground" />
        ) : null}
      </CardHeader>
      <CardContent className="space-y-5">
        {settings.isPending ? (
          <LoadingState label={s.loading} className="py-10" />
        ) : (
          <>
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-live="polite">
              <StatusTile on={running} label={running ? s.running : s.stopped} />
              <StatusTile on={signals} label={signals ? s.signalsActive : s.signalsInactive} />
            </div>

            {venue ? (
              <div className="flex flex-wrap items-center gap-2 text-sm text-muted-foreground">
                <span>{s.venueLabel}</span>
                <VenueBadge venue={venue} />
              </div>
            ) : null}

            {notTrading ? <NotTradingLine why={notTrading} /> : null}

            {silentOwner ? (
              <p role="status" className="text-sm text-muted-foreground">
                {s.ownerSilent(
                  silentOwner.instance,
                  Math.round(silentOwner.renewed_ms_ago / 1000),
                  Math.ceil((silentOwner.taken_over_within_ms ?? 0) / 1000),
                )}
              </p>
            ) : null}

            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
              <Button
                size="lg"
                variant={running ? 'destructive' : 'default'}
                disabled={busy || (!running && venueLoading)}
                aria-describedby={stopLeaves > 0 ? `${id}-stop-note` : undefined}
                onClick={() => {
                  if (running) run('stop_bot')
                  else startBot()
                }}
              >
                {pendingAction === 'stop_bot' || pendingAction === 'start_trading_worker' ? (
                  <Spinner className="size-4" />
                ) : running ? (
                  <Square aria-hidden="true" />
                ) : (
                  <Play aria-hidden="true" />
                )}
                {running ? s.stopBot : s.startBot}
              </Button>
              <Button
                size="lg"
                variant="outline"
                disabled={busy}
                onClick={() => {
                  run(signals ? 'stop_signals' : 'start_signals')
                }}
              >
                {pendingAction === 'stop_signals' || pendingAction === 'start_signals' ? (
                  <Spinner className="size-4" />
                ) : (
                  <Activity aria-hidden="true" />
                )}
                {signals ? s.stopSignals : s.startSignals}
              </Button>
            </div>
            {stopLeaves > 0 ? (
              <p id={`${id}-stop-note`} className="text-xs text-muted-foreground">
                {s.stopLeavesOpen(stopLeaves, venue ? venueLabel(venue) : venueStrings.paper)}
              </p>
            ) : null}

            <div className="space-y-2">
              <p
                id={`${id}-mode`}
                className="text-xs font-medium tracking-wide text-muted-foreground uppercase"
              >
                {s.modeLabel}
              </p>
              <RadioGroup
                aria-labelledby={`${id}-mode`}
                value={mode ?? ''}
                onValueChange={changeMode}
                disabled={updateMode.isPending || !record}
                className="grid grid-cols-1 gap-2 sm:grid-cols-2"
              >
                {(['classic', 'martingale'] as const).map((value) => (
                  <Label
                    key={value}
                    htmlFor={`${id}-${value}`}
                    className={cn(
                      'flex cursor-pointer items-center gap-3 rounded-lg border px-4 py-3 font-normal transition-colors hover:bg-accent/60',
                      mode === value && 'border-primary/60 bg-primary/[0.06]',
                    )}
                  >
                    <RadioGroupItem id={`${id}-${value}`} value={value} />
                    <span className="text-sm">{value === 'classic' ? s.classic : s.martingale}</span>
                  </Label>
                ))}
              </RadioGroup>
            </div>
          </>
        )}
        <RealConfirmDialog open={confirmingReal} onOpenChange={setConfirmingReal} onConfirm={confirmReal} />
      </CardContent>
    </Card>
  )
}

const NOT_TRADING_PAGES: Record<NotTradingReason, string> = {
  worker_stopped: '/logs',
  out_of_sync: '/logs',
  signals_inactive: '/trading-signals',
  circuit_breaker: '/logs',
  forbidden_window: '/settings',
  limit_reached: '/settings',
}

/** The server's reason in the current language, made from its facts (its `detail` is English). */
function notTradingDetail({ reason, facts }: NotTrading): string {
  const why = s.notTradingWhy
  switch (facts.kind) {
    case 'none':
      return reason === 'worker_stopped' ? why.workerStopped : why.signalsInactive
    case 'cause':
      return reason === 'out_of_sync' ? why.outOfSync(facts.text) : why.circuitBreaker(facts.text)
    case 'forbidden_day':
      return why.forbiddenDay(facts.weekday, facts.timezone)
    case 'forbidden_hours':
      return why.forbiddenHours(facts.local_time, facts.start, facts.end, facts.timezone)
    case 'open_positions':
      return why.openPositions(facts.open, facts.max)
    case 'open_chains':
      return why.openChains(facts.open, facts.max)
  }
}

/** One line: why the running bot opens no position now, linking to the page that explains. */
function NotTradingLine({ why }: { why: NotTrading }) {
  return (
    <p role="status" data-reason={why.reason} className="flex items-start gap-2 text-sm">
      <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-destructive" />
      <span>
        {s.notTrading(notTradingDetail(why))}{' '}
        <Link to={NOT_TRADING_PAGES[why.reason]} className="font-medium underline underline-offset-2">
          {s.notTradingLinks[why.reason]}
        </Link>
      </span>
    </p>
  )
}
