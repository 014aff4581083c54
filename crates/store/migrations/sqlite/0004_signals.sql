-- Each rating result (or webhook alert) stored for the user whose signal fetching produced it.
CREATE TABLE signals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    symbol TEXT NOT NULL,
    -- STRONG_BUY, BUY, NEUTRAL, SELL or STRONG_SELL
    rating TEXT NOT NULL,
    total REAL,
    ma REAL,
    osc REAL,
    candle_time INTEGER NOT NULL,
    source TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX signals_user_symbol_id ON signals(user_id, symbol, id);
