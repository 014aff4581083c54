-- Every change to a user's rollup row is stamped with the user's next change number (one more
-- than the highest, found on the index), so a reader that keeps the rollup in memory fetches
-- only the rows changed since its copy (docs/architecture.md, "Statistics and the
-- dashboard"). SQLite has one writer at a time: numbers commit in order. A row a change
-- empties stays, with trades = 0, so that change is seen too; readers skip empty rows.

ALTER TABLE trade_rollup ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX trade_rollup_user_seq ON trade_rollup(user_id, seq);

DROP TRIGGER trade_rollup_insert;
DROP TRIGGER trade_rollup_update_old;
DROP TRIGGER trade_rollup_update_new;
DROP TRIGGER trade_rollup_delete;

CREATE TRIGGER trade_rollup_insert AFTER INSERT ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8, seq)
    VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER),
            (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup WHERE user_id = NEW.user_id))
    ON CONFLICT (user_id, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8,
        seq = excluded.seq;
END;

CREATE TRIGGER trade_rollup_update_old AFTER UPDATE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER),
        seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup WHERE user_id = OLD.user_id)
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
END;

CREATE TRIGGER trade_rollup_update_new AFTER UPDATE ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8, seq)
    VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER),
            (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup WHERE user_id = NEW.user_id))
    ON CONFLICT (user_id, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8,
        seq = excluded.seq;
END;

CREATE TRIGGER trade_rollup_delete AFTER DELETE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER),
        seq = (SELECT IFNULL(MAX(seq), 0) + 1 FROM trade_rollup WHERE user_id = OLD.user_id)
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
END;
