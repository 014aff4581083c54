-- State shared by every server instance on one PostgreSQL database (docs/security.md). SQLite
-- serves one instance by design, which keeps its rate limits in memory: these tables stay
-- empty here, and exist so both backends keep the same schema.
CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tat INTEGER NOT NULL,
    counted INTEGER NOT NULL DEFAULT 1,
    strikes INTEGER NOT NULL DEFAULT 0,
    locked_until INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX rate_limits_tat ON rate_limits (tat);

CREATE TABLE master_key_check (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    sealed TEXT NOT NULL
);
