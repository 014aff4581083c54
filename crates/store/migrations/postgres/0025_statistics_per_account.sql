-- Statistics follow the account (docs/accounts.md, "Statistics follow the account"): the
-- rollup of migrations 0007/0010 and the running figures of 0009 are kept per (user, account)
-- instead of per user, the account being the trade's `venue` in AccountVenue's stored
-- spelling ('paper', 'bybit-demo', 'bybit-real'). A trade whose venue is NULL (made before
-- 0017 and not placed by the upgrade) counts in no account's statistics. The trigger
-- functions are those of 0009/0010 with the venue added to every key (the triggers keep
-- calling them); a trade whose user or venue changes (the upgrade stamping a legacy trade)
-- moves out of one key and into the other. The advisory lock of a change stays per user.

DROP TABLE trade_rollup;
CREATE TABLE trade_rollup (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    venue TEXT NOT NULL,
    -- closed_at / 900000: the UTC quarter hour the trades closed in.
    quarter BIGINT NOT NULL,
    trades BIGINT NOT NULL,
    -- Trades with pnl > 0.
    wins BIGINT NOT NULL,
    -- Sum of the trades' net pnl in units of 1e-8 USDT.
    pnl_e8 BIGINT NOT NULL,
    -- The number (trade_rollup_seq) of the row's last change (0010).
    seq BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, venue, quarter)
);
CREATE INDEX trade_rollup_user_seq ON trade_rollup(user_id, venue, seq);

CREATE OR REPLACE FUNCTION trade_rollup_insert_rows() RETURNS trigger AS $$
DECLARE
    users BIGINT[] := ARRAY(SELECT DISTINCT user_id FROM new_rows
                            WHERE status = 'CLOSED' AND closed_at IS NOT NULL
                                AND venue IS NOT NULL);
    s BIGINT;
BEGIN
    IF cardinality(users) = 0 THEN
        RETURN NULL;
    END IF;
    s := trade_rollup_next_seq(users);
    INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
    SELECT user_id, venue, closed_at / 900000, COUNT(*),
           COUNT(*) FILTER (WHERE pnl::numeric > 0),
           SUM(ROUND(pnl::numeric * 100000000))::bigint, s
    FROM new_rows WHERE status = 'CLOSED' AND closed_at IS NOT NULL AND venue IS NOT NULL
    GROUP BY user_id, venue, closed_at / 900000
    ON CONFLICT (user_id, venue, quarter) DO UPDATE SET
        trades = trade_rollup.trades + EXCLUDED.trades,
        wins = trade_rollup.wins + EXCLUDED.wins,
        pnl_e8 = trade_rollup.pnl_e8 + EXCLUDED.pnl_e8,
        seq = EXCLUDED.seq;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION trade_rollup_delete_rows() RETURNS trigger AS $$
DECLARE
    users BIGINT[] := ARRAY(SELECT DISTINCT user_id FROM old_rows
                            WHERE status = 'CLOSED' AND closed_at IS NOT NULL
                                AND venue IS NOT NULL);
    s BIGINT;
BEGIN
    IF cardinality(users) = 0 THEN
        RETURN NULL;
    END IF;
    s := trade_rollup_next_seq(users);
    UPDATE trade_rollup SET
        trades = trade_rollup.trades - gone.trades,
        wins = trade_rollup.wins - gone.wins,
        pnl_e8 = trade_rollup.pnl_e8 - gone.pnl_e8,
        seq = s
    FROM (SELECT user_id, venue, closed_at / 900000 AS quarter, COUNT(*) AS trades,
                 COUNT(*) FILTER (WHERE pnl::numeric > 0) AS wins,
                 SUM(ROUND(pnl::numeric * 100000000))::bigint AS pnl_e8
          FROM old_rows WHERE status = 'CLOSED' AND closed_at IS NOT NULL AND venue IS NOT NULL
          GROUP BY user_id, venue, closed_at / 900000) AS gone
    WHERE trade_rollup.user_id = gone.user_id AND trade_rollup.venue = gone.venue
        AND trade_rollup.quarter = gone.quarter;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION trade_rollup_update() RETURNS trigger AS $$
DECLARE
    s BIGINT;
BEGIN
    IF OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL AND OLD.venue IS NOT NULL THEN
        s := trade_rollup_next_seq(ARRAY[OLD.user_id]);
        UPDATE trade_rollup SET
            trades = trades - 1,
            wins = wins - CASE WHEN OLD.pnl::numeric > 0 THEN 1 ELSE 0 END,
            pnl_e8 = pnl_e8 - ROUND(OLD.pnl::numeric * 100000000)::bigint,
            seq = s
        WHERE user_id = OLD.user_id AND venue = OLD.venue
            AND quarter = OLD.closed_at / 900000;
    END IF;
    IF NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL AND NEW.venue IS NOT NULL THEN
        s := trade_rollup_next_seq(ARRAY[NEW.user_id]);
        INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
        VALUES (NEW.user_id, NEW.venue, NEW.closed_at / 900000, 1,
                CASE WHEN NEW.pnl::numeric > 0 THEN 1 ELSE 0 END,
                ROUND(NEW.pnl::numeric * 100000000)::bigint, s)
        ON CONFLICT (user_id, venue, quarter) DO UPDATE SET
            trades = trade_rollup.trades + 1,
            wins = trade_rollup.wins + EXCLUDED.wins,
            pnl_e8 = trade_rollup.pnl_e8 + EXCLUDED.pnl_e8,
            seq = EXCLUDED.seq;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

INSERT INTO trade_rollup (user_id, venue, quarter, trades, wins, pnl_e8, seq)
SELECT user_id, venue, closed_at / 900000, COUNT(*),
       COUNT(*) FILTER (WHERE pnl::numeric > 0),
       SUM(ROUND(pnl::numeric * 100000000))::bigint, nextval('trade_rollup_seq')
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL AND venue IS NOT NULL
GROUP BY user_id, venue, closed_at / 900000;

DROP TABLE trade_running;
CREATE TABLE trade_running (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    venue TEXT NOT NULL,
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
    last_id BIGINT,
    PRIMARY KEY (user_id, venue)
);

CREATE OR REPLACE FUNCTION trade_running_insert_rows() RETURNS trigger AS $$
BEGIN
    INSERT INTO trade_running (user_id, venue, opened, changes)
    SELECT user_id, venue,
           COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
           COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL)
    FROM new_rows WHERE venue IS NOT NULL GROUP BY user_id, venue
    ON CONFLICT (user_id, venue) DO UPDATE SET
        opened = trade_running.opened + EXCLUDED.opened,
        changes = trade_running.changes + EXCLUDED.changes,
        pending_close = CASE WHEN EXCLUDED.changes = 0 THEN trade_running.pending_close END;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION trade_running_delete_rows() RETURNS trigger AS $$
BEGIN
    UPDATE trade_running SET
        opened = trade_running.opened - gone.opened,
        changes = trade_running.changes + gone.changes,
        pending_close = CASE WHEN gone.changes > 0 THEN NULL
                             ELSE trade_running.pending_close END
    FROM (SELECT user_id, venue,
                 COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL)
                     AS opened,
                 COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL) AS changes
          FROM old_rows WHERE venue IS NOT NULL GROUP BY user_id, venue) AS gone
    WHERE trade_running.user_id = gone.user_id AND trade_running.venue = gone.venue;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION trade_running_update() RETURNS trigger AS $$
DECLARE
    old_opened BIGINT := CASE WHEN OLD.status IN ('OPEN', 'CLOSED') AND OLD.opened_at IS NOT NULL
                              THEN 1 ELSE 0 END;
    new_opened BIGINT := CASE WHEN NEW.status IN ('OPEN', 'CLOSED') AND NEW.opened_at IS NOT NULL
                              THEN 1 ELSE 0 END;
    old_closed BOOLEAN := OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL;
    new_closed BOOLEAN := NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL;
BEGIN
    IF OLD.user_id = NEW.user_id AND OLD.venue IS NOT DISTINCT FROM NEW.venue THEN
        IF NEW.venue IS NULL THEN
            RETURN NULL;
        END IF;
        IF (old_closed OR new_closed) AND (OLD.status IS DISTINCT FROM NEW.status
                OR OLD.pnl IS DISTINCT FROM NEW.pnl OR OLD.closed_at IS DISTINCT FROM NEW.closed_at
                OR OLD.id IS DISTINCT FROM NEW.id) THEN
            INSERT INTO trade_running (user_id, venue, opened, changes, pending_close)
            VALUES (NEW.user_id, NEW.venue, new_opened - old_opened, 1,
                    CASE WHEN old_closed THEN NULL ELSE NEW.id END)
            ON CONFLICT (user_id, venue) DO UPDATE SET
                opened = trade_running.opened + EXCLUDED.opened,
                changes = trade_running.changes + 1,
                pending_close = EXCLUDED.pending_close;
        ELSIF new_opened <> old_opened THEN
            INSERT INTO trade_running (user_id, venue, opened)
            VALUES (NEW.user_id, NEW.venue, new_opened - old_opened)
            ON CONFLICT (user_id, venue) DO UPDATE
                SET opened = trade_running.opened + EXCLUDED.opened;
        END IF;
        RETURN NULL;
    END IF;
    -- A trade moved to another user or account (a legacy trade placed by the upgrade): out
    -- of one, into the other; a NULL venue is no account.
    UPDATE trade_running SET opened = opened - old_opened, changes = changes + 1,
        pending_close = NULL
    WHERE user_id = OLD.user_id AND venue = OLD.venue;
    IF NEW.venue IS NOT NULL THEN
        INSERT INTO trade_running (user_id, venue, opened, changes)
        VALUES (NEW.user_id, NEW.venue, new_opened, 1)
        ON CONFLICT (user_id, venue) DO UPDATE SET
            opened = trade_running.opened + EXCLUDED.opened,
            changes = trade_running.changes + 1, pending_close = NULL;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Existing trades: exact counts now; the figures one change behind, rebuilt on first read.
INSERT INTO trade_running (user_id, venue, opened, changes)
SELECT user_id, venue,
       COUNT(*) FILTER (WHERE status IN ('OPEN', 'CLOSED') AND opened_at IS NOT NULL),
       CASE WHEN COUNT(*) FILTER (WHERE status = 'CLOSED' AND closed_at IS NOT NULL) > 0
            THEN 1 ELSE 0 END
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
