-- Bybit's 1-minute candles fetched by `signaldesk candles fetch` for backtests
-- (docs/backtesting.md). Prices as exact decimal text, as everywhere in the books.
CREATE TABLE candles (
    symbol TEXT NOT NULL,
    -- The minute the candle opened, Unix ms.
    open_time INTEGER NOT NULL,
    open TEXT NOT NULL,
    high TEXT NOT NULL,
    low TEXT NOT NULL,
    close TEXT NOT NULL,
    volume TEXT NOT NULL,
    PRIMARY KEY (symbol, open_time)
);
