-- The paper exchange's state per user (wallet, positions, stops, recent order ids) as the
-- JSON snapshot the venue crate defines; written after every change, read at start.
CREATE TABLE paper_accounts (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    snapshot TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
