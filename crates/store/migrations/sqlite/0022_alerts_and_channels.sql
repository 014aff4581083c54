-- Alerts (docs/alerts.md): something is wrong with a user's bot, raised once and cleared when
-- it is over. At most one open alert of a kind per user: the partial unique index makes a
-- second raise (another instance, a restart) a no-op.
CREATE TABLE alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- market_feed_stale, venue_unreachable, database_unreachable, worker_stopped,
    -- lease_lost, unprotected, circuit_breaker
    kind TEXT NOT NULL,
    -- What happened, and what the bot does about it.
    detail TEXT NOT NULL,
    action TEXT NOT NULL,
    -- Unix ms; cleared_at is NULL while the alert is raised.
    raised_at INTEGER NOT NULL,
    cleared_at INTEGER
);
CREATE UNIQUE INDEX alerts_open ON alerts (user_id, kind) WHERE cleared_at IS NULL;
CREATE INDEX alerts_recent ON alerts (user_id, raised_at);

-- Each user's notification channels besides Telegram: a Discord incoming webhook, an e-mail
-- address or a generic webhook. The target (URL or address) and the webhook secret are
-- encrypted at rest (AES-256-GCM under the master key, like the exchange keys): a Discord
-- webhook URL is a credential.
CREATE TABLE notification_channels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- discord, email, webhook
    kind TEXT NOT NULL,
    target_enc TEXT NOT NULL,
    secret_enc TEXT,
    -- The events it subscribes to, comma-separated (trade_opened, trade_closed,
    -- daily_summary, alert_raised, alert_cleared).
    events TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    -- Delivery failures in a row since the last success, the last one's error and time.
    failures INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    last_failure_at INTEGER,
    last_success_at INTEGER
);
CREATE INDEX notification_channels_user ON notification_channels (user_id);
