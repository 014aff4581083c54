-- Two-factor login (TOTP, RFC 6238; docs/security.md). One row per user who has begun or
-- finished setting it up: the secret encrypted at rest (AES-256-GCM under the master key,
-- like the exchange keys), whether it is on (0 while set-up waits for a first code), and the
-- last time step whose code was accepted, so each code works once.
CREATE TABLE user_totp (
    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    secret_enc TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 0,
    last_used_step INTEGER,
    created_at INTEGER NOT NULL
);

-- One-time recovery codes, made when 2FA is turned on, stored as SHA-256 digests; used_at is
-- set when one is spent.
CREATE TABLE recovery_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at INTEGER
);
CREATE INDEX recovery_codes_user_id ON recovery_codes(user_id);

-- Where a session was made from, for the sessions list (NULL for sessions from before).
ALTER TABLE sessions ADD COLUMN client_address TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
