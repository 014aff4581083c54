-- Each API key names its exchange ('paper' or 'bybit'), so the active key decides where the
-- user's bot trades (docs/accounts.md). Keys from before this migration are NULL until the
-- first start places them (`Store::place_undecided_keys`), once.
ALTER TABLE api_keys ADD COLUMN exchange TEXT;
-- Where each trade was made: 'paper', 'bybit-demo' or 'bybit-real'; NULL for trades from
-- before venues were recorded.
ALTER TABLE trades ADD COLUMN venue TEXT;
