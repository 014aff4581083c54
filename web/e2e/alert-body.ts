/**
 * A TradingView alert body that is new every time: `time` is now (Unix ms) and `id` a counter.
 * The server acts once on the same body within its duplicate window (10 s) and answers a copy
 * 200 `"duplicate": true`, so every alert a test means as new must differ (docs/alerts.md).
 */
let nextId = 1

export function alertBody(symbol: string, signal: string) {
  const id = nextId
  nextId += 1
  return { symbol, signal, time: Date.now(), id }
}
