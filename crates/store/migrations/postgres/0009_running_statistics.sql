-- Per-user running figures, so the all-time live statistics and the dashboard's trade counts
-- never read every trade (docs/architecture.md, "Running statistics").
--
-- `opened` (trades ever opened: OPEN or CLOSED with an opened_at) is kept by the trigger
-- below, exactly, on every insert, update and delete. The live statistics' figures (counts,
-- the exact pnl sum as text, the pnl path's high, low since it and the hull of its falls,
-- see signaldesk_core::running_stats) are kept by the store's Rust code: the trigger counts
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

CREATE FUNCTION trade_running_apply() RETURNS trigger AS $$
DECLARE
    old_opened BIGINT := 0;
    new_opened BIGINT := 0;
    old_closed BOOLEAN := FALSE;
    new_closed BOOLEAN := FALSE;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        old_opened := CASE WHEN OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL
                           THEN 1 ELSE 0 END;
        old_closed := OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        new_opened := CASE WHEN NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL
                           THEN 1 ELSE 0 END;
        new_closed := NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.user_id = NEW.user_id THEN
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
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE trade_running SET
            opened = opened - old_opened,
            changes = changes + CASE WHEN old_closed OR TG_OP = 'UPDATE' THEN 1 ELSE 0 END,
            pending_close = CASE WHEN old_closed OR TG_OP = 'UPDATE' THEN NULL
                                 ELSE pending_close END
        WHERE user_id = OLD.user_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO trade_running (user_id, opened, changes)
        VALUES (NEW.user_id, new_opened,
                CASE WHEN new_closed OR TG_OP = 'UPDATE' THEN 1 ELSE 0 END)
        ON CONFLICT (user_id) DO UPDATE SET
            opened = trade_running.opened + EXCLUDED.opened,
            changes = trade_running.changes + EXCLUDED.changes,
            pending_close = CASE WHEN EXCLUDED.changes = 0 THEN trade_running.pending_close END;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_running_apply AFTER INSERT OR UPDATE OR DELETE ON trades
FOR EACH ROW EXECUTE FUNCTION trade_running_apply();

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
