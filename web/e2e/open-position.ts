import type { APIRequestContext, Page } from '@playwright/test'
import { alertBody } from './alert-body'
import { expect } from './fixtures'
import { activatePaperKey, pageApi } from './page-api'

/**
 * Gives the logged-in `page`'s user an open BTCUSDT position on the paper exchange through a
 * webhook alert (as e2e/positions.spec.ts does), one that outlives minutes of simulated market (no
 * trailing stop, stops the prices do not reach), and then forbids new entries so nothing else
 * opens while the pages are looked at. Leaves the bot running; stop it when done.
 */
export async function openLastingPosition(page: Page, request: APIRequestContext, serverUrl: string) {
  const records = await pageApi<{ id: number }[]>(page, 'GET', '/api/bot-settings/')
  const settingsPath = `/api/bot-settings/${String(records.at(0)?.id)}/`
  // At leverage 1, 200 USDT is above the smallest BTCUSDT order.
  await pageApi(page, 'PUT', settingsPath, {
    max_trades: 100,
    max_total_usdt: 100_000,
    max_trade_usdt: 200,
    leverage: 1,
    use_trailing_stop: false,
    initial_stop_loss_pct: 50,
    take_profit_first_pct: 50,
    take_profit_next_pct: 50,
  })
  await activatePaperKey(page)
  await pageApi(page, 'POST', '/api/command/bot/start/')
  const { path } = await pageApi<{ path: string }>(page, 'POST', '/api/webhook/')
  const btcSignal = async () => {
    const signals = await pageApi<{ symbol: string; recommendation: string }[]>(page, 'GET', '/api/signals/')
    return signals.find((signal) => signal.symbol === 'BTCUSDT')?.recommendation
  }
  await expect.poll(btcSignal, { timeout: 30_000 }).toBeTruthy()
  const openBtc = async () => {
    const open = await pageApi<{ results: { symbol: string }[] }>(
      page,
      'GET',
      '/api/trades/?status=open&page_size=100',
    )
    return open.results.some((trade) => trade.symbol === 'BTCUSDT')
  }
  await expect(async () => {
    const current = await btcSignal()
    const signal = current?.toUpperCase() === 'STRONG_BUY' ? 'STRONG_SELL' : 'STRONG_BUY'
    const answer = await request.post(`${serverUrl}${path}`, { data: alertBody('BTCUSDT', signal) })
    expect(answer.status()).toBe(202)
    await expect.poll(openBtc, { timeout: 15_000 }).toBe(true)
  }).toPass({ timeout: 60_000 })
  await pageApi(page, 'PUT', settingsPath, {
    forbidden_days_enabled: true,
    forbidden_days: [0, 1, 2, 3, 4, 5, 6],
  })
}
