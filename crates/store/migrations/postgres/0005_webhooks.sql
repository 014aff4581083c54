-- Each user's TradingView webhook secret, stored as its SHA-256 digest: the URL is shown
-- once when it is made and can only be replaced, never read back.
CREATE TABLE webhook_secrets (
    user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    secret_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
