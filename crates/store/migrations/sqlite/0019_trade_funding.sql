-- Funding a trade's position paid or received while it was open (signed USDT: received is
-- positive), already included in `pnl` (docs/funding.md). Each settlement is one row of
-- `fills` with notional 0 whose venue_id is the settlement's id, so none is booked twice.
ALTER TABLE trades ADD COLUMN funding TEXT NOT NULL DEFAULT '0';
