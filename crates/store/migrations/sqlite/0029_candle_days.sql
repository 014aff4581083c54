-- Stored 1-minute candles in a compact binary form: one row per symbol and UTC day
-- (crates/store/src/repo/candle_codec.rs, docs/backtesting.md "How candles are stored").
-- The text rows of 0016's `candles` are moved here by `Store::connect` after the migrations
-- (the table stays, empty, for the release before this one: docs/deploy.md's rule).
CREATE TABLE candle_days (
    symbol TEXT NOT NULL,
    -- Days since the Unix epoch (UTC): the day starts at day * 86,400,000 ms.
    day BIGINT NOT NULL,
    -- The open times (Unix ms) of the day's first and last stored minute.
    first_time BIGINT NOT NULL,
    last_time BIGINT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (symbol, day)
);
