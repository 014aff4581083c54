-- Statistics follow the account (docs/accounts.md, "Statistics follow the account"): the
-- rollup of migrations 0007/0010 and the running figures of 0009 are kept per (user, account)
-- instead of per user, the account being the trade's `venue` in AccountVenue's stored
-- spelling ('paper', 'bybit-demo', 'bybit-real'). A trade whose venue is NULL (made before
-- 0017 and not placed by the upgrade) counts in no account's statistics. The triggers are
-- those of 0009/0010 with the venue added to every key; a trade whose user or venue changes
-- (the upgrade stamping a legacy trade) moves out of one key and into the other.

DROP TRIGGER IF EXISTS trade_rollup_insert;
DROP TRIGGER IF EXISTS trade_rollup_update_old;
DROP TRIGGER IF EXISTS trade_rollup_update_new;
DROP TRIGGER IF EXISTS trade_rollup_delete;
DROP TRIGGER IF EXISTS trade_running_insert;
DROP TRIGGER IF EXISTS trade_running_update;
DROP TRIGGER IF EXISTS trade_running_move;
DROP TRIGGER IF EXISTS trade_running_delete;

DROP TABLE trade_rollup;
CREATE TABLE trade_rollup (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    venue TEXT NOT NULL,
    -- closed_at / 900000: the UTC quarter hour the trades closed in.
    quarter INTEGER NOT NULL,
    trades INTEGER NOT NULL,
    -- Trades with pnl > 0.
    wins INTEGER NOT NULL,
    -- Sum of the trades' net pnl in units of 1e-8 USDT.
    pnl_e8 INTEGER NOT NULL,
    -- The (user, venue)'s change number of the row's last change (0010).
    seq INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, venue, quarter)
);
CREATE INDEX trade_rollup_user_seq ON trade_rollup(user_id, venue, seq);

CREATE TRIGGER trade_rollup_insert AFTER INSERT ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL AND NEW.venue IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
    VALUES (NEW.user_id, NEW.venue, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER),
            (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup
             WHERE user_id = NEW.user_id AND venue = NEW.venue))
    ON CONFLICT (user_id, venue, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8,
        seq = excluded.seq;
END;

CREATE TRIGGER trade_rollup_update_old AFTER UPDATE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL AND OLD.venue IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER),
        seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup
               WHERE user_id = OLD.user_id AND venue = OLD.venue)
    WHERE user_id = OLD.user_id AND venue = OLD.venue AND quarter = OLD.closed_at / 900000;
END;

CREATE TRIGGER trade_rollup_update_new AFTER UPDATE ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL AND NEW.venue IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
    VALUES (NEW.user_id, NEW.venue, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER),
            (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup
             WHERE user_id = NEW.user_id AND venue = NEW.venue))
    ON CONFLICT (user_id, venue, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8,
        seq = excluded.seq;
END;

CREATE TRIGGER trade_rollup_delete AFTER DELETE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL AND OLD.venue IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER),
        seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup
               WHERE user_id = OLD.user_id AND venue = OLD.venue)
    WHERE user_id = OLD.user_id AND venue = OLD.venue AND quarter = OLD.closed_at / 900000;
END;

INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
SELECT user_id, venue, closed_at / 900000, COUNT(*),
       SUM(CASE WHEN CAST(pnl AS REAL) > 0 THEN 1 ELSE 0 END),
       SUM(CAST(ROUND(CAST(pnl AS REAL) * 100000000) AS INTEGER)), 1
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL AND venue IS NOT NULL
GROUP BY user_id, venue, closed_at / 900000;

DROP TABLE trade_running;
CREATE TABLE trade_running (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    venue TEXT NOT NULL,
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
    last_id INTEGER,
    PRIMARY KEY (user_id, venue)
);

CREATE TRIGGER trade_running_insert AFTER INSERT ON trades
WHEN NEW.venue IS NOT NULL
BEGIN
    INSERT INTO trade_running (user_id, venue, opened, changes)
    VALUES (NEW.user_id, NEW.venue,
            NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL,
            NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL)
    ON CONFLICT (user_id, venue) DO UPDATE SET
        opened = opened + excluded.opened,
        changes = changes + excluded.changes,
        pending_close = CASE WHEN excluded.changes = 0 THEN pending_close END;
END;

-- The same user and account: counts move by the difference; a change to the closed set is
-- one change, and it is a plain close (pending_close) when the trade was not closed before.
CREATE TRIGGER trade_running_update AFTER UPDATE ON trades
WHEN OLD.user_id = NEW.user_id AND OLD.venue IS NEW.venue AND NEW.venue IS NOT NULL AND (
    (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL)
        IS NOT (NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL)
    OR ((OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL)
        OR (NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL))
       AND (OLD.status IS NOT NEW.status OR OLD.pnl IS NOT NEW.pnl
            OR OLD.closed_at IS NOT NEW.closed_at OR OLD.id IS NOT NEW.id))
BEGIN
    INSERT INTO trade_running (user_id, venue) VALUES (NEW.user_id, NEW.venue)
    ON CONFLICT (user_id, venue) DO NOTHING;
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
    WHERE user_id = NEW.user_id AND venue = NEW.venue;
END;

-- A trade moved to another user or account (a legacy trade placed by the upgrade): out of
-- one, into the other; a NULL venue is no account.
CREATE TRIGGER trade_running_move AFTER UPDATE ON trades
WHEN OLD.user_id IS NOT NEW.user_id OR OLD.venue IS NOT NEW.venue
BEGIN
    UPDATE trade_running SET
        opened = opened - (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL),
        changes = changes + 1, pending_close = NULL
    WHERE user_id = OLD.user_id AND venue = OLD.venue;
    INSERT INTO trade_running (user_id, venue, opened, changes)
    SELECT NEW.user_id, NEW.venue,
           NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL, 1
    WHERE NEW.venue IS NOT NULL
    ON CONFLICT (user_id, venue) DO UPDATE SET
        opened = opened + excluded.opened, changes = changes + 1, pending_close = NULL;
END;

CREATE TRIGGER trade_running_delete AFTER DELETE ON trades
WHEN OLD.venue IS NOT NULL
BEGIN
    UPDATE trade_running SET
        opened = opened - (OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL),
        changes = changes + (OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL),
        pending_close = CASE WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
            THEN NULL ELSE pending_close END
    WHERE user_id = OLD.user_id AND venue = OLD.venue;
END;

-- Existing trades: exact counts now; the figures one change behind, rebuilt on first read.
INSERT INTO trade_running (user_id, venue, opened, changes)
SELECT user_id, venue,
       SUM(status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
       CASE WHEN SUM(status = 'CLOSED' AND closed_at IS NOT NULL) > 0 THEN 1 ELSE 0 END
FROM trades WHERE venue IS NOT NULL GROUP BY user_id, venue;

-- A balance snapshot belongs to the account it was taken on. Those from before are given the
-- account their user is on now when its key names its exchange; the others (keys the upgrade
-- has not placed yet) wait for the upgrade (`Store::place_undecided_keys`).
ALTER TABLE balance_snapshots ADD COLUMN venue TEXT;
UPDATE balance_snapshots SET venue = COALESCE(
    (SELECT CASE WHEN k.exchange = 'paper' THEN 'paper'
                 WHEN k.exchange = 'bybit' AND k.is_demo <> 0 THEN 'bybit-demo'
                 WHEN k.exchange = 'bybit' THEN 'bybit-real' END
     FROM api_keys k WHERE k.user_id = balance_snapshots.user_id AND k.is_active <> 0),
    CASE WHEN NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.user_id = balance_snapshots.user_id
                          AND k.is_active <> 0) THEN 'paper' END);
