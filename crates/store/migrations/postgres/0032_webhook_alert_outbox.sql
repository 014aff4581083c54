-- An accepted webhook alert is kept with its claim until the signal worker has acted on it
-- (docs/alerts.md, "TradingView alerts"): the 202 answer means the alert is stored, so a
-- process killed before acting on it, or a failed write, acts on it later instead of losing
-- it. `symbol` and `rating` are the alert; `expires_at` is when it is too old to act on
-- (arrival + webhook_max_lag_secs); `acted_at` is when the worker stored its signal, or found
-- it expired. Claims made before this migration were acted on already.
ALTER TABLE webhook_deliveries ADD COLUMN symbol TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN rating TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN expires_at BIGINT;
ALTER TABLE webhook_deliveries ADD COLUMN acted_at BIGINT;
UPDATE webhook_deliveries SET acted_at = at;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (user_id, at) WHERE acted_at IS NULL;
