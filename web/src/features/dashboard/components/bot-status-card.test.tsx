import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { ApiKey, BotSettings, Venue } from '@/types/api'
import {
  admin,
  apiKeyRecord,
  botStatusRecord,
  settingsRecord,
  storeSession,
  tradeRecord,
  venues,
} from '@/testing/fixtures'
import { liveSend, openLive } from '@/testing/live'
import { renderApp, sentJson, stubServer } from '@/testing/render-app'
import { REAL_CONFIRMED_STORAGE_KEY } from '@/features/dashboard/utils/real-confirmation'
import {
  BOT_SETTINGS_POLL_INTERVAL_MS,
  botSettingsPollingQueryOptions,
} from '@/features/settings/api/get-bot-settings'

type Reply = { status: number; body?: unknown }

const messages = {
  start_trading_worker: 'Bot started',
  stop_bot: 'Bot stopped',
  start_signals: 'Signals started',
  stop_signals: 'Signals stopped',
} as const

/** The active key of each venue, as GET /api/api-keys/ lists it (none on the paper account). */
const activeKeys: Record<keyof typeof venues, ApiKey[]> = {
  paper: [],
  demo: [apiKeyRecord({ id: 4, is_demo: true, is_active: true })],
  real: [apiKeyRecord({ id: 5, is_demo: false, is_active: true })],
}

/**
 * A bot server: control calls flip the flags like the real one (starting the bot starts signals
 * too). GET /api/bot/status/ answers `venue` (the paper account by default) and GET /api/api-keys/
 * that venue's active key.
 */
function botServer(
  record: BotSettings | null,
  override: Record<string, () => Reply | Promise<Reply>> = {},
  { venue = 'paper', keys }: { venue?: keyof typeof venues; keys?: ApiKey[] } = {},
) {
  let stored = record
  const control = (action: keyof typeof messages) => () => {
    if (!stored) return { status: 404, body: { error: 'Not found' } }
    if (action === 'start_trading_worker')
      stored = { ...stored, is_bot_running: true, is_signals_fetching_active: true }
    if (action === 'stop_bot') stored = { ...stored, is_bot_running: false }
    if (action === 'start_signals') stored = { ...stored, is_signals_fetching_active: true }
    if (action === 'stop_signals') stored = { ...stored, is_signals_fetching_active: false }
    return {
      status: 200,
      body: {
        message: messages[action],
        status: {
          is_bot_running: stored.is_bot_running,
          is_signals_fetching_active: stored.is_signals_fetching_active,
          bot_mode: stored.bot_mode,
        },
      },
    }
  }
  const id = record?.id ?? 0
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot/status/': () => ({ status: 200, body: botStatusRecord({ venue: venues[venue] }) }),
    'GET /api/api-keys/': () => ({ status: 200, body: keys ?? activeKeys[venue] }),
    'GET /api/bot-settings/': () => ({ status: 200, body: stored ? [stored] : [] }),
    [`GET /api/bot-settings/${id}/`]: () =>
      stored ? { status: 200, body: stored } : { status: 404, body: { error: 'Not found' } },
    [`PUT /api/bot-settings/${id}/`]: ({ body }) => {
      if (!stored) return { status: 404, body: { error: 'Not found' } }
      stored = { ...stored, ...(body as Partial<BotSettings>) }
      return { status: 200, body: stored }
    },
    ...Object.fromEntries(
      (Object.keys(messages) as (keyof typeof messages)[]).map((action) => [
        `POST /api/bot-settings/${id}/${action}/`,
        control(action),
      ]),
    ),
    ...override,
  })
  const calls = (method: string, url: string) =>
    fetchMock.mock.calls.filter(([u, init]) => u === url && (init?.method ?? 'GET') === method)
  return { fetchMock, calls }
}

/** "METHOD /path" of every call on the record /api/bot-settings/7/…, in order. */
function recordCalls(fetchMock: ReturnType<typeof botServer>['fetchMock']) {
  return fetchMock.mock.calls
    .map(([url, init]) => `${init?.method ?? 'GET'} ${typeof url === 'string' ? url : ''}`)
    .filter((call) => call.includes('/api/bot-settings/7/'))
}

async function openCard() {
  storeSession()
  const view = renderApp('/dashboard')
  const card = await screen.findByRole('region', { name: 'Bot Status' })
  return { ...view, card: within(card), cardElement: card }
}

describe('bot status card', () => {
  it('shows the title, Stopped, Signals Inactive and the controls', async () => {
    botServer(settingsRecord())
    const { card } = await openCard()
    expect(card.getByText('Current trading bot status and controls')).toBeInTheDocument()
    expect(await card.findByText('Stopped')).toBeInTheDocument()
    expect(card.getByText('Signals Inactive')).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Start Bot' })).toBeEnabled()
    expect(card.getByRole('button', { name: 'Start Signals' })).toBeEnabled()
    expect(card.getByRole('radio', { name: 'Use classic bot' })).toBeChecked()
    expect(card.getByRole('radio', { name: 'Use martingale' })).not.toBeChecked()
  })

  it('shows Running and Signals Active with their stop buttons', async () => {
    botServer(
      settingsRecord({ is_bot_running: true, is_signals_fetching_active: true, bot_mode: 'martingale' }),
    )
    const { card } = await openCard()
    expect(await card.findByText('Running')).toBeInTheDocument()
    expect(card.getByText('Signals Active')).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Stop Bot' })).toBeInTheDocument()
    expect(card.getByRole('button', { name: 'Stop Signals' })).toBeInTheDocument()
    expect(card.getByRole('radio', { name: 'Use martingale' })).toBeChecked()
  })

  it('starts and stops the bot and the signals with their toasts', async () => {
    const { calls } = botServer(settingsRecord())
    const { card } = await openCard()

    await userEvent.click(await card.findByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    expect(screen.getByText('Trading bot has been started or stopped successfully')).toBeInTheDocument()
    expect(await card.findByText('Running')).toBeInTheDocument()
    expect(card.getByText('Signals Active')).toBeInTheDocument()
    expect(calls('POST', '/api/bot-settings/7/start_trading_worker/')).toHaveLength(1)

    await userEvent.click(card.getByRole('button', { name: 'Stop Signals' }))
    expect(await screen.findByText('Signals stopped')).toBeInTheDocument()
    expect(
      screen.getAllByText('Signal fetching has been started or stopped successfully').length,
    ).toBeGreaterThan(0)
    expect(await card.findByText('Signals Inactive')).toBeInTheDocument()

    await userEvent.click(card.getByRole('button', { name: 'Start Signals' }))
    expect(await screen.findByText('Signals started')).toBeInTheDocument()
    expect(await card.findByText('Signals Active')).toBeInTheDocument()

    await userEvent.click(card.getByRole('button', { name: 'Stop Bot' }))
    expect(await screen.findByText('Bot stopped')).toBeInTheDocument()
    expect(await card.findByText('Stopped')).toBeInTheDocument()
  })

  it('Start Bot reads the record, starts the signals first when they are inactive, then the worker', async () => {
    const { fetchMock } = botServer(settingsRecord())
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    const sequence = recordCalls(fetchMock)
    expect(sequence).toEqual([
      'GET /api/bot-settings/7/',
      'POST /api/bot-settings/7/start_signals/',
      'POST /api/bot-settings/7/start_trading_worker/',
    ])
  })

  it('Start Bot with signals already active starts only the worker', async () => {
    const { fetchMock } = botServer(settingsRecord({ is_signals_fetching_active: true }))
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    const sequence = recordCalls(fetchMock)
    expect(sequence).toEqual(['GET /api/bot-settings/7/', 'POST /api/bot-settings/7/start_trading_worker/'])
  })

  it('disables both buttons while a control request runs', async () => {
    let answer: (reply: Reply) => void = () => undefined
    botServer(settingsRecord(), {
      'POST /api/bot-settings/7/start_signals/': () => new Promise<Reply>((resolve) => (answer = resolve)),
    })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Signals' }))
    await waitFor(() => {
      expect(card.getByRole('button', { name: 'Start Signals' })).toBeDisabled()
    })
    expect(card.getByRole('button', { name: 'Start Bot' })).toBeDisabled()
    answer({
      status: 200,
      body: {
        message: 'Signals started',
        status: { is_bot_running: false, is_signals_fetching_active: true },
      },
    })
    expect(await screen.findByText('Signals started')).toBeInTheDocument()
    await waitFor(() => {
      expect(card.getByRole('button', { name: 'Start Bot' })).toBeEnabled()
    })
  })

  it("shows the server's message when a control fails", async () => {
    botServer(settingsRecord(), {
      'POST /api/bot-settings/7/start_trading_worker/': () => ({
        status: 400,
        body: { error: 'No active API key' },
      }),
    })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('No active API key')).toBeInTheDocument()
    expect(card.getByText('Stopped')).toBeInTheDocument()
  })

  it('"Failed to control bot" without a message', async () => {
    botServer(settingsRecord(), { 'POST /api/bot-settings/7/stop_signals/': () => ({ status: 502 }) })
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Signals' }))
    await userEvent.click(await card.findByRole('button', { name: 'Stop Signals' }))
    expect(await screen.findByText('Failed to control bot')).toBeInTheDocument()
  })

  it('"No settings found" when there is no settings record', async () => {
    const { fetchMock } = botServer(null)
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('No settings found')).toBeInTheDocument()
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(false)
  })

  it('saves the bot mode with PUT {bot_mode}', async () => {
    const { calls } = botServer(settingsRecord())
    const { card } = await openCard()
    await userEvent.click(await card.findByRole('radio', { name: 'Use martingale' }))
    await waitFor(() => {
      expect(calls('PUT', '/api/bot-settings/7/')).toHaveLength(1)
    })
    expect(sentJson(calls('PUT', '/api/bot-settings/7/')[0]?.[1])).toEqual({
      bot_mode: 'martingale',
    })
    expect(await screen.findByText('Settings saved successfully')).toBeInTheDocument()
    expect(card.getByRole('radio', { name: 'Use martingale' })).toBeChecked()
  })

  it('"Failed to fetch bot settings" when polling fails', async () => {
    botServer(settingsRecord(), {
      'GET /api/bot-settings/': () => ({ status: 404, body: { error: 'Not found' } }),
    })
    await openCard()
    expect(await screen.findByText('Failed to fetch bot settings')).toBeInTheDocument()
  })

  it("a 403 while polling logs the user out (the spec's one 403 handler)", async () => {
    botServer(settingsRecord(), {
      'GET /api/bot-settings/': () => ({ status: 403, body: { error: 'Forbidden' } }),
    })
    storeSession()
    const { router } = renderApp('/dashboard')
    await screen.findByRole('heading', { name: 'Вход' })
    expect(router.state.location.pathname).toBe('/login')
    expect(localStorage.getItem('token')).toBeNull()
  })

  it('a 403 on the settings page does not log out', async () => {
    botServer(settingsRecord(), {
      'GET /api/bot-settings/': () => ({ status: 403, body: { error: 'Forbidden' } }),
    })
    storeSession()
    const { router } = renderApp('/settings')
    expect(await screen.findByRole('alert')).toHaveTextContent('Не удалось загрузить настройки')
    expect(router.state.location.pathname).toBe('/settings')
    expect(localStorage.getItem('token')).toBe('stored-token')
  })

  it.each([
    ['paper', 'Paper'],
    ['demo', 'Bybit Demo'],
    ['real', 'Bybit Real'],
  ] as const)('shows where the bot trades beside Start Bot: %s reads "%s"', async (venue, label) => {
    botServer(settingsRecord(), {}, { venue })
    const { card } = await openCard()
    const badge = await card.findByText(label)
    expect(badge.closest('div')).toHaveTextContent(new RegExp(`^Trades on${label}$`))
    const others = ['Paper', 'Bybit Demo', 'Bybit Real'].filter((other) => other !== label)
    for (const other of others) expect(card.queryByText(other)).not.toBeInTheDocument()
  })

  it('says when the server running the bot stopped answering, and when another takes over', async () => {
    botServer(settingsRecord(), {
      'GET /api/bot/status/': () => ({
        status: 200,
        body: botStatusRecord({
          trading_worker: 'unknown',
          runs_on: {
            instance: 'host-a',
            here: false,
            answering: false,
            renewed_ms_ago: 5_600,
            taken_over_within_ms: 6_400,
          },
        }),
      }),
    })
    const { card } = await openCard()
    expect(
      await card.findByText(
        'The server running the bot (host-a) stopped answering 6 s ago: another server takes the bot over within 7 s.',
      ),
    ).toBeInTheDocument()
    openLive()
    const answering = {
      instance: 'host-b',
      here: false,
      answering: true,
      renewed_ms_ago: 300,
      taken_over_within_ms: null,
    }
    liveSend({ type: 'bot_status', data: { ...botStatusRecord({ runs_on: answering }), status: 'running' } })
    await waitFor(() => {
      expect(card.queryByText(/stopped answering/)).not.toBeInTheDocument()
    })
  })

  it('says in one line why a running bot is not trading, linking to the page that explains it', async () => {
    botServer(settingsRecord({ is_bot_running: true, is_signals_fetching_active: true }), {
      'GET /api/bot/status/': () => ({
        status: 200,
        body: botStatusRecord({
          is_bot_running: true,
          is_signals_fetching_active: true,
          trading_worker: 'running',
          not_trading: {
            reason: 'forbidden_window',
            detail: 'Wed is a forbidden day in Europe/Moscow',
            facts: { kind: 'forbidden_day', weekday: 2, timezone: 'Europe/Moscow' },
          },
        }),
      }),
    })
    const { card } = await openCard()
    const line = await card.findByText(/^Not trading: Wed is a forbidden day in Europe\/Moscow\./)
    expect(within(line).getByRole('link', { name: 'Change the forbidden days and hours' })).toHaveAttribute(
      'href',
      '/settings',
    )
    openLive()
    const free = {
      ...botStatusRecord({ is_bot_running: true, trading_worker: 'running' }),
      status: 'running',
    }
    liveSend({
      type: 'bot_status',
      data: {
        ...free,
        not_trading: {
          reason: 'signals_inactive',
          detail: 'signals are off, so no signal reaches the bot',
          facts: { kind: 'none' },
        },
      },
    })
    const signals = await card.findByText(/^Not trading: signals are off/)
    expect(within(signals).getByRole('link', { name: 'Open the signals page' })).toHaveAttribute(
      'href',
      '/trading-signals',
    )
    liveSend({ type: 'bot_status', data: free })
    await waitFor(() => {
      expect(card.queryByText(/^Not trading/)).not.toBeInTheDocument()
    })
  })

  it('says why in Russian from the facts, not with the server English sentence', async () => {
    localStorage.setItem('language', 'ru')
    const running = {
      is_bot_running: true,
      is_signals_fetching_active: true,
      trading_worker: 'running' as const,
    }
    botServer(settingsRecord({ is_bot_running: true, is_signals_fetching_active: true }), {
      'GET /api/bot/status/': () => ({
        status: 200,
        body: botStatusRecord({
          ...running,
          not_trading: {
            reason: 'forbidden_window',
            detail: '15:00 in Europe/Moscow is inside the forbidden hours 12:00-18:00',
            facts: {
              kind: 'forbidden_hours',
              local_time: '15:00',
              start: 12,
              end: 18,
              timezone: 'Europe/Moscow',
            },
          },
        }),
      }),
    })
    storeSession()
    renderApp('/dashboard')
    const card = within(await screen.findByRole('region', { name: 'Статус бота' }))
    const line = await card.findByText(
      /^Не торгует: 15:00 \(Europe\/Moscow\) — в запретных часах 12:00–18:00\./,
    )
    expect(within(line).getByRole('link', { name: 'Изменить запретные дни и часы' })).toBeInTheDocument()
    expect(card.queryByText(/forbidden/)).not.toBeInTheDocument()
    openLive()
    const live = { ...botStatusRecord(running), status: 'running' }
    const cases = [
      [
        {
          reason: 'limit_reached',
          detail: '2 martingale chains are open (martingale_max_active_chains 2)',
          facts: { kind: 'open_chains', open: 2, max: 2 },
        },
        'Не торгует: открыто цепочек мартингейла: 2 (martingale_max_active_chains 2).',
      ],
      [
        {
          reason: 'circuit_breaker',
          detail: 'circuit breaker: 3 losses in a row',
          facts: { kind: 'cause', text: '3 losses in a row' },
        },
        'Не торгует: сработал автостоп: 3 losses in a row.',
      ],
      [
        {
          reason: 'forbidden_window',
          detail: 'Sun is a forbidden day in Asia/Tokyo',
          facts: { kind: 'forbidden_day', weekday: 6, timezone: 'Asia/Tokyo' },
        },
        'Не торгует: воскресенье — запретный день (Asia/Tokyo).',
      ],
      [
        {
          reason: 'worker_stopped',
          detail: 'the trading worker is not running: the logs say why',
          facts: { kind: 'none' },
        },
        'Не торгует: торговый процесс не запущен, причина в логе.',
      ],
    ] as const
    for (const [notTrading, sentence] of cases) {
      liveSend({ type: 'bot_status', data: { ...live, not_trading: notTrading } })
      const said = await card.findByText(
        (_, element) => element?.tagName === 'SPAN' && element.textContent.startsWith(sentence),
      )
      expect(said).toBeInTheDocument()
    }
  })

  it('says how many positions Stop Bot leaves open, and where', async () => {
    botServer(settingsRecord({ is_bot_running: true, is_signals_fetching_active: true }), {
      'GET /api/bot/status/': () => ({
        status: 200,
        body: botStatusRecord({ is_bot_running: true, trading_worker: 'running' }),
      }),
      // The open trades the Open Positions card lists: what stays open.
      'GET /api/trades/': () => ({
        status: 200,
        body: {
          count: 2,
          page: 1,
          page_size: 100,
          results: [tradeRecord({ id: 1 }), tradeRecord({ id: 2, symbol: 'ETHUSDT' })],
        },
      }),
    })
    const { card } = await openCard()
    const stop = await card.findByRole('button', { name: 'Stop Bot' })
    await waitFor(() => {
      expect(stop).toHaveAccessibleDescription(
        'Stop Bot closes nothing: 2 positions stay open on Paper, each with its stop loss and take profit on the exchange.',
      )
    })
  })

  it('a live bot_status message moves the venue badge at once', async () => {
    botServer(settingsRecord())
    const { card } = await openCard()
    expect(await card.findByText('Paper')).toBeInTheDocument()
    openLive()
    const venue: Venue = { exchange: 'bybit', environment: 'real' }
    liveSend({ type: 'bot_status', data: { ...botStatusRecord({ venue }), status: 'stopped' } })
    expect(await card.findByText('Bybit Real')).toBeInTheDocument()
    expect(card.queryByText('Paper')).not.toBeInTheDocument()
  })

  it.each(['paper', 'demo'] as const)('Start Bot on %s starts at once, with no dialog', async (venue) => {
    const { calls } = botServer(settingsRecord(), {}, { venue })
    const { card } = await openCard()
    await card.findByText(venue === 'paper' ? 'Paper' : 'Bybit Demo')
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('POST', '/api/bot-settings/7/start_trading_worker/')).toHaveLength(1)
  })

  it('Start Bot on Bybit Real asks first and stays disabled until REAL is typed; confirming starts and remembers the key', async () => {
    const { fetchMock, calls } = botServer(settingsRecord(), {}, { venue: 'real' })
    const { card } = await openCard()
    await card.findByText('Bybit Real')
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))

    const dialog = await screen.findByRole('alertdialog', { name: 'Start trading with real money?' })
    expect(dialog).toHaveAccessibleDescription(/real money on your Bybit mainnet account/)
    const word = within(dialog).getByLabelText('Type REAL to confirm')
    const confirm = within(dialog).getByRole('button', { name: 'Start real trading' })
    expect(word).toHaveFocus()
    expect(confirm).toBeDisabled()
    for (const attempt of ['real', 'REA', 'REALLY']) {
      await userEvent.clear(word)
      await userEvent.type(word, `${attempt}{Enter}`)
      expect(confirm).toBeDisabled()
    }
    expect(recordCalls(fetchMock)).toEqual([])
    expect(localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY)).toBeNull()

    await userEvent.clear(word)
    await userEvent.type(word, 'REAL')
    expect(confirm).toBeEnabled()
    await userEvent.click(confirm)
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('POST', '/api/bot-settings/7/start_trading_worker/')).toHaveLength(1)
    expect(JSON.parse(localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY) ?? 'null')).toEqual([5])
  })

  it('Cancel in the Bybit Real dialog starts nothing', async () => {
    const { fetchMock } = botServer(settingsRecord(), {}, { venue: 'real' })
    const { card } = await openCard()
    await card.findByText('Bybit Real')
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))
    const dialog = await screen.findByRole('alertdialog')
    await userEvent.type(within(dialog).getByLabelText('Type REAL to confirm'), 'REAL')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(recordCalls(fetchMock)).toEqual([])
    expect(card.getByText('Stopped')).toBeInTheDocument()
    expect(localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY)).toBeNull()

    // Opened again, the field is empty and the button disabled.
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))
    const again = await screen.findByRole('alertdialog')
    expect(within(again).getByLabelText('Type REAL to confirm')).toHaveValue('')
    expect(within(again).getByRole('button', { name: 'Start real trading' })).toBeDisabled()
  })

  it('a Bybit Real key confirmed before starts at once; another real key asks again', async () => {
    localStorage.setItem(REAL_CONFIRMED_STORAGE_KEY, JSON.stringify([5]))
    const { calls } = botServer(settingsRecord(), {}, { venue: 'real' })
    const { card, unmount } = await openCard()
    await card.findByText('Bybit Real')
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument()
    expect(calls('POST', '/api/bot-settings/7/start_trading_worker/')).toHaveLength(1)
    unmount()

    botServer(
      settingsRecord(),
      {},
      { venue: 'real', keys: [apiKeyRecord({ id: 6, is_demo: false, is_active: true })] },
    )
    const second = await openCard()
    await second.card.findByText('Bybit Real')
    await userEvent.click(second.card.getByRole('button', { name: 'Start Bot' }))
    expect(
      await screen.findByRole('alertdialog', { name: 'Start trading with real money?' }),
    ).toBeInTheDocument()
  })

  it('asks for REAL whenever the status or the keys list says Bybit Real, and remembers only a real key', async () => {
    // The status says real, the list a Demo key active (it disagrees): asked, and the Demo key is
    // not remembered as confirmed.
    const first = botServer(settingsRecord(), {}, { venue: 'real', keys: activeKeys.demo })
    const view = await openCard()
    await view.card.findByText('Bybit Real')
    await userEvent.click(view.card.getByRole('button', { name: 'Start Bot' }))
    const dialog = await screen.findByRole('alertdialog')
    await userEvent.type(within(dialog).getByLabelText('Type REAL to confirm'), 'REAL')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Start real trading' }))
    expect(await screen.findByText('Bot started')).toBeInTheDocument()
    expect(first.calls('POST', '/api/bot-settings/7/start_trading_worker/')).toHaveLength(1)
    expect(localStorage.getItem(REAL_CONFIRMED_STORAGE_KEY)).toBeNull()
    view.unmount()

    // Even with that Demo key's id stored as confirmed, a real status still asks.
    localStorage.setItem(REAL_CONFIRMED_STORAGE_KEY, JSON.stringify([4]))
    const second = botServer(settingsRecord(), {}, { venue: 'real', keys: activeKeys.demo })
    const again = await openCard()
    await again.card.findByText('Bybit Real')
    await userEvent.click(again.card.getByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByRole('alertdialog')).toBeInTheDocument()
    expect(recordCalls(second.fetchMock)).toEqual([])
    again.unmount()

    // The status says paper, the list a Bybit Real key active: asked too.
    const third = botServer(settingsRecord(), {}, { venue: 'paper', keys: activeKeys.real })
    const last = await openCard()
    await last.card.findByText('Paper')
    await userEvent.click(last.card.getByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByRole('alertdialog')).toBeInTheDocument()
    expect(recordCalls(third.fetchMock)).toEqual([])
  })

  it('asks for REAL when neither the venue nor the keys can be read', async () => {
    const { fetchMock } = botServer(settingsRecord(), {
      'GET /api/bot/status/': () => ({ status: 404, body: { error: 'Not found' } }),
      'GET /api/api-keys/': () => ({ status: 404, body: { error: 'Not found' } }),
    })
    const { card } = await openCard()
    await waitFor(() => {
      expect(card.getByRole('button', { name: 'Start Bot' })).toBeEnabled()
    })
    await userEvent.click(card.getByRole('button', { name: 'Start Bot' }))
    expect(await screen.findByRole('alertdialog')).toBeInTheDocument()
    expect(recordCalls(fetchMock)).toEqual([])
  })

  it('polls every 5 seconds', () => {
    expect(BOT_SETTINGS_POLL_INTERVAL_MS).toBe(5000)
    expect(botSettingsPollingQueryOptions().refetchInterval).toBe(5000)
  })
})
