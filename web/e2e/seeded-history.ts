/**
 * The trading history the statistics and dashboard specs import with `signaldesk history import`,
 * built around the test's "now". The user keeps the default time zone, Europe/Moscow, which is
 * UTC+3 all year (no summer time since 2014), so the closed trades sit at known Moscow weekdays
 * and hours: a Monday at least 10 days back and the days after it. All of them closed more than
 * 48 hours ago, so none falls into either 24-hour volume window and no local midnight or month
 * start matters (the specs read the "All" period). The expected figures in the specs are worked
 * out by hand from the numbers below.
 */

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const MOSCOW_OFFSET = 3 * HOUR

/** 00:00 in Moscow of the latest Monday at least `minDaysBack` days before `now` (epoch ms). */
function moscowMondayBefore(now: number, minDaysBack: number): number {
  // Shifted by +3 h, the UTC fields of the date are Moscow's wall clock.
  const wall = new Date(now - minDaysBack * DAY + MOSCOW_OFFSET)
  const midnight = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate())
  const daysSinceMonday = (wall.getUTCDay() + 6) % 7
  return midnight - daysSinceMonday * DAY - MOSCOW_OFFSET
}

type Trade = {
  symbol: string
  side: 'long' | 'short'
  status: 'CLOSED'
  leverage: number
  margin: string
  qty: string
  entry_price: string
  exit_price: string
  pnl: string
  fees: string
  opened_at: string
  closed_at: string
  chain: string | null
  chain_step: number | null
}

export type History = {
  chains: { key: string; symbol: string; status: 'OPEN' | 'CLOSED'; created_at: string }[]
  trades: Trade[]
  balance_snapshots: { taken_at: string; equity: string; available_balance: string; margin_balance: string }[]
}

const iso = (ms: number) => new Date(ms).toISOString()

type TradeNumbers = {
  symbol: string
  side?: 'long' | 'short'
  qty: string
  entry: string
  exit: string
  pnl: string
  opened: number
  closed: number
  chain?: [string, number]
}

/** A closed trade (the only kind the import takes) from its numbers; times in epoch ms. */
function closedTrade(t: TradeNumbers): Trade {
  return {
    symbol: t.symbol,
    side: t.side ?? 'long',
    status: 'CLOSED',
    leverage: 10,
    margin: '50',
    qty: t.qty,
    entry_price: t.entry,
    exit_price: t.exit,
    pnl: t.pnl,
    fees: '0',
    opened_at: iso(t.opened),
    closed_at: iso(t.closed),
    chain: t.chain?.[0] ?? null,
    chain_step: t.chain?.[1] ?? null,
  }
}

/**
 * For /stats and /statistics: six closed trades at known Moscow weekdays and hours, all closed
 * more than 48 hours ago (so the last 24 hours hold none):
 *
 * | trade | opened    | closed    | pnl   | chain                   |
 * | ----- | --------- | --------- | ----- | ----------------------- |
 * | A     | Mon 08:30 | Mon 09:15 | 40    | c1 (CLOSED) step 1      |
 * | B     | Mon 09:00 | Mon 09:40 | -10   |                         |
 * | C     | Wed 12:10 | Wed 13:20 | 12.5  | c2 (CLOSED) step 1      |
 * | D     | Wed 13:30 | Wed 13:50 | -2.25 | c2 step 2               |
 * | E     | Fri 15:00 | Fri 15:30 | 0     | c3 (OPEN) step 1        |
 * | F     | Sun 21:00 | Sun 22:05 | -30   |                         |
 */
export function statsHistory(now = Date.now()): History {
  const monday = moscowMondayBefore(now, 10)
  /** Day 0 = that Monday, at Moscow hour:minute. */
  const at = (day: number, hour: number, minute = 0) => monday + day * DAY + hour * HOUR + minute * MINUTE
  const qty = '0.01'
  return {
    chains: [
      { key: 'c1', symbol: 'BTCUSDT', status: 'CLOSED', created_at: iso(at(0, 8, 30)) },
      { key: 'c2', symbol: 'BTCUSDT', status: 'CLOSED', created_at: iso(at(2, 12, 10)) },
      { key: 'c3', symbol: 'XRPUSDT', status: 'OPEN', created_at: iso(at(4, 15)) },
    ],
    trades: (
      [
        {
          symbol: 'BTCUSDT',
          qty,
          entry: '50000',
          exit: '54000',
          pnl: '40',
          opened: at(0, 8, 30),
          closed: at(0, 9, 15),
          chain: ['c1', 1],
        },
        {
          symbol: 'ETHUSDT',
          side: 'short',
          qty,
          entry: '2000',
          exit: '2100',
          pnl: '-10',
          opened: at(0, 9),
          closed: at(0, 9, 40),
        },
        {
          symbol: 'BTCUSDT',
          qty,
          entry: '50000',
          exit: '51250',
          pnl: '12.5',
          opened: at(2, 12, 10),
          closed: at(2, 13, 20),
          chain: ['c2', 1],
        },
        {
          symbol: 'BTCUSDT',
          qty,
          entry: '51000',
          exit: '50775',
          pnl: '-2.25',
          opened: at(2, 13, 30),
          closed: at(2, 13, 50),
          chain: ['c2', 2],
        },
        {
          symbol: 'XRPUSDT',
          qty: '100',
          entry: '0.5',
          exit: '0.5',
          pnl: '0',
          opened: at(4, 15),
          closed: at(4, 15, 30),
          chain: ['c3', 1],
        },
        {
          symbol: 'SOLUSDT',
          qty,
          entry: '150',
          exit: '147',
          pnl: '-30',
          opened: at(6, 21),
          closed: at(6, 22, 5),
        },
      ] satisfies TradeNumbers[]
    ).map(closedTrade),
    balance_snapshots: [],
  }
}

/**
 * For the dashboard: four closed trades around the two 24-hour windows, and two balance snapshots.
 *
 * | trade | qty x entry / exit   | opened   | closed   | fills in the last 24 h | in the 24 h before |
 * | ----- | -------------------- | -------- | -------- | ---------------------- | ------------------ |
 * | R1    | 0.01 x 50000 / 51000 | 30 h ago | 2 h ago  | 510                    | 500                |
 * | R2    | 0.1 x 2000 / 2050    | 3 h ago  | 1 h ago  | 200 + 205              |                    |
 * | R3    | 0.01 x 40000 / 40500 | 40 h ago | 36 h ago |                        | 400 + 405          |
 * | R4    | 0.01 x 30000 / 30300 | 5 d ago  | 4 d ago  |                        |                    |
 *
 * Volume: 915 now, 1305 before. Open trades: none now; R1 was open 24 hours ago. Total trades:
 * 4 now, 3 opened by 24 hours ago. Equity 24 hours ago: the 8000 snapshot taken 24 h 20 min ago
 * (the newest at or before then; the 9000 one is 20 h old).
 */
export function dashboardHistory(now = Date.now()): History {
  const ago = (hours: number) => now - hours * HOUR
  return {
    chains: [],
    trades: (
      [
        {
          symbol: 'BTCUSDT',
          qty: '0.01',
          entry: '50000',
          exit: '51000',
          pnl: '9.5',
          opened: ago(30),
          closed: ago(2),
        },
        {
          symbol: 'ETHUSDT',
          qty: '0.1',
          entry: '2000',
          exit: '2050',
          pnl: '4.8',
          opened: ago(3),
          closed: ago(1),
        },
        {
          symbol: 'BTCUSDT',
          qty: '0.01',
          entry: '40000',
          exit: '40500',
          pnl: '4.6',
          opened: ago(40),
          closed: ago(36),
        },
        {
          symbol: 'SOLUSDT',
          qty: '0.01',
          entry: '30000',
          exit: '30300',
          pnl: '2.8',
          opened: ago(120),
          closed: ago(96),
        },
      ] satisfies TradeNumbers[]
    ).map(closedTrade),
    balance_snapshots: [
      {
        taken_at: iso(ago(24) - 20 * MINUTE),
        equity: '8000',
        available_balance: '7500',
        margin_balance: '8000',
      },
      { taken_at: iso(ago(20)), equity: '9000', available_balance: '8800', margin_balance: '9000' },
    ],
  }
}

/** Four closed trades; the newest a few minutes old, so its chart lies on the live market. */
export function tradesHistory(now = Date.now()): History {
  const trade = (symbol: string, side: 'long' | 'short', pnl: string, minutesAgo: number) => ({
    symbol,
    side,
    status: 'CLOSED' as const,
    leverage: 10,
    margin: '50',
    qty: '0.01',
    entry_price: symbol === 'BTCUSDT' ? '50000' : '2000',
    exit_price: symbol === 'BTCUSDT' ? '50100' : '1990',
    pnl,
    fees: '0',
    opened_at: iso(now - minutesAgo * MINUTE),
    closed_at: iso(now - (minutesAgo - 10) * MINUTE),
    chain: null,
    chain_step: null,
  })
  return {
    chains: [],
    trades: [
      trade('BTCUSDT', 'long', '12.5', 30),
      trade('ETHUSDT', 'short', '-7.25', 600),
      trade('BTCUSDT', 'short', '-0.5', 1200),
      trade('ETHUSDT', 'long', '3.125', 2000),
    ],
    balance_snapshots: [],
  }
}
