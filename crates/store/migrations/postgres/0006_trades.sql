-- Martingale chains: a run of trades on one symbol, each step's margin a multiple of the last.
CREATE TABLE martingale_chains (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    symbol TEXT NOT NULL,
    -- OPEN or CLOSED
    status TEXT NOT NULL,
    -- The step of the chain's newest trade (1 is the first).
    step BIGINT NOT NULL,
    -- long or short: the newest trade's direction.
    side TEXT NOT NULL,
    -- won, lost, or NULL while open
    result TEXT,
    created_at BIGINT NOT NULL,
    closed_at BIGINT
);
CREATE INDEX martingale_chains_user_status ON martingale_chains(user_id, status);

-- The bot's trades. Money, prices and quantities are exact decimal strings.
CREATE TABLE trades (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    symbol TEXT NOT NULL,
    -- long or short
    side TEXT NOT NULL,
    -- PENDING (order sent, fill not yet recorded), OPEN, CLOSED or CANCELLED (never filled)
    status TEXT NOT NULL,
    -- Idempotency key of the opening order (Bybit's orderLinkId).
    client_order_id TEXT NOT NULL UNIQUE,
    leverage BIGINT NOT NULL,
    margin TEXT NOT NULL,
    qty TEXT NOT NULL,
    open_qty TEXT NOT NULL,
    entry_price TEXT,
    exit_price TEXT,
    closed_qty TEXT NOT NULL,
    exit_value TEXT NOT NULL,
    -- Net of every fee, as the venue reports closed pnl.
    pnl TEXT NOT NULL,
    fees TEXT NOT NULL,
    -- Notional of every fill of the trade (opening and closing), for the 24 h volume.
    volume TEXT NOT NULL,
    stop_loss TEXT,
    -- Take profits taken so far.
    tp_step BIGINT NOT NULL,
    close_reason TEXT,
    chain_id BIGINT REFERENCES martingale_chains(id) ON DELETE SET NULL,
    chain_step BIGINT,
    signal_id BIGINT,
    signal_at BIGINT,
    signal_price TEXT,
    created_at BIGINT NOT NULL,
    opened_at BIGINT,
    closed_at BIGINT
);
CREATE INDEX trades_user_status ON trades(user_id, status);
CREATE INDEX trades_user_closed ON trades(user_id, closed_at);
CREATE INDEX trades_user_created ON trades(user_id, created_at);
