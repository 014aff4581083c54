-- Each execution the venue reports keeps the venue's id, so booking it is idempotent: a close
-- replayed after a restart or an outage is recognised and never booked twice. Executions
-- recorded before this migration (and imported history) have none.
ALTER TABLE fills ADD COLUMN venue_id TEXT;
CREATE UNIQUE INDEX fills_user_venue_id ON fills(user_id, venue_id) WHERE venue_id IS NOT NULL;
CREATE INDEX fills_trade ON fills(trade_id);
