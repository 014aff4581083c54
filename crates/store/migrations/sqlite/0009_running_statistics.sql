-- Per-user running figures, so the all-time live statistics and the dashboard's trade counts
-- never read every trade (docs/architecture.md, "Running statistics").
--
-- `opened` (trades ever opened: OPEN or CLOSED with an opened_at) is kept by the triggers
-- below, exactly, on every insert, update and delete. The live statistics' figures (counts,
-- the exact pnl sum as text, the pnl path's high, low since it and the hull of its falls,
-- see signaldesk_core::running_stats) need decimal arithmetic, so the store's Rust code keeps
-- them: the triggers count every change to the set of closed trades in `changes`, and the
-- figures are those of the first `applied` changes. Closing a trade advances them in the
-- transaction that closes it when that close is the only change pending and the latest in
-- close order (`pending_close` names it); anything else (an import, a correction, a delete, a
-- close out of order) leaves them behind, and the next read rebuilds them from the trades.
CREATE TABLE trade_running (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    opened INTEGER NOT NULL DEFAULT 0,
    changes INTEGER NOT NULL DEFAULT 0,
    applied INTEGER NOT NULL DEFAULT 0,
    -- The trade whose close is the one change not yet applied; NULL for any other change.
    pending_close INTEGER,
    trades INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    pnl TEXT NOT NULL DEFAULT '0',
    peak TEXT NOT NULL DEFAULT '0',
    trough TEXT NOT NULL DEFAULT '0',
    first_depth TEXT NOT NULL DEFAULT '0',
    falls TEXT NOT NULL DEFAULT '',
    -- (closed_at, id) of the latest close applied: close order.
    last_closed_at INTEGER,
    last_id INTEGER
);

CREATE TRIGGER trade_running_insert AFTER INSERT ON trades
BEGIN
    INSERT INTO trade_running (user_id, opened, changes)
    VALUES (NEW.user_id,
            NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL,
            NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL)
    ON CONFLICT (user_id) DO UPDATE SET
        opened = opened + excluded.opened,
        changes = changes + excluded.changes,
        pending_close = CASE WHEN excluded.changes = 0 THEN pending_close END;
END;

-- The same user: counts move by the difference; a change to the closed set is one change,
-- and it is a plain close (pending_close) when the trade was not closed before.
CREATE TRIGGER trade_running_update AFTER UPDATE ON trades
WHEN OLD.user_id = NEW.user_id AND (
    (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL)
        IS NOT (NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL)
    OR ((OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL)
        OR (NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL))
       AND (OLD.status IS NOT NEW.status OR OLD.pnl IS NOT NEW.pnl
            OR OLD.closed_at IS NOT NEW.closed_at OR OLD.id IS NOT NEW.id))
BEGIN
    INSERT INTO trade_running (user_id) VALUES (NEW.user_id) ON CONFLICT (user_id) DO NOTHING;
    UPDATE trade_running SET
        opened = opened
            + (NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL)
            - (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL),
        changes = changes + CASE WHEN
            ((OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL)
                OR (NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL))
            AND (OLD.status IS NOT NEW.status OR OLD.pnl IS NOT NEW.pnl
                 OR OLD.closed_at IS NOT NEW.closed_at OR OLD.id IS NOT NEW.id)
            THEN 1 ELSE 0 END,
        pending_close = CASE
            WHEN NOT ((OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL)
                OR (NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL))
                OR NOT (OLD.status IS NOT NEW.status OR OLD.pnl IS NOT NEW.pnl
                    OR OLD.closed_at IS NOT NEW.closed_at OR OLD.id IS NOT NEW.id)
                THEN pending_close
            WHEN NOT (OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL) THEN NEW.id
            END
    WHERE user_id = NEW.user_id;
END;

-- A trade moved to another user: out of one, into the other.
CREATE TRIGGER trade_running_move AFTER UPDATE ON trades
WHEN OLD.user_id IS NOT NEW.user_id
BEGIN
    UPDATE trade_running SET
        opened = opened - (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL),
        changes = changes + 1, pending_close = NULL
    WHERE user_id = OLD.user_id;
    INSERT INTO trade_running (user_id, opened, changes)
    VALUES (NEW.user_id, NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL, 1)
    ON CONFLICT (user_id) DO UPDATE SET
        opened = opened + excluded.opened, changes = changes + 1, pending_close = NULL;
END;

CREATE TRIGGER trade_running_delete AFTER DELETE ON trades
BEGIN
    UPDATE trade_running SET
        opened = opened - (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL),
        changes = changes + (OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL),
        pending_close = CASE WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
            THEN NULL ELSE pending_close END
    WHERE user_id = OLD.user_id;
END;

-- Existing trades: exact counts now; the figures one change behind, rebuilt on first read.
INSERT INTO trade_running (user_id, opened, changes)
SELECT user_id,
       SUM(status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
       CASE WHEN SUM(status = 'CLOSED' AND closed_at IS NOT NULL) > 0 THEN 1 ELSE 0 END
FROM trades GROUP BY user_id;

-- The dashboard's counts at an instant: trades opened after it, and open or closed after it.
CREATE INDEX trades_user_opened ON trades(user_id, opened_at);
CREATE INDEX trades_user_status_closed ON trades(user_id, status, closed_at);
