-- trades_user_status (user_id, status) is the leading part of trades_user_status_closed
-- (user_id, status, closed_at, migration 0009), which serves every query it served: one index
-- less to update on every trade written (and 100,000 times in a history import).
DROP INDEX IF EXISTS trades_user_status;
