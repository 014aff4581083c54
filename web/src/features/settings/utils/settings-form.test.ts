import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SETTINGS,
  decimalPlaces,
  settingsFormSchema,
  toFormValues,
  type SettingsFormValues,
} from '@/features/settings/utils/settings-form'

const classic = toFormValues(DEFAULT_SETTINGS)
const martingale: SettingsFormValues = { ...classic, bot_mode: 'martingale' }

function errorsOf(values: SettingsFormValues): Record<string, string> {
  const result = settingsFormSchema.safeParse(values)
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]))
}

function accepts(values: SettingsFormValues) {
  const result = settingsFormSchema.safeParse(values)
  if (!result.success) throw new Error(JSON.stringify(result.error.issues))
  return result.data
}

describe('settings form schema', () => {
  it('keeps the trader bounds the server keeps (depth 20, stop loss below 100, 24 intervals)', () => {
    expect(accepts({ ...martingale, martingale_max_depth: '20' }).martingale_max_depth).toBe(20)
    expect(errorsOf({ ...martingale, martingale_max_depth: '21' })).toHaveProperty('martingale_max_depth')
    expect(accepts({ ...classic, initial_stop_loss_pct: '99.99' }).initial_stop_loss_pct).toBe(99.99)
    expect(errorsOf({ ...classic, initial_stop_loss_pct: '100' })).toHaveProperty('initial_stop_loss_pct')
    const hours = (n: number) => Array.from({ length: n }, (_, h) => `${h % 24}-${(h + 1) % 24}`)
    // Duplicates are dropped before counting.
    expect(
      accepts({ ...classic, forbidden_hours: [...hours(24), ...hours(24)].join(', ') }).forbidden_hours,
    ).toHaveLength(24)
    expect(errorsOf({ ...classic, forbidden_hours: [...hours(24), '0-2'].join(', ') })).toHaveProperty(
      'forbidden_hours',
    )
  })

  it('turns the defaults into the payload (numbers; trail activation 1, as on the server)', () => {
    expect(accepts(classic)).toEqual({
      bot_mode: 'classic',
      max_trades: 3,
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
      telegram_id: '',
      telegram_notify_deals: true,
      telegram_notify_stats: true,
      user_timezone: 'Europe/Moscow',
      forbidden_hours_enabled: false,
      forbidden_hours: [],
      forbidden_days_enabled: false,
      forbidden_days: [],
      symbols: [],
      unprotected_action: 'close',
      daily_loss_limit_pct: 0,
      max_losses_in_row: 0,
      losses_pause_minutes: 60,
    })
  })

  it('checks the protection and circuit breaker fields as the server does', () => {
    expect(
      accepts({
        ...classic,
        unprotected_action: 'alert',
        daily_loss_limit_pct: '3.5',
        max_losses_in_row: '4',
      }),
    ).toMatchObject({
      unprotected_action: 'alert',
      daily_loss_limit_pct: 3.5,
      max_losses_in_row: 4,
      losses_pause_minutes: 60,
    })
    expect(errorsOf({ ...classic, daily_loss_limit_pct: '101' })).toHaveProperty('daily_loss_limit_pct')
    expect(errorsOf({ ...classic, max_losses_in_row: '1.5' })).toHaveProperty('max_losses_in_row')
    expect(errorsOf({ ...classic, losses_pause_minutes: '0' })).toHaveProperty('losses_pause_minutes')
  })

  it('sends the martingale fields only in martingale mode', () => {
    expect(accepts(martingale)).toMatchObject({
      bot_mode: 'martingale',
      martingale_max_depth: 4,
      martingale_max_active_chains: 1,
      martingale_step: 2,
      martingale_initial_margin: 2,
    })
    // Hidden in classic mode: not checked, not sent.
    const hidden = accepts({ ...classic, martingale_step: '0', martingale_max_depth: '' })
    expect(hidden).not.toHaveProperty('martingale_step')
    expect(hidden).not.toHaveProperty('martingale_max_depth')
  })

  it.each([
    ['max_trades', '1', '0'],
    ['max_total_usdt', '1', '0.99'],
    ['max_trade_usdt', '1', '0.99'],
    ['initial_stop_loss_pct', '0.01', '0.009'],
    ['take_profit_first_pct', '0.01', '0.009'],
    ['take_profit_next_pct', '0.01', '0'],
    ['trail_activation_pct', '0.01', '0.001'],
    ['trail_step_pct', '0.01', '0'],
    ['leverage', '1', '0'],
  ] as const)('%s: %s is the lowest accepted value, %s is refused', (field, lowest, below) => {
    expect(accepts({ ...classic, [field]: lowest })[field]).toBe(Number(lowest))
    expect(errorsOf({ ...classic, [field]: below })).toEqual({ [field]: `Не меньше ${Number(lowest)}` })
  })

  it.each([
    ['martingale_max_depth', '1', '0'],
    ['martingale_max_active_chains', '1', '0'],
    ['martingale_step', '0.01', '0.009'],
    ['martingale_initial_margin', '0.01', '0'],
  ] as const)('%s (martingale mode): %s accepted, %s refused', (field, lowest, below) => {
    expect(accepts({ ...martingale, [field]: lowest })).toMatchObject({ [field]: Number(lowest) })
    expect(errorsOf({ ...martingale, [field]: below })).toEqual({ [field]: `Не меньше ${Number(lowest)}` })
  })

  it.each([
    ['max_trades', 3],
    ['max_total_usdt', 1000],
    ['max_trade_usdt', 100],
    ['initial_stop_loss_pct', 5],
    ['take_profit_first_pct', 10],
    ['take_profit_next_pct', 10],
    ['trail_activation_pct', 1],
    ['trail_step_pct', 0.5],
    ['leverage', 10],
  ] as const)('an emptied %s is replaced by its default %s (spec section 5)', (field, fallback) => {
    expect(accepts({ ...classic, [field]: '' })).toMatchObject({ [field]: fallback })
    expect(accepts({ ...classic, [field]: '   ' })).toMatchObject({ [field]: fallback })
  })

  it.each([
    ['martingale_max_depth', 4],
    ['martingale_max_active_chains', 1],
    ['martingale_step', 2],
    ['martingale_initial_margin', 2],
  ] as const)('an emptied %s is replaced by its default %s in martingale mode', (field, fallback) => {
    expect(accepts({ ...martingale, [field]: '' })).toMatchObject({ [field]: fallback })
  })

  it("the defaults are the server's: trail activation 1.0", () => {
    expect(DEFAULT_SETTINGS.trail_activation_pct).toBe(1)
  })

  it('leverage is a whole number from 1 to 100', () => {
    expect(accepts({ ...classic, leverage: '100' }).leverage).toBe(100)
    expect(errorsOf({ ...classic, leverage: '101' })).toEqual({ leverage: 'Не больше 100' })
    expect(errorsOf({ ...classic, leverage: '2.5' })).toEqual({ leverage: 'Введите целое число' })
  })

  it('counts are whole numbers', () => {
    expect(errorsOf({ ...classic, max_trades: '1.5' })).toEqual({ max_trades: 'Введите целое число' })
    expect(errorsOf({ ...martingale, martingale_max_depth: '2.5' })).toEqual({
      martingale_max_depth: 'Введите целое число',
    })
    expect(errorsOf({ ...martingale, martingale_max_active_chains: '1.1' })).toEqual({
      martingale_max_active_chains: 'Введите целое число',
    })
  })

  it('the stop loss has at most 2 decimals', () => {
    expect(accepts({ ...classic, initial_stop_loss_pct: '0.25' }).initial_stop_loss_pct).toBe(0.25)
    expect(accepts({ ...classic, initial_stop_loss_pct: '1.500' }).initial_stop_loss_pct).toBe(1.5)
    expect(errorsOf({ ...classic, initial_stop_loss_pct: '1.005' })).toEqual({
      initial_stop_loss_pct: 'Не больше 2 знаков после запятой',
    })
    // Other percentages are not stepped.
    expect(accepts({ ...classic, take_profit_first_pct: '1.005' }).take_profit_first_pct).toBe(1.005)
  })

  it("keeps to the server's upper guards", () => {
    expect(accepts({ ...classic, max_trades: '1000000' }).max_trades).toBe(1_000_000)
    expect(errorsOf({ ...classic, max_trades: '1000001' })).toEqual({ max_trades: 'Не больше 1000000' })
    expect(accepts({ ...classic, max_total_usdt: '1000000000' }).max_total_usdt).toBe(1e9)
    expect(errorsOf({ ...classic, max_total_usdt: '1000000000.01' })).toEqual({
      max_total_usdt: 'Не больше 1000000000',
    })
    expect(accepts({ ...classic, telegram_id: ` ${'9'.repeat(64)} ` }).telegram_id).toBe('9'.repeat(64))
    expect(errorsOf({ ...classic, telegram_id: '9'.repeat(65) })).toEqual({
      telegram_id: 'Не длиннее 64 символов',
    })
  })

  it('refuses text that is not a number', () => {
    expect(errorsOf({ ...classic, max_trade_usdt: 'abc' })).toEqual({ max_trade_usdt: 'Введите число' })
    expect(errorsOf({ ...classic, trail_activation_pct: 'x' })).toEqual({
      trail_activation_pct: 'Введите число',
    })
  })

  it('parses the forbidden hours and sorts the weekdays', () => {
    const payload = accepts({
      ...classic,
      forbidden_hours_enabled: true,
      forbidden_hours: '23.00-1.00, junk, 6.00-8.00',
      forbidden_days_enabled: true,
      forbidden_days: [6, 0, 6],
    })
    expect(payload.forbidden_hours).toEqual([
      [23, 1],
      [6, 8],
    ])
    expect(payload.forbidden_days).toEqual([0, 6])
  })

  it('sends the symbols trimmed and upper-cased, split at commas or spaces, empty ones dropped', () => {
    expect(accepts({ ...classic, symbols: 'btcusdt,  ethusdt ,' }).symbols).toEqual(['BTCUSDT', 'ETHUSDT'])
    expect(accepts({ ...classic, symbols: ' solusdt\t1000pepeUSDT ,,WIFUSDT' }).symbols).toEqual([
      'SOLUSDT',
      '1000PEPEUSDT',
      'WIFUSDT',
    ])
    expect(accepts({ ...classic, symbols: '' }).symbols).toEqual([])
    expect(accepts({ ...classic, symbols: ' , ' }).symbols).toEqual([])
    // Sent in martingale mode too.
    expect(accepts({ ...martingale, symbols: 'btcusdt' }).symbols).toEqual(['BTCUSDT'])
  })

  it('requires a time zone', () => {
    expect(errorsOf({ ...classic, user_timezone: '' })).toEqual({ user_timezone: 'Обязательное поле' })
  })

  it('reports every bad field at once', () => {
    expect(
      Object.keys(
        errorsOf({ ...martingale, max_trades: '0', leverage: '500', martingale_step: '-1' }),
      ).sort(),
    ).toEqual(['leverage', 'martingale_step', 'max_trades'])
  })
})

describe('toFormValues', () => {
  it('shows the stored forbidden hours in the form format and numbers as text', () => {
    const values = toFormValues({
      ...DEFAULT_SETTINGS,
      forbidden_hours: [
        [23, 1],
        [6, 8],
      ],
      trail_activation_pct: 1,
    })
    expect(values.forbidden_hours).toBe('23.00-1.00, 6.00-8.00')
    expect(values.trail_activation_pct).toBe('1')
    expect(values.max_total_usdt).toBe('1000')
  })

  it('shows the stored symbols joined with ", " (none: an empty input)', () => {
    expect(toFormValues({ ...DEFAULT_SETTINGS, symbols: ['BTCUSDT', 'ETHUSDT'] }).symbols).toBe(
      'BTCUSDT, ETHUSDT',
    )
    expect(toFormValues({ ...DEFAULT_SETTINGS, symbols: [] }).symbols).toBe('')
    // A record without the field (it is optional in the API types).
    expect(toFormValues({ ...DEFAULT_SETTINGS, symbols: undefined }).symbols).toBe('')
  })
})

describe('decimalPlaces', () => {
  it.each([
    ['5', 0],
    ['0.01', 2],
    ['1.500', 1],
    ['1.005', 3],
    ['1e-3', 3],
    ['1.5e1', 0],
  ])('%s has %i', (text, places) => {
    expect(decimalPlaces(text)).toBe(places)
  })
})
