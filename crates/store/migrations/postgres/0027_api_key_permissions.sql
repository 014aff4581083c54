-- What the exchange reported of each key's permissions at its last check (Set Active, and
-- the check before each Start Bot; docs/security.md, "Keys that cannot withdraw"): JSON
-- {"read_only", "groups": {group: [permission, ...]}, "ips": [...]}, and when (Unix ms).
-- NULL for a key never checked and for paper keys.
ALTER TABLE api_keys ADD COLUMN permissions_json TEXT;
ALTER TABLE api_keys ADD COLUMN permissions_checked_at BIGINT;
