-- Bybit's specification of each symbol whose candles `signaldesk candles fetch` stores, read
-- again on every fetch, for backtests on those candles (docs/backtesting.md). Decimals as
-- exact text, as everywhere in the books.
CREATE TABLE instruments (
    symbol TEXT PRIMARY KEY,
    tick_size TEXT NOT NULL,
    qty_step TEXT NOT NULL,
    min_qty TEXT NOT NULL,
    min_notional TEXT NOT NULL,
    max_leverage BIGINT NOT NULL,
    -- When it was read from Bybit, Unix ms.
    fetched_at BIGINT NOT NULL
);
-- Its risk limit tiers (GET /v5/market/risk-limit), the lowest (tier 1) first: replaced with
-- the instrument.
CREATE TABLE instrument_risk_tiers (
    symbol TEXT NOT NULL REFERENCES instruments (symbol) ON DELETE CASCADE,
    tier BIGINT NOT NULL,
    risk_limit_value TEXT NOT NULL,
    maintenance_margin_rate TEXT NOT NULL,
    mm_deduction TEXT NOT NULL,
    max_leverage TEXT NOT NULL,
    PRIMARY KEY (symbol, tier)
);
