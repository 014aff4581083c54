-- Closed trades rolled up by UTC quarter hour, so statistics over any period read one row per
-- quarter hour instead of one per trade. Every UTC offset in use is a whole number of quarter
-- hours, so a quarter hour has one local weekday and hour in every zone. Kept by the triggers
-- below on every insert, update and delete of a trade, whatever the code path.
CREATE TABLE trade_rollup (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- closed_at / 900000: the UTC quarter hour the trades closed in.
    quarter INTEGER NOT NULL,
    trades INTEGER NOT NULL,
    -- Trades with pnl > 0.
    wins INTEGER NOT NULL,
    -- Sum of the trades' net pnl in units of 1e-8 USDT.
    pnl_e8 INTEGER NOT NULL,
    PRIMARY KEY (user_id, quarter)
);

CREATE TRIGGER trade_rollup_insert AFTER INSERT ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8)
    VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER))
    ON CONFLICT (user_id, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8;
END;

CREATE TRIGGER trade_rollup_update_old AFTER UPDATE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER)
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
    DELETE FROM trade_rollup
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000 AND trades = 0;
END;

CREATE TRIGGER trade_rollup_update_new AFTER UPDATE ON trades
WHEN NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL
BEGIN
    INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8)
    VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
            CASE WHEN CAST(NEW.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
            CAST(ROUND(CAST(NEW.pnl AS REAL) * 100000000) AS INTEGER))
    ON CONFLICT (user_id, quarter) DO UPDATE SET
        trades = trades + 1, wins = wins + excluded.wins, pnl_e8 = pnl_e8 + excluded.pnl_e8;
END;

CREATE TRIGGER trade_rollup_delete AFTER DELETE ON trades
WHEN OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL
BEGIN
    UPDATE trade_rollup SET
        trades = trades - 1,
        wins = wins - CASE WHEN CAST(OLD.pnl AS REAL) > 0 THEN 1 ELSE 0 END,
        pnl_e8 = pnl_e8 - CAST(ROUND(CAST(OLD.pnl AS REAL) * 100000000) AS INTEGER)
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
    DELETE FROM trade_rollup
    WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000 AND trades = 0;
END;

INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8)
SELECT user_id, closed_at / 900000, COUNT(*),
       SUM(CASE WHEN CAST(pnl AS REAL) > 0 THEN 1 ELSE 0 END),
       SUM(CAST(ROUND(CAST(pnl AS REAL) * 100000000) AS INTEGER))
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL
GROUP BY user_id, closed_at / 900000;

-- Every execution of a trade (opening, partial and final closes): the 24 h volume is the
-- notional of the fills in the window.
CREATE TABLE fills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    trade_id INTEGER REFERENCES trades(id) ON DELETE SET NULL,
    -- qty x price in USDT, an exact decimal string.
    notional TEXT NOT NULL,
    filled_at INTEGER NOT NULL
);
CREATE INDEX fills_user_time ON fills(user_id, filled_at);

INSERT INTO fills (user_id, trade_id, notional, filled_at)
SELECT user_id, id, printf('%.8f', CAST(qty AS REAL) * CAST(entry_price AS REAL)), opened_at
FROM trades WHERE opened_at IS NOT NULL AND entry_price IS NOT NULL;
INSERT INTO fills (user_id, trade_id, notional, filled_at)
SELECT user_id, id, exit_value, closed_at
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL;

-- The account's balance every 5 minutes, for the dashboard's 24-hours-ago figures; rows older
-- than the retention are deleted as new ones are written.
CREATE TABLE balance_snapshots (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    taken_at INTEGER NOT NULL,
    equity TEXT NOT NULL,
    available_balance TEXT NOT NULL,
    margin_balance TEXT NOT NULL,
    PRIMARY KEY (user_id, taken_at)
);
