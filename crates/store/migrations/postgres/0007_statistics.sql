-- Closed trades rolled up by UTC quarter hour, so statistics over any period read one row per
-- quarter hour instead of one per trade. Every UTC offset in use is a whole number of quarter
-- hours, so a quarter hour has one local weekday and hour in every zone. Kept by the trigger
-- below on every insert, update and delete of a trade, whatever the code path.
CREATE TABLE trade_rollup (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- closed_at / 900000: the UTC quarter hour the trades closed in.
    quarter BIGINT NOT NULL,
    trades BIGINT NOT NULL,
    -- Trades with pnl > 0.
    wins BIGINT NOT NULL,
    -- Sum of the trades' net pnl in units of 1e-8 USDT.
    pnl_e8 BIGINT NOT NULL,
    PRIMARY KEY (user_id, quarter)
);

CREATE FUNCTION trade_rollup_apply() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'CLOSED' AND OLD.closed_at IS NOT NULL THEN
        UPDATE trade_rollup SET
            trades = trades - 1,
            wins = wins - CASE WHEN OLD.pnl::numeric > 0 THEN 1 ELSE 0 END,
            pnl_e8 = pnl_e8 - ROUND(OLD.pnl::numeric * 100000000)::bigint
        WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000;
        DELETE FROM trade_rollup
        WHERE user_id = OLD.user_id AND quarter = OLD.closed_at / 900000 AND trades = 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'CLOSED' AND NEW.closed_at IS NOT NULL THEN
        INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8)
        VALUES (NEW.user_id, NEW.closed_at / 900000, 1,
                CASE WHEN NEW.pnl::numeric > 0 THEN 1 ELSE 0 END,
                ROUND(NEW.pnl::numeric * 100000000)::bigint)
        ON CONFLICT (user_id, quarter) DO UPDATE SET
            trades = trade_rollup.trades + 1,
            wins = trade_rollup.wins + EXCLUDED.wins,
            pnl_e8 = trade_rollup.pnl_e8 + EXCLUDED.pnl_e8;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER trade_rollup_apply AFTER INSERT OR UPDATE OR DELETE ON trades
FOR EACH ROW EXECUTE FUNCTION trade_rollup_apply();

INSERT INTO trade_rollup (user_id, quarter, trades, wins, pnl_e8)
SELECT user_id, closed_at / 900000, COUNT(*),
       SUM(CASE WHEN pnl::numeric > 0 THEN 1 ELSE 0 END),
       SUM(ROUND(pnl::numeric * 100000000))::bigint
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL
GROUP BY user_id, closed_at / 900000;

-- Every execution of a trade (opening, partial and final closes): the 24 h volume is the
-- notional of the fills in the window.
CREATE TABLE fills (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    trade_id BIGINT REFERENCES trades(id) ON DELETE SET NULL,
    -- qty x price in USDT, an exact decimal string.
    notional TEXT NOT NULL,
    filled_at BIGINT NOT NULL
);
CREATE INDEX fills_user_time ON fills(user_id, filled_at);

INSERT INTO fills (user_id, trade_id, notional, filled_at)
SELECT user_id, id, (qty::numeric * entry_price::numeric)::text, opened_at
FROM trades WHERE opened_at IS NOT NULL AND entry_price IS NOT NULL;
INSERT INTO fills (user_id, trade_id, notional, filled_at)
SELECT user_id, id, exit_value, closed_at
FROM trades WHERE status = 'CLOSED' AND closed_at IS NOT NULL;

-- The account's balance every 5 minutes, for the dashboard's 24-hours-ago figures; rows older
-- than the retention are deleted as new ones are written.
CREATE TABLE balance_snapshots (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    taken_at BIGINT NOT NULL,
    equity TEXT NOT NULL,
    available_balance TEXT NOT NULL,
    margin_balance TEXT NOT NULL,
    PRIMARY KEY (user_id, taken_at)
);
