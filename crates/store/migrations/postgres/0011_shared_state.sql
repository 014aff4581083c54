-- State shared by every server instance on this database (docs/security.md, "Several
-- instances").
--
-- Rate limits (docs/security.md, "Rate limits"). One row per limited key: the login failures
-- of a (username, client address) pair or of an address, the alerts of a user's webhook, the
-- posts to unknown webhook URLs from an address. `key` is a SHA-256 digest of the key's kind
-- and value, so strangers' usernames and addresses are neither stored nor of unbounded length.
--
-- Each row is updated in one statement (INSERT … ON CONFLICT … DO UPDATE … RETURNING), on
-- the database's clock, so concurrent requests on any instance see each other's counts.
-- Times are Unix milliseconds.
CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    -- GCRA: the theoretical arrival time of the key's next event. A key may have up to its
    -- whole quota's worth of events ahead of now; each event pushes it by 60 s / quota.
    tat BIGINT NOT NULL,
    -- Whether the last event was counted (1) or refused (0).
    counted BIGINT NOT NULL DEFAULT 1,
    -- Login failures: the strikes since the quota was used up, and the lockout they give.
    strikes BIGINT NOT NULL DEFAULT 0,
    locked_until BIGINT NOT NULL DEFAULT 0
);

-- The periodic sweep deletes the rows that no longer limit anything.
CREATE INDEX rate_limits_tat ON rate_limits (tat);

-- A value sealed under the master key by the first server to start after this migration:
-- every later start checks that its master key opens it, so instances given different keys
-- refuse to start instead of saving exchange keys the others cannot decrypt.
CREATE TABLE master_key_check (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    sealed TEXT NOT NULL
);
