/**
 * The live connection's numbers (spec sections 4 and 9), in one place.
 *
 * After a close the socket retries after `LIVE_RECONNECT_BASE_DELAY_MS * 2 ** attempt`
 * (1 s, 2 s, 4 s, 8 s, 16 s), at most `LIVE_MAX_RECONNECT_ATTEMPTS` times; a successful open
 * resets the count. While open it sends `{"action":"ping"}` every `LIVE_HEARTBEAT_INTERVAL_MS`.
 */
export const LIVE_RECONNECT_BASE_DELAY_MS = 1000
export const LIVE_MAX_RECONNECT_ATTEMPTS = 5
/**
 * After the spec's 5 attempts the app does not give up (issue 33): it tries again every 30 s,
 * and at once when the window gets the focus or the browser comes back online.
 */
export const LIVE_SLOW_RETRY_MS = 30_000
export const LIVE_HEARTBEAT_INTERVAL_MS = 30_000

/** The path of the live feed on the page's own host (docs/websocket.md). */
export const LIVE_PATH = '/ws/dashboard/'

/** The signals list keeps at most this many entries (spec section 9: "Signals cap 50 by default"). */
export const SIGNALS_CAP = 50
/** The dashboard's Trading Signals card shows this many ("the dashboard uses 5"). */
export const DASHBOARD_SIGNALS_LIMIT = 5
/** Each cached log list keeps at most this many entries (spec section 9: "Log buffer 1000 entries"). */
export const LOGS_CAP = 1000
