-- Bybit's funding rate history (GET /v5/market/funding/history) fetched by
-- `signaldesk candles fetch` beside the candles: what a backtest on stored history charges
-- open positions at each settlement. Rates as exact decimal text.
CREATE TABLE funding_rates (
    symbol TEXT NOT NULL,
    -- The settlement time, Unix ms (Bybit's fundingRateTimestamp).
    funding_time BIGINT NOT NULL,
    rate TEXT NOT NULL,
    PRIMARY KEY (symbol, funding_time)
);
