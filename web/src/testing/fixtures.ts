import type {
  ApiKey,
  Backtest,
  BacktestResult,
  BotSettings,
  BotStatus,
  Position,
  Trade,
  Venue,
} from '@/types/api'

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
    exchange: 'bybit',
    is_demo: true,
    is_active: false,
    created_at: '2026-11-22T04:30:00Z',
    permissions: null,
    ips: null,
    ip_restricted: null,
    permissions_checked_at: null,
    ...overrides,
  }
}

/** The three venues a user's bot can trade on. */
export const venues = {
  paper: { exchange: 'paper', environment: 'paper' },
  demo: { exchange: 'bybit', environment: 'demo' },
  real: { exchange: 'bybit', environment: 'real' },
} as const satisfies Record<string, Venue>

/** GET /api/bot/status/ of a stopped bot on the paper account. */
export function botStatusRecord(overrides: Partial<BotStatus> = {}): BotStatus {
  return {
    is_bot_running: false,
    is_signals_fetching_active: false,
    bot_mode: 'classic',
    open_trades: 0,
    active_chains: 0,
    venue: venues.paper,
    started_at: null,
    signal_worker: 'stopped',
    trading_worker: 'stopped',
    runs_on: null,
    not_trading: null,
    ...overrides,
  }
}

/** An open trade as GET /api/trades/ lists it. */
export function tradeRecord(overrides: Partial<Trade> = {}): Trade {
  return {
    id: 11,
    symbol: 'BTCUSDT',
    side: 'long',
    status: 'OPEN',
    quantity: 0.015,
    open_quantity: 0.015,
    leverage: 10,
    margin: 97.5,
    entry_price: 65000,
    exit_price: null,
    pnl: 0,
    fees: 0.39,
    funding: 0,
    stop_loss: 61750,
    take_profits_taken: 0,
    close_reason: null,
    chain_id: null,
    chain_step: null,
    signal: { id: 1001, at: '2026-11-22T04:30:00Z', price: 64990 },
    latency_ms: 120,
    slippage_pct: 0.015,
    created_at: '2026-11-22T04:30:00Z',
    opened_at: '2026-11-22T04:30:00Z',
    closed_at: null,
    venue: null,
    ...overrides,
  }
}

/** A live position (the `orders` message) matching a trade. */
export function positionRecord(overrides: Partial<Position> = {}): Position {
  return {
    symbol: 'BTCUSDT',
    side: 'long',
    qty: 0.015,
    entry_price: 65000,
    mark_price: 65100,
    leverage: 10,
    margin: 97.5,
    unrealized_pnl: 1.5,
    liquidation_price: 58825,
    stop_loss: 61750,
    take_profit: null,
    trailing_stop_price: null,
    opened_at: '2026-11-22T04:30:00Z',
    ...overrides,
  }
}

type BacktestSummary = BacktestResult['summary']

/** A backtest's summary with `total_pnl` and `max_drawdown_pct` as given, the rest plain. */
export function backtestSummary(totalPnl = 12.5, maxDrawdownPct = 3.25): BacktestSummary {
  return {
    starting_balance: 1000,
    final_balance: 1000 + totalPnl,
    fees: 1.5,
    funding: -0.25,
    volume: 5000,
    open_at_end: 0,
    max_drawdown_pct: maxDrawdownPct,
    max_drawdown_usdt: maxDrawdownPct * 10,
    stats: {
      total_trades: 2,
      win_trades: 1,
      lose_trades: 1,
      win_rate: 50,
      total_pnl: totalPnl,
      avg_pnl: totalPnl / 2,
      weekday: [],
      hour: [],
      heatmap: [],
      equity: [
        { time: '2026-11-20T10:00:00Z', pnl: 20 },
        { time: '2026-11-20T11:00:00Z', pnl: totalPnl },
      ],
    },
  }
}

/** A finished single backtest (GET /api/backtests/{id}/) with `trades`. */
export function backtestRecord(
  id: number,
  trades: Trade[] = [],
  overrides: Partial<Backtest> = {},
): Backtest {
  return {
    id,
    status: 'done',
    label: null,
    progress: 1,
    error: null,
    created_at: '2026-11-22T04:30:00Z',
    finished_at: '2026-11-22T04:31:00Z',
    request: {
      date_from: '2026-11-10',
      date_to: '2026-11-20',
      symbols: ['BTCUSDT'],
      source: 'ratings',
      overrides: { leverage: 5 },
    },
    kind: 'single',
    result: {
      summary: backtestSummary(),
      trades,
      trades_total: trades.length,
      chains: [],
      settings: settingsRecord(),
      history: { data: 'simulated', seed: 42, from_ms: 0, to_ms: 0 },
      no_trades: null,
      instruments: [
        {
          symbol: 'BTCUSDT',
          tick_size: 0.1,
          qty_step: 0.001,
          min_qty: 0.001,
          min_notional: 5,
          max_leverage: 100,
          maintenance_margin_rate: 0.005,
        },
      ],
    },
    ...overrides,
  }
}
