-- Who runs each user's bot: one instance at a time holds a lease, renewed while it runs the
-- workers (docs/multi-instance.md). Times are the database's clock, never an instance's:
-- instances' clocks differ. `token` is the fencing token: it grows by one at every new tenure
-- (another owner, or the same owner after its lease ran out), so a write or an order made
-- under an older token can be refused.
CREATE TABLE bot_leases (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    token INTEGER NOT NULL,
    -- Unix ms on the database's clock.
    expires_at INTEGER NOT NULL
);
