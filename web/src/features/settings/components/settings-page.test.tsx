import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BotSettings, BotSettingsPayload, TimeZone } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'

type Reply = { status: number; body?: unknown }

/** A settings server: GET lists the record, PUT answers with `onPut` (default: store and echo). */
function settingsServer(record: BotSettings, onPut?: (body: unknown) => Reply | Promise<Reply>) {
  let stored = record
  const puts: unknown[] = []
  const fetchMock = stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [stored] }),
    [`PUT /api/bot-settings/${record.id}/`]: ({ body }) => {
      puts.push(body)
      if (onPut) return onPut(body)
      const sent = body as BotSettingsPayload
      // The server stores an emptied trail activation as its default.
      const trail =
        sent.trail_activation_pct === null ? 1 : (sent.trail_activation_pct ?? stored.trail_activation_pct)
      stored = { ...stored, ...(body as Partial<BotSettings>), trail_activation_pct: trail }
      return { status: 200, body: stored }
    },
  })
  return { fetchMock, puts }
}

async function openSettings() {
  storeSession()
  renderApp('/settings')
  return screen.findByRole('button', { name: 'Сохранить настройки' })
}

describe('settings page', () => {
  it('shows a spinner while loading, then every field with the stored values', async () => {
    let answer: (reply: Reply) => void = () => undefined
    storeSession()
    stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'GET /api/bot-settings/': () => new Promise<Reply>((resolve) => (answer = resolve)),
    })
    renderApp('/settings')
    expect(await screen.findByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeInTheDocument()
    expect(screen.getByRole('status')).toHaveTextContent('Загрузка настроек...')
    answer({ status: 200, body: [settingsRecord({ telegram_id: '12345', leverage: 20 })] })

    await screen.findByRole('button', { name: 'Сохранить настройки' })
    expect(screen.getByLabelText('Режим бота')).toHaveValue('classic')
    expect(screen.getByLabelText('Макс. открытых сделок')).toHaveValue(3)
    expect(screen.getByLabelText('Макс. общая маржа, USDT')).toHaveValue(1000)
    expect(screen.getByLabelText('Маржа на сделку, USDT')).toHaveValue(100)
    expect(screen.getByLabelText('Начальный стоп-лосс, %')).toHaveValue(5)
    expect(screen.getByLabelText('Первый тейк-профит, %')).toHaveValue(10)
    expect(screen.getByLabelText('Шаг тейк-профита, %')).toHaveValue(10)
    expect(screen.getByLabelText('Активация трейлинга, %')).toHaveValue(1)
    expect(screen.getByLabelText('Шаг трейлинга, %')).toHaveValue(0.5)
    expect(screen.getByLabelText('Кредитное плечо')).toHaveValue(20)
    expect(screen.getByLabelText('Telegram ID')).toHaveValue('12345')
    expect(screen.getByLabelText('Часовой пояс')).toHaveValue('Europe/Moscow')
    expect(screen.getByRole('checkbox', { name: 'Трейлинг-стоп' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Реверсивный режим' })).not.toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Уведомлять о сделках' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Присылать статистику' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Запретные часы' })).not.toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Запретные дни недели' })).not.toBeChecked()
  })

  it('shows the two hints of the spec', async () => {
    settingsServer(settingsRecord({ bot_mode: 'martingale' }))
    await openSettings()
    expect(screen.getByLabelText('Начальный стоп-лосс, %')).toHaveAccessibleDescription(
      'Разделите желаемый процент на кредитное плечо.',
    )
    expect(screen.getByLabelText('Начальная маржа, USDT')).toHaveAccessibleDescription(
      'В USDT без учёта плеча: плечо применяется автоматически.',
    )
  })

  it('shows the martingale fields only in martingale mode', async () => {
    settingsServer(settingsRecord())
    await openSettings()
    const martingaleLabels = [
      'Макс. глубина цепочки',
      'Макс. активных цепочек',
      'Множитель шага',
      'Начальная маржа, USDT',
    ]
    for (const label of martingaleLabels) expect(screen.queryByLabelText(label)).not.toBeInTheDocument()

    await userEvent.selectOptions(screen.getByLabelText('Режим бота'), 'martingale')
    expect(screen.getByLabelText('Макс. глубина цепочки')).toHaveValue(4)
    expect(screen.getByLabelText('Макс. активных цепочек')).toHaveValue(1)
    expect(screen.getByLabelText('Множитель шага')).toHaveValue(2)
    expect(screen.getByLabelText('Начальная маржа, USDT')).toHaveValue(2)

    await userEvent.selectOptions(screen.getByLabelText('Режим бота'), 'classic')
    for (const label of martingaleLabels) expect(screen.queryByLabelText(label)).not.toBeInTheDocument()
  })

  it('shows the hours input only when forbidden hours are enabled, with the stored value', async () => {
    settingsServer(
      settingsRecord({
        forbidden_hours: [
          [23, 1],
          [6, 8],
        ],
      }),
    )
    await openSettings()
    expect(screen.queryByLabelText('Интервалы часов')).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Запретные часы' }))
    const hours = screen.getByLabelText('Интервалы часов')
    expect(hours).toHaveValue('23.00-1.00, 6.00-8.00')
    expect(screen.getByText(/Будет сохранено: 23:00–01:00, 06:00–08:00/)).toBeInTheDocument()
    await userEvent.clear(hours)
    await userEvent.type(hours, 'nonsense')
    expect(screen.getByText('Ни одного распознанного интервала.')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Запретные часы' }))
    expect(screen.queryByLabelText('Интервалы часов')).not.toBeInTheDocument()
  })

  it('shows the weekday checkboxes only when forbidden days are enabled', async () => {
    settingsServer(settingsRecord({ forbidden_days_enabled: true, forbidden_days: [0, 6] }))
    await openSettings()
    const days = within(screen.getByRole('group', { name: 'Дни недели' }))
    expect(days.getAllByRole('checkbox').map((box) => box.getAttribute('aria-label'))).toEqual([
      'Пн',
      'Вт',
      'Ср',
      'Чт',
      'Пт',
      'Сб',
      'Вс',
    ])
    expect(days.getByRole('checkbox', { name: 'Пн' })).toBeChecked()
    expect(days.getByRole('checkbox', { name: 'Вт' })).not.toBeChecked()
    expect(days.getByRole('checkbox', { name: 'Вс' })).toBeChecked()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Запретные дни недели' }))
    expect(screen.queryByRole('group', { name: 'Дни недели' })).not.toBeInTheDocument()
  })

  it('saves the whole form: numbers, parsed hours, sorted days, emptied fields as their defaults', async () => {
    const { puts } = settingsServer(
      settingsRecord({ leverage: 20, trail_step_pct: 0.8, trail_activation_pct: 2.5 }),
    )
    await openSettings()
    const maxTrades = screen.getByLabelText('Макс. открытых сделок')
    await userEvent.clear(maxTrades)
    await userEvent.type(maxTrades, '5')
    await userEvent.clear(screen.getByLabelText('Активация трейлинга, %'))
    // An emptied number does not block the save: it is replaced by its default (spec section 5).
    await userEvent.clear(screen.getByLabelText('Шаг трейлинга, %'))
    await userEvent.clear(screen.getByLabelText('Кредитное плечо'))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Запретные часы' }))
    const hours = screen.getByLabelText('Интервалы часов')
    await userEvent.clear(hours)
    await userEvent.type(hours, '23.00-1.00, junk, 6.30-8.00')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Запретные дни недели' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Сб' }))
    // Monday was stored checked: this unchecks it.
    await userEvent.click(screen.getByRole('checkbox', { name: 'Пн' }))
    await userEvent.selectOptions(screen.getByLabelText('Часовой пояс'), 'Asia/Tokyo')
    await userEvent.type(screen.getByLabelText('Telegram ID'), ' 987 ')
    await userEvent.selectOptions(screen.getByLabelText('Если стоп не восстановить'), 'alert')
    await userEvent.type(screen.getByLabelText('Дневной лимит убытка, %'), '.5')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))

    expect(await screen.findByText('Settings saved successfully')).toBeInTheDocument()
    expect(puts).toEqual([
      {
        bot_mode: 'classic',
        max_trades: 5,
        max_total_usdt: 1000,
        max_trade_usdt: 100,
        initial_stop_loss_pct: 5,
        take_profit_first_pct: 10,
        take_profit_next_pct: 10,
        use_trailing_stop: true,
        trail_activation_pct: 1,
        trail_step_pct: 0.5,
        leverage: 10,
        reverse_mode: false,
        telegram_id: '987',
        telegram_notify_deals: true,
        telegram_notify_stats: true,
        user_timezone: 'Asia/Tokyo',
        forbidden_hours_enabled: true,
        forbidden_hours: [
          [23, 1],
          [6, 8],
        ],
        forbidden_days_enabled: true,
        forbidden_days: [5, 6],
        symbols: [],
        unprotected_action: 'alert',
        daily_loss_limit_pct: 0.5,
        max_losses_in_row: 0,
        losses_pause_minutes: 60,
      },
    ])
    // The form shows what the server stored, in the form's format.
    expect(screen.getByLabelText('Интервалы часов')).toHaveValue('23.00-1.00, 6.00-8.00')
    expect(screen.getByLabelText('Активация трейлинга, %')).toHaveValue(1)
  })

  it('sends the martingale fields in martingale mode', async () => {
    const { puts } = settingsServer(settingsRecord({ bot_mode: 'martingale' }))
    await openSettings()
    const step = screen.getByLabelText('Множитель шага')
    await userEvent.clear(step)
    await userEvent.type(step, '1.5')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    await screen.findByText('Settings saved successfully')
    expect(puts[0]).toMatchObject({
      bot_mode: 'martingale',
      martingale_max_depth: 4,
      martingale_max_active_chains: 1,
      martingale_step: 1.5,
      martingale_initial_margin: 2,
    })
  })

  it('reads "Сохраняю..." while saving', async () => {
    let answer: (reply: Reply) => void = () => undefined
    settingsServer(settingsRecord(), () => new Promise<Reply>((resolve) => (answer = resolve)))
    await openSettings()
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    const saving = await screen.findByRole('button', { name: 'Сохраняю...' })
    expect(saving).toBeDisabled()
    answer({ status: 200, body: settingsRecord() })
    expect(await screen.findByRole('button', { name: 'Сохранить настройки' })).toBeEnabled()
  })

  it('checks the form before sending anything', async () => {
    const { puts } = settingsServer(settingsRecord())
    await openSettings()
    const maxTrades = screen.getByLabelText('Макс. открытых сделок')
    await userEvent.clear(maxTrades)
    await userEvent.type(maxTrades, '0')
    const leverage = screen.getByLabelText('Кредитное плечо')
    await userEvent.clear(leverage)
    await userEvent.type(leverage, '101')
    const stopLoss = screen.getByLabelText('Начальный стоп-лосс, %')
    await userEvent.clear(stopLoss)
    await userEvent.type(stopLoss, '0.005')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))

    expect(await screen.findByText('Не меньше 1')).toBeInTheDocument()
    expect(screen.getByLabelText('Макс. открытых сделок')).toHaveAccessibleDescription('Не меньше 1')
    expect(screen.getByLabelText('Кредитное плечо')).toHaveAccessibleDescription(/Не больше 100/)
    expect(screen.getByLabelText('Начальный стоп-лосс, %')).toHaveAccessibleDescription(/Не меньше 0.01/)
    expect(screen.getByLabelText('Макс. открытых сделок')).toHaveAttribute('aria-invalid', 'true')
    expect(puts).toEqual([])
  })

  it("shows the server's sentence as a toast and its field errors next to the fields", async () => {
    settingsServer(settingsRecord(), () => ({
      status: 400,
      body: {
        error: 'Some settings are invalid.',
        fields: { user_timezone: ['"Mars/Olympus" is not a known IANA time zone.'] },
      },
    }))
    await openSettings()
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    expect(await screen.findByText('Some settings are invalid.')).toBeInTheDocument()
    expect(screen.getByLabelText('Часовой пояс')).toHaveAccessibleDescription(
      /"Mars\/Olympus" is not a known IANA time zone\./,
    )
  })

  it('shows the saved symbols joined with ", " and says what an empty list means', async () => {
    settingsServer(settingsRecord({ symbols: ['BTCUSDT', 'ETHUSDT', '1000PEPEUSDT'] }))
    await openSettings()
    const symbols = screen.getByLabelText('Symbols')
    expect(symbols).toHaveValue('BTCUSDT, ETHUSDT, 1000PEPEUSDT')
    expect(symbols).toHaveAccessibleDescription(
      "Empty: every symbol your account's market rates. TradingView alerts are not limited by this list.",
    )
  })

  it('sends the typed symbols trimmed and upper-cased, empty entries dropped', async () => {
    const { puts } = settingsServer(settingsRecord({ symbols: [] }))
    await openSettings()
    const symbols = screen.getByLabelText('Symbols')
    expect(symbols).toHaveValue('')
    await userEvent.type(symbols, 'btcusdt,  ethusdt ,')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    await screen.findByText('Settings saved successfully')
    expect(puts).toHaveLength(1)
    expect(puts[0]).toHaveProperty('symbols', ['BTCUSDT', 'ETHUSDT'])
    // The form shows what the server stored.
    expect(screen.getByLabelText('Symbols')).toHaveValue('BTCUSDT, ETHUSDT')
  })

  it('sends symbols separated by spaces alone as a list too', async () => {
    const { puts } = settingsServer(settingsRecord({ symbols: [] }))
    await openSettings()
    await userEvent.type(screen.getByLabelText('Symbols'), ' solusdt  wifUSDT ')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    await screen.findByText('Settings saved successfully')
    expect(puts[0]).toHaveProperty('symbols', ['SOLUSDT', 'WIFUSDT'])
  })

  it('sends [] (every symbol) when the symbols are cleared', async () => {
    const { puts } = settingsServer(settingsRecord({ symbols: ['BTCUSDT', 'ETHUSDT'] }))
    await openSettings()
    const symbols = screen.getByLabelText('Symbols')
    expect(symbols).toHaveValue('BTCUSDT, ETHUSDT')
    await userEvent.clear(symbols)
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    await screen.findByText('Settings saved successfully')
    expect(puts).toHaveLength(1)
    expect(puts[0]).toHaveProperty('symbols', [])
    expect(screen.getByLabelText('Symbols')).toHaveValue('')
  })

  it("shows the server's symbols error under the Symbols field", async () => {
    const { puts } = settingsServer(settingsRecord({ symbols: [] }), () => ({
      status: 400,
      body: {
        error: "Invalid input. symbols: Not traded on this account's market: WIFUSDT.",
        fields: { symbols: ["Not traded on this account's market: WIFUSDT."] },
      },
    }))
    await openSettings()
    await userEvent.type(screen.getByLabelText('Symbols'), 'BTCUSDT, wifusdt')
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    expect(
      await screen.findByText("Invalid input. symbols: Not traded on this account's market: WIFUSDT."),
    ).toBeInTheDocument()
    expect(puts[0]).toHaveProperty('symbols', ['BTCUSDT', 'WIFUSDT'])
    const symbols = screen.getByLabelText('Symbols')
    expect(symbols).toHaveAttribute('aria-invalid', 'true')
    // The error first, then the help text (the error sits right under the input).
    expect(symbols).toHaveAccessibleDescription(
      "Not traded on this account's market: WIFUSDT. Empty: every symbol your account's market rates. TradingView alerts are not limited by this list.",
    )
    expect(symbols).toHaveFocus()
    // What was typed stays for the user to fix.
    expect(symbols).toHaveValue('BTCUSDT, wifusdt')
  })

  it('shows "Failed to save settings" when the server gives no sentence', async () => {
    settingsServer(settingsRecord(), () => ({ status: 502 }))
    await openSettings()
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить настройки' }))
    expect(await screen.findByText('Failed to save settings')).toBeInTheDocument()
  })

  it('keeps a stored time zone the browser does not list selectable', async () => {
    settingsServer(settingsRecord({ user_timezone: 'Mars/Olympus_Mons' as TimeZone }))
    await openSettings()
    const zone = screen.getByLabelText('Часовой пояс')
    expect(zone).toHaveValue('Mars/Olympus_Mons')
    expect(within(zone).getByRole('option', { name: 'Mars/Olympus_Mons' })).toBeInTheDocument()
    expect(within(zone).getByRole('option', { name: /^Asia\/Tokyo/ })).toBeInTheDocument()
  })

  it('retries the settings query once, after 1 second', async () => {
    storeSession()
    const started: number[] = []
    stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'GET /api/bot-settings/': () => {
        started.push(Date.now())
        return started.length === 1
          ? { status: 503, body: { error: 'Service unavailable' } }
          : { status: 200, body: [settingsRecord()] }
      },
    })
    renderApp('/settings')
    await screen.findByRole('button', { name: 'Сохранить настройки' }, { timeout: 3000 })
    // Two reads of the record (the form's, and the polled one the times' zone comes from); the
    // one answered 503 is retried once, a second later.
    await waitFor(
      () => {
        expect(started).toHaveLength(3)
      },
      { timeout: 3000 },
    )
    expect((started[2] ?? 0) - (started[0] ?? 0)).toBeGreaterThanOrEqual(950)
  })

  it('says so when the settings cannot be loaded', async () => {
    storeSession()
    const fetchMock = stubServer({
      'GET /api/auth/me/': () => ({ status: 200, body: admin }),
      'GET /api/bot-settings/': () => ({ status: 404, body: { error: 'Not found' } }),
    })
    renderApp('/settings')
    expect(await screen.findByRole('alert')).toHaveTextContent('Не удалось загрузить настройки')
    await waitFor(() => {
      expect(fetchMock.mock.calls.filter(([url]) => url === '/api/bot-settings/')).toHaveLength(1)
    })
  })
})
