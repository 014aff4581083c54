-- The Telegram command poller (docs/telegram.md): one row. Only one process of a deployment
-- may call getUpdates with the bot's token (Telegram answers a second poller 409 Conflict),
-- so the poller holds a lease here like a bot's (migration 0012), and the offset of the next
-- update to read is kept here, written before an update is acted on, so an update is handled
-- once, also across restarts and a move to another instance. Times are the database's clock.
CREATE TABLE telegram_poller (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    -- The process polling: its instance id and a number drawn at its start; '' when none.
    owner TEXT NOT NULL,
    -- The instance id alone: a process of the same instance id takes over at once.
    instance TEXT NOT NULL,
    -- Unix ms on the database's clock.
    expires_at BIGINT NOT NULL,
    -- The update_id of the next update to handle (getUpdates' offset); 0: none handled yet.
    next_offset BIGINT NOT NULL,
    -- Unix ms on the database's clock when next_offset last moved.
    offset_at BIGINT NOT NULL
);
