-- Per-user running figures, so the all-time live statistics and the dashboard's trade counts
-- never read every trade (docs/architecture.md, "Running statistics").
--
-- `opened` (trades ever opened: OPEN or CLOSED with an opened_at) is kept by the triggers
-- below, exactly, on every insert, update and delete. The live statistics' figures (counts,
-- the exact pnl sum as text, the pnl path's high, low since it and the hull of its falls,
-- see signaldesk_core::running_stats) are kept by the store's Rust code: the triggers count
-- every change to the set of closed trades in `changes`, and the figures are those of the
-- first `applied` changes. Closing a trade advances them in the transaction that closes it
-- when that close is the only change pending and the latest in close order (`pending_close`
-- names it); anything else (an import, a correction, a delete, a close out of order) leaves
-- them behind, and the next read rebuilds them from the trades.
CREATE TABLE trade_running (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    opened BIGINT NOT NULL DEFAULT 0,
    changes BIGINT NOT NULL DEFAULT 0,
    applied BIGINT NOT NULL DEFAULT 0,
    -- The trade whose close is the one change not yet applied; NULL for any other change.
    pending_close BIGINT,
    trades BIGINT NOT NULL DEFAULT 0,
    wins BIGINT NOT NULL DEFAULT 0,
    pnl TEXT NOT NULL DEFAULT '0',
    peak TEXT NOT NULL DEFAULT '0',
    trough TEXT NOT NULL DEFAULT '0',
    first_depth TEXT NOT NULL DEFAULT '0',
    falls TEXT NOT NULL DEFAULT '',
    -- (closed_at, id) of the latest close applied: close order.
    last_closed_at BIGINT,
    last_id BIGINT
);

-- Inserts and deletes are counted per statement, from their transition tables: an import
-- inserts 100,000 trades in one transaction, and updating the user's one row once per trade
-- would leave it a chain of 100,000 row versions to walk on every update (quadratic).
CREATE FUNCTION trade_running_insert_rows() RETURNS trigger AS $$
BEGIN
    INSERT INTO trade_running (user_id, opened, changes)
    SELECT user_id,
           COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
           COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL)
    FROM new_rows GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE SET
        opened = trade_running.opened + EXCLUDED.opened,
        changes = trade_running.changes + EXCLUDED.changes,
        pending_close = CASE WHEN EXCLUDED.changes = 0 THEN trade_running.pending_close END;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_running_insert AFTER INSERT ON trades
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION trade_running_insert_rows();

CREATE FUNCTION trade_running_delete_rows() RETURNS trigger AS $$
BEGIN
    UPDATE trade_running SET
        opened = trade_running.opened - gone.opened,
        changes = trade_running.changes + gone.changes,
        pending_close = CASE WHEN gone.changes > 0 THEN NULL
                             ELSE trade_running.pending_close END
    FROM (SELECT user_id,
                 COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL)
                     AS opened,
                 COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL) AS changes
          FROM old_rows GROUP BY user_id) AS gone
    WHERE trade_running.user_id = gone.user_id;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_running_delete AFTER DELETE ON trades
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION trade_running_delete_rows();

-- Updates one row at a time (the trading worker writes one trade per statement).
CREATE FUNCTION trade_running_update() RETURNS trigger AS $$
DECLARE
    old_opened BIGINT := CASE WHEN OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL
                              THEN 1 ELSE 0 END;
    new_opened BIGINT := CASE WHEN NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL
                              THEN 1 ELSE 0 END;
    old_closed BOOLEAN := OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL;
    new_closed BOOLEAN := NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL;
BEGIN
    IF OLD.user_id = NEW.user_id THEN
        IF (old_closed OR new_closed) AND (OLD.status IS DISTINCT FROM NEW.status
                OR OLD.pnl IS DISTINCT FROM NEW.pnl OR OLD.closed_at IS DISTINCT FROM NEW.closed_at
                OR OLD.id IS DISTINCT FROM NEW.id) THEN
            INSERT INTO trade_running (user_id, opened, changes, pending_close)
            VALUES (NEW.user_id, new_opened - old_opened, 1,
                    CASE WHEN old_closed THEN NULL ELSE NEW.id END)
            ON CONFLICT (user_id) DO UPDATE SET
                opened = trade_running.opened + EXCLUDED.opened,
                changes = trade_running.changes + 1,
                pending_close = EXCLUDED.pending_close;
        ELSIF new_opened <> old_opened THEN
            INSERT INTO trade_running (user_id, opened) VALUES (NEW.user_id, new_opened - old_opened)
            ON CONFLICT (user_id) DO UPDATE SET opened = trade_running.opened + EXCLUDED.opened;
        END IF;
        RETURN NULL;
    END IF;
    -- A trade moved to another user: out of one, into the other.
    UPDATE trade_running SET opened = opened - old_opened, changes = changes + 1,
        pending_close = NULL
    WHERE user_id = OLD.user_id;
    INSERT INTO trade_running (user_id, opened, changes) VALUES (NEW.user_id, new_opened, 1)
    ON CONFLICT (user_id) DO UPDATE SET
        opened = trade_running.opened + EXCLUDED.opened,
        changes = trade_running.changes + 1, pending_close = NULL;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_running_update AFTER UPDATE ON trades
FOR EACH ROW EXECUTE FUNCTION trade_running_update();

-- Existing trades: exact counts now; the figures one change behind, rebuilt on first read.
INSERT INTO trade_running (user_id, opened, changes)
SELECT user_id,
       COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
       CASE WHEN COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL) > 0
            THEN 1 ELSE 0 END
FROM trades GROUP BY user_id;

-- The dashboard's counts at an instant: trades opened after it, and open or closed after it.
CREATE INDEX trades_user_opened ON trades(user_id, opened_at);
CREATE INDEX trades_user_status_closed ON trades(user_id, status, closed_at);
ANALYZE trades;
