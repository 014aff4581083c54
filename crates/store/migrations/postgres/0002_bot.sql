-- One trading settings record per user. The settings themselves are a JSON document
-- (validated by signaldesk-core); the run flags are columns so restarts can find running bots.
CREATE TABLE bot_settings (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    is_bot_running BIGINT NOT NULL DEFAULT 0,
    is_signals_fetching_active BIGINT NOT NULL DEFAULT 0,
    bot_started_at BIGINT,
    updated_at BIGINT NOT NULL
);

-- Exchange keys, key and secret encrypted (AES-256-GCM under the master key).
CREATE TABLE api_keys (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key_enc TEXT NOT NULL,
    secret_enc TEXT NOT NULL,
    is_demo BIGINT NOT NULL,
    is_active BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
CREATE INDEX api_keys_user_id ON api_keys(user_id);

CREATE TABLE bot_logs (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    ts BIGINT NOT NULL,
    level TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE INDEX bot_logs_user_id_id ON bot_logs(user_id, id);
