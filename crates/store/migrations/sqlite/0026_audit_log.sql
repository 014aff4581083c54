-- The audit log (issue 31 point 2, docs/security.md "Audit log"): one row per security- or
-- money-relevant action: who (user_id; NULL for a failed login naming no user), when (Unix
-- ms), what (a stable snake_case action name and a JSON detail) and from where (the client
-- address, "telegram" for bot commands, and the user agent). No foreign key on user_id: a
-- row must outlive anything it names, and nothing may cascade into this table.
CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER,
    at INTEGER NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    address TEXT,
    user_agent TEXT
);
CREATE INDEX audit_log_user_id_id ON audit_log(user_id, id);
CREATE INDEX audit_log_at ON audit_log(at);

-- Append-only by construction: no row is ever updated, and none younger than 365 days is
-- deleted (the retention; older ones are pruned by the server).
CREATE TRIGGER audit_log_never_updated BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log rows are never updated');
END;
CREATE TRIGGER audit_log_kept_365_days BEFORE DELETE ON audit_log
WHEN OLD.at > CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - 31536000000
BEGIN
    SELECT RAISE(ABORT, 'audit_log rows are kept 365 days');
END;
