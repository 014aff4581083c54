-- Backtests (docs/backtesting.md): each user's runs, kept until deleted. A running row's
-- updated_at is its heartbeat: the job writes its progress about every second, and a row
-- not heard from for a minute is taken as failed (the server running it stopped).
CREATE TABLE backtests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- running, done, failed or cancelled.
    status TEXT NOT NULL,
    progress REAL NOT NULL DEFAULT 0,
    -- What was asked for, as JSON (dates, symbols, source, overrides).
    request TEXT NOT NULL,
    -- The result when done, as JSON; the reason when failed.
    result TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX backtests_user ON backtests (user_id, id);
-- At most one running backtest per user, whichever instance was asked.
CREATE UNIQUE INDEX backtests_one_running ON backtests (user_id) WHERE status = 'running';
