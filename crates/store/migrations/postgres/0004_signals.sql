-- Each rating result (or webhook alert) stored for the user whose signal fetching produced it.
CREATE TABLE signals (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    symbol TEXT NOT NULL,
    -- STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL
    rating TEXT NOT NULL,
    total DOUBLE PRECISION,
    ma DOUBLE PRECISION,
    osc DOUBLE PRECISION,
    candle_time BIGINT NOT NULL,
    source TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX signals_user_symbol_id ON signals(user_id, symbol, id);
