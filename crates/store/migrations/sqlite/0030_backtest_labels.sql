-- A label the trader gives a backtest (docs/backtesting.md "Labels"): trimmed, at most 80
-- characters, NULL when none.
ALTER TABLE backtests ADD COLUMN label TEXT;
