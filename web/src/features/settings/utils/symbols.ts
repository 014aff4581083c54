/**
 * The Symbols input: symbols typed separated by commas or spaces. Sent trimmed and upper-cased,
 * empty entries dropped; the server removes duplicates and refuses malformed or unlisted ones.
 */

/** "btcusdt,  ethusdt ," -> ["BTCUSDT", "ETHUSDT"]; an empty input gives []. */
export function parseSymbols(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((symbol) => symbol.trim().toUpperCase())
    .filter((symbol) => symbol !== '')
}

/** A stored list as the input shows it: ["BTCUSDT", "ETHUSDT"] -> "BTCUSDT, ETHUSDT". */
export function formatSymbols(symbols: readonly string[] | undefined): string {
  return (symbols ?? []).join(', ')
}
