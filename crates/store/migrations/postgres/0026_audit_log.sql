-- The audit log (issue 31 point 2, docs/security.md "Audit log"): one row per security- or
-- money-relevant action: who (user_id; NULL for a failed login naming no user), when (Unix
-- ms), what (a stable snake_case action name and a JSON detail) and from where (the client
-- address, "telegram" for bot commands, and the user agent). No foreign key on user_id: a
-- row must outlive anything it names, and nothing may cascade into this table.
CREATE TABLE audit_log (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT,
    at BIGINT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL,
    address TEXT,
    user_agent TEXT
);
CREATE INDEX audit_log_user_id_id ON audit_log(user_id, id);
CREATE INDEX audit_log_at ON audit_log(at);

-- Append-only by construction: no row is ever updated, and none younger than 365 days is
-- deleted (the retention; older ones are pruned by the server). TRUNCATE, which skips row
-- triggers, is refused as a whole.
CREATE FUNCTION audit_log_guard() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'audit_log rows are never updated';
    END IF;
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'audit_log rows are kept 365 days';
    END IF;
    IF OLD.at > (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT - 31536000000 THEN
        RAISE EXCEPTION 'audit_log rows are kept 365 days';
    END IF;
    RETURN OLD;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_log_guard BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_guard();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_guard();
