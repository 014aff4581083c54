-- Who runs each user's bot: one instance at a time holds a lease, renewed while it runs the
-- workers (docs/multi-instance.md). Times are the database's clock, never an instance's:
-- instances' clocks differ. `token` is the fencing token: it grows by one at every new tenure
-- (another owner, or the same owner after its lease ran out), so a write or an order made
-- under an older token can be refused.
CREATE TABLE bot_leases (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    -- The process holding the lease: its instance id and a number drawn at its start.
    owner TEXT NOT NULL,
    -- The instance id alone: a process that finds its own instance id on a lease under
    -- another start knows the holder is its dead predecessor and takes over at once.
    instance TEXT NOT NULL,
    token BIGINT NOT NULL,
    -- Unix ms on the database's clock.
    expires_at BIGINT NOT NULL
);

-- Every order and stop change a worker sent, with the tenure it was sent under: written by
-- the same statement that checks the tenure still holds, so the log proves that no tenure
-- acted after a newer one began (the two-instance test reads it).
CREATE TABLE lease_fences (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token BIGINT NOT NULL,
    owner TEXT NOT NULL,
    action TEXT NOT NULL,
    -- Unix ms on the database's clock.
    at BIGINT NOT NULL
);
CREATE INDEX lease_fences_user ON lease_fences (user_id, id);
