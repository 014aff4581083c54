-- Requests for the instance that runs a user's bot, made on another instance (several
-- instances on PostgreSQL, docs/multi-instance.md): close a trade, close them all, a webhook
-- alert, new settings. The owner takes each once, acts, and answers; the sender reads the
-- answer and deletes the row. Unused on SQLite, which serves one instance.
CREATE TABLE bot_commands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- The process holding the user's lease when the command was sent.
    owner TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    -- Unix ms on the database's clock.
    created_at INTEGER NOT NULL,
    taken_at INTEGER,
    answer TEXT
);
CREATE INDEX bot_commands_waiting ON bot_commands (owner, taken_at);
CREATE INDEX bot_commands_created ON bot_commands (created_at);
