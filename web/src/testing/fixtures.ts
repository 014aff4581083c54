import type { ApiKey, BotSettings } from '@/types/api'

/** Records shaped like the server's answers, for component tests. */

export const admin = { id: 1, username: 'admin' }

/** A stored session, as after a login; the test still has to answer GET /api/auth/me/. */
export function storeSession(token = 'stored-token') {
  localStorage.setItem('token', token)
  localStorage.setItem('user', JSON.stringify(admin))
}

export function settingsRecord(overrides: Partial<BotSettings> = {}): BotSettings {
  return {
    id: 7,
    is_bot_running: false,
    is_signals_fetching_active: false,
    bot_mode: 'classic',
    max_trades: 3,
    max_total_usdt: 1000.0,
    max_trade_usdt: 100.0,
    initial_stop_loss_pct: 5.0,
    take_profit_first_pct: 10.0,
    take_profit_next_pct: 10.0,
    use_trailing_stop: true,
    trail_activation_pct: 1.0,
    trail_step_pct: 0.5,
    leverage: 10,
    reverse_mode: false,
    telegram_id: '',
    telegram_notify_deals: true,
    telegram_notify_stats: true,
    user_timezone: 'Europe/Moscow',
    martingale_max_depth: 4,
    martingale_max_active_chains: 1,
    martingale_step: 2.0,
    martingale_initial_margin: 2.0,
    forbidden_hours_enabled: false,
    forbidden_hours: [[23, 1]],
    forbidden_days_enabled: false,
    forbidden_days: [0, 6],
    ...overrides,
  }
}

export function apiKeyRecord(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 1,
    key: '********',
    is_demo: true,
    is_active: false,
    created_at: '2026-11-22T04:30:00Z',
    ...overrides,
  }
}
