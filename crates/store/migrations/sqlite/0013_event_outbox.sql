-- Live events between instances (PostgreSQL, docs/multi-instance.md) travel as NOTIFY
-- payloads, which PostgreSQL limits to 8000 bytes: a larger event is written here and the
-- notification carries its id. Rows are deleted after a minute. Unused on SQLite, which
-- serves one instance; the table exists so both databases keep one schema.
CREATE TABLE event_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    payload TEXT NOT NULL,
    -- Unix ms on the database's clock.
    at INTEGER NOT NULL
);
CREATE INDEX event_outbox_at ON event_outbox (at);
