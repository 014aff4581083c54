-- Multi-instance leftovers (issue 30, docs/multi-instance.md).
--
-- Live events are kept for the listeners: every event an instance relays is a row here,
-- numbered per sending process (`origin`, `seq`), and its notification names the row, so a
-- listener that lost its connection reads what it missed instead of dropping it, and skips
-- what it already had. Rows are deleted after five minutes.
ALTER TABLE event_outbox ADD COLUMN origin TEXT NOT NULL DEFAULT '';
ALTER TABLE event_outbox ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX event_outbox_origin ON event_outbox (origin, seq);

-- The running processes, one row per instance id: a process registers its id at start and
-- renews it while it runs, so a second process started with an id in use is refused
-- instead of taking the first one's bots. `host` names the host and its process namespace,
-- so a restart on the same host sees at once that the previous holder's `pid` is gone.
CREATE TABLE instances (
    instance TEXT PRIMARY KEY,
    -- The process: its instance id and a number drawn at its start (LeaseHolder::process).
    process TEXT NOT NULL,
    host TEXT NOT NULL,
    pid BIGINT NOT NULL,
    -- Unix ms on the database's clock.
    started_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- Jobs one instance of a deployment does for everyone (the balance snapshots of users
-- whose bot nobody runs), leased like a bot (migration 0012). Times are the database's.
CREATE TABLE duty_leases (
    duty TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    instance TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
