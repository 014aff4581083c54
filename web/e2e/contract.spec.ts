import { expect, test } from './fixtures'

/** The paths the web app calls must be in the server's OpenAPI document (DESIGN.md section 4). */
test('the OpenAPI document lists every path the web app calls', async ({ request, server }) => {
  const answer = await request.get(`${server.url}/api/openapi.json`)
  expect(answer.status()).toBe(200)
  const document = (await answer.json()) as { paths: Partial<Record<string, Record<string, unknown>>> }
  const expected: [string, string][] = [
    ['/api/auth/login/', 'post'],
    ['/api/auth/logout/', 'post'],
    ['/api/auth/me/', 'get'],
    ['/api/bot-settings/', 'get'],
    ['/api/bot-settings/', 'post'],
    ['/api/bot-settings/{id}/', 'put'],
    ['/api/bot-settings/{id}/start_trading_worker/', 'post'],
    ['/api/bot-settings/{id}/stop_bot/', 'post'],
    ['/api/bot-settings/{id}/start_signals/', 'post'],
    ['/api/bot-settings/{id}/stop_signals/', 'post'],
    ['/api/api-keys/', 'get'],
    ['/api/api-keys/', 'post'],
    ['/api/api-keys/{id}/', 'delete'],
    ['/api/api-keys/{id}/set_active/', 'post'],
    ['/api/api-keys/{id}/deactivate/', 'post'],
    ['/api/bot/status/', 'get'],
    ['/api/webhook/', 'get'],
    ['/api/webhook/', 'post'],
    ['/api/webhook/', 'delete'],
    ['/api/signals/', 'get'],
    ['/api/logs/', 'get'],
    ['/api/trades/', 'get'],
    ['/api/trades/{id}/close/', 'post'],
    ['/api/trades/close-all/', 'post'],
    ['/api/bot-settings/risk-preview/', 'post'],
    ['/api/stats/', 'get'],
    ['/api/martingale_chains/', 'get'],
    ['/api/statistics/', 'get'],
    ['/api/dashboard/', 'get'],
    ['/api/backtests/', 'get'],
    ['/api/backtests/', 'post'],
    ['/api/backtests/{id}/', 'get'],
    ['/api/backtests/{id}/', 'delete'],
    ['/api/backtests/{id}/cancel/', 'post'],
    ['/api/backtests/{id}/trades/{trade_id}/chart/', 'get'],
  ]
  const missing = expected.filter(([path, method]) => !document.paths[path]?.[method])
  expect(missing).toEqual([])
})
