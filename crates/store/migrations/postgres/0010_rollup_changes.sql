-- Every change to a user's rollup row is stamped with a number from trade_rollup_seq, so a
-- reader that keeps the rollup in memory fetches only the rows changed since its copy
-- (docs/architecture.md, "Statistics and the dashboard"). A row a change empties stays, with
-- trades = 0, so that change is seen too; readers skip empty rows.
--
-- A reader that sees number n must see every earlier number of the user: a transaction takes
-- the user's transaction-scoped advisory lock (class 7010) before it draws a number, so the
-- changes of one user commit in the order of their numbers. Locks are taken before any rollup
-- row and, for several users, in the order of their ids: one order everywhere.
--
-- Inserts and deletes are summed per statement (an import writes 500 trades per INSERT: one
-- upsert per quarter hour and one number per statement); updates stay per row, since the
-- trading worker writes one trade per statement.
CREATE SEQUENCE trade_rollup_seq;

ALTER TABLE trade_rollup ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX trade_rollup_user_seq ON trade_rollup(user_id, seq);

-- Locks the users' rollups for this transaction and answers the number of the change.
CREATE FUNCTION trade_rollup_next_seq(users BIGINT[]) RETURNS BIGINT AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7010, (u % 2147483647)::int)
    FROM (SELECT DISTINCT u FROM unnest(users) AS u ORDER BY u) AS each_user;
    RETURN nextval('trade_rollup_seq');
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER trade_rollup_apply ON trades;
DROP FUNCTION trade_rollup_apply();

CREATE FUNCTION trade_rollup_insert_rows() RETURNS trigger AS $$
DECLARE
    users BIGINT[] := ARRAY(SELECT DISTINCT user_id FROM new_rows
                            WHERE status = 'CLOSED' AND closed_at IS NOT NULL);
    s BIGINT;
BEGIN
    IF cardinality(users) = 0 THEN
        RETURN NULL;
    END IF;
    s := trade_rollup_next_seq(users);
    INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8, seq)
    SELECT user_id, closed_at / 900000, COUNT(*),
           COUNT(*) FILTER (WHERE pnl::numeric > 0),
           SUM(ROUND(pnl::numeric * 100000000))::bigint, s
    FROM new_rows WHERE status = 'CLOSED' AND closed_at IS NOT NULL
    GROUP BY user_id, closed_at / 900000
    ON CONFLICT (user_id, quarter) DO UPDATE SET
        trades = trade_rollup.trades + EXCLUDED.trades,
        wins = trade_rollup.wins + EXCLUDED.wins,
        pnl_e8 = trade_rollup.pnl_e8 + EXCLUDED.pnl_e8,
        seq = EXCLUDED.seq;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_rollup_insert AFTER INSERT ON trades
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION trade_rollup_insert_rows();

CREATE FUNCTION trade_rollup_delete_rows() RETURNS trigger AS $$
DECLARE
    users BIGINT[] := ARRAY(SELECT DISTINCT user_id FROM old_rows
                            WHERE status = 'CLOSED' AND closed_at IS NOT NULL);
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
    FROM (SELECT user_id, closed_at / 900000 AS quarter, COUNT(*) AS trades,
                 COUNT(*) FILTER (WHERE pnl::numeric > 0) AS wins,
                 SUM(ROUND(pnl::numeric * 100000000))::bigint AS pnl_e8
          FROM old_rows WHERE status = 'CLOSED' AND closed_at IS NOT NULL
          GROUP BY user_id, closed_at / 900000) AS gone
    WHERE trade_rollup.user_id = gone.user_id AND trade_rollup.quarter = gone.quarter;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_rollup_delete AFTER DELETE ON trades
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION trade_rollup_delete_rows();

CREATE FUNCTION trade_rollup_update() RETURNS trigger AS $$
DECLARE
    s BIGINT;
BEGIN
    IF OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL THEN
        s := trade_rollup_next_seq(ARRAY[OLD.user_id]);
        UPDATE trade_rollup SET
            trades = trades - 1,
            wins = wins - CASE WHEN OLD.pnl::numeric > 0 THEN 1 ELSE 0 END,
            pnl_e8 = pnl_e8 - ROUND(OLD.pnl::numeric * 100000000)::bigint,
            seq = s
        WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
    END IF;
    IF NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL THEN
        s := trade_rollup_next_seq(ARRAY[NEW.user_id]);
        INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8, seq)
        VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
                CASE WHEN NEW.pnl::numeric > 0 THEN 1 ELSE 0 END,
                ROUND(NEW.pnl::numeric * 100000000)::bigint, s)
        ON CONFLICT (user_id, quarter) DO UPDATE SET
            trades = trade_rollup.trades + 1,
            wins = trade_rollup.wins + EXCLUDED.wins,
            pnl_e8 = trade_rollup.pnl_e8 + EXCLUDED.pnl_e8,
            seq = EXCLUDED.seq;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_rollup_update AFTER UPDATE ON trades
FOR EACH ROW
WHEN ((OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL)
      OR (NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL))
EXECUTE FUNCTION trade_rollup_update();
