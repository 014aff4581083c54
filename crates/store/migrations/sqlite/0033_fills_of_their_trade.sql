-- A fill belongs to its trade and to that trade's user, by construction: one foreign key
-- (user_id, trade_id) -> trades (user_id, id) replaces the fill's two (user_id -> users and
-- trade_id -> trades), so a fill can no longer name one user and another user's trade, and
-- each fill written costs one key check instead of two. A fill goes with its trade (ON DELETE
-- CASCADE, the user's deletion still reaching it through the trade); before, it stayed with
-- no trade, where no figure counts it (the 24 h volume reads a fill through its trade's
-- account). Every fill is written with its trade; any left without one goes now. SQLite
-- cannot change a table's keys: the table is written anew, ids and AUTOINCREMENT counter kept.
CREATE UNIQUE INDEX trades_user_id_id ON trades(user_id, id);

CREATE TABLE fills_of_trades (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL,
    trade_id INTEGER NOT NULL,
    -- qty x price in USDT, an exact decimal string.
    notional TEXT NOT NULL,
    filled_at INTEGER NOT NULL,
    venue_id TEXT,
    FOREIGN KEY (user_id, trade_id) REFERENCES trades (user_id, id) ON DELETE CASCADE
);
INSERT INTO fills_of_trades (id, user_id, trade_id, notional, filled_at, venue_id)
SELECT id, user_id, trade_id, notional, filled_at, venue_id FROM fills
WHERE trade_id IS NOT NULL;
DELETE FROM sqlite_sequence WHERE name = 'fills_of_trades';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'fills_of_trades', MAX(IFNULL((SELECT seq FROM sqlite_sequence WHERE name = 'fills'), 0),
                              IFNULL((SELECT MAX(id) FROM fills_of_trades), 0));
DROP TABLE fills;
ALTER TABLE fills_of_trades RENAME TO fills;
CREATE INDEX fills_user_time ON fills(user_id, filled_at);
CREATE UNIQUE INDEX fills_user_venue_id ON fills(user_id, venue_id) WHERE venue_id IS NOT NULL;
CREATE INDEX fills_trade ON fills(trade_id);

-- trades_user_closed (user_id, closed_at) serves no query: every read by close time also
-- names the status and uses trades_user_status_closed (user_id, status, closed_at).
DROP INDEX IF EXISTS trades_user_closed;
