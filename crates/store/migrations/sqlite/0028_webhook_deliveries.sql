-- Webhook alerts already acted on (docs/security.md, "Replayed alerts"): the SHA-256 digest of
-- each alert body a user's webhook accepted, and when (Unix ms). The same body again within
-- the duplicate window (`webhook_duplicate_window_secs`, 10 s) is answered as a duplicate and
-- acted on no more; the claim is one INSERT … ON CONFLICT on the key, so two requests (on any
-- instances) cannot both act. Rows older than the window are deleted as alerts come in.
CREATE TABLE webhook_deliveries (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body_hash TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (user_id, body_hash)
);

CREATE INDEX webhook_deliveries_at ON webhook_deliveries (at);
