//! The store's error type, and which database failures mean "the database is unreachable"
//! (degraded mode, docs/reliability.md) rather than a fault of the query or the data.

use thiserror::Error;

/// What can go wrong in the store, in terms the layers above can act on.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken (for example a username that is taken).
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("invalid database url: {0}")]
    InvalidUrl(String),
    /// The database cannot be reached or cannot take writes right now (connection refused or
    /// lost, pool timeout, I/O error, disk full, read-only): nothing is wrong with the request,
    /// and the same call will work once the database is back.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("could not prepare the database file: {0}")]
    Io(#[from] std::io::Error),
    /// Data given to be stored that the store cannot hold as it is (a candle that does not
    /// open on a whole minute): nothing was written.
    #[error("invalid data: {0}")]
    Invalid(String),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// A write of a bot worker whose lease ended (another instance may run the bot now):
    /// nothing was written.
    #[error("the lease on the user's bot ended: nothing is written under it")]
    LeaseEnded,
}

impl StoreError {
    /// Whether the failure is the database being unreachable (degraded mode) rather than a
    /// problem with the request or the data.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Configuration(e) if e.is::<crate::pool::LeaseEnded>() => {
                StoreError::LeaseEnded
            }
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::Conflict(db.message().to_string())
            }
            _ if outage(&err).is_some() => StoreError::Unavailable(err),
            _ => StoreError::Database(err),
        }
    }
}

/// The two ways the database can be out of service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outage {
    /// No connection: refused, lost, timed out, the server shutting down.
    Connection,
    /// Connected, but writes fail: disk full, read-only file or server.
    Storage,
}

/// Which outage, if any, `err` reports. Constraint violations, bad SQL, decoding problems
/// and every other error about the query itself are `None`.
pub(crate) fn outage(err: &sqlx::Error) -> Option<Outage> {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Some(Outage::Connection),
        sqlx::Error::Database(db) => db.code().and_then(|code| database_outage(&code)),
        _ => None,
    }
}

/// SQLite answers numeric (extended) result codes, PostgreSQL five-character SQLSTATEs.
fn database_outage(code: &str) -> Option<Outage> {
    match code.parse::<i32>() {
        Ok(sqlite_code) => sqlite_outage(sqlite_code),
        Err(_) => postgres_outage(code),
    }
}

/// <https://www.sqlite.org/rescode.html>: the primary code is the low byte.
fn sqlite_outage(code: i32) -> Option<Outage> {
    const SQLITE_NOMEM: i32 = 7;
    const SQLITE_READONLY: i32 = 8;
    const SQLITE_IOERR: i32 = 10;
    const SQLITE_FULL: i32 = 13;
    const SQLITE_CANTOPEN: i32 = 14;
    match code & 0xff {
        SQLITE_IOERR | SQLITE_CANTOPEN | SQLITE_NOMEM => Some(Outage::Connection),
        SQLITE_FULL | SQLITE_READONLY => Some(Outage::Storage),
        _ => None,
    }
}

/// <https://www.postgresql.org/docs/current/errcodes-appendix.html>
fn postgres_outage(sqlstate: &str) -> Option<Outage> {
    match sqlstate {
        // disk_full; read_only_sql_transaction (a standby, or the server set read-only).
        "53100" | "25006" => Some(Outage::Storage),
        // admin_shutdown, crash_shutdown, cannot_connect_now; io_error.
        "57P01" | "57P02" | "57P03" | "58030" => Some(Outage::Connection),
        // connection_exception; insufficient_resources (out of memory, too many connections).
        s if s.starts_with("08") || s.starts_with("53") => Some(Outage::Connection),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_codes() {
        assert_eq!(sqlite_outage(13), Some(Outage::Storage)); // SQLITE_FULL
        assert_eq!(sqlite_outage(8 | (1 << 8)), Some(Outage::Storage)); // READONLY_RECOVERY
        assert_eq!(sqlite_outage(10 | (13 << 8)), Some(Outage::Connection)); // IOERR_FSYNC
        assert_eq!(sqlite_outage(14), Some(Outage::Connection)); // CANTOPEN
        assert_eq!(sqlite_outage(2067), None); // CONSTRAINT_UNIQUE
        assert_eq!(sqlite_outage(787), None); // CONSTRAINT_FOREIGNKEY
        assert_eq!(sqlite_outage(1), None); // SQLITE_ERROR: bad SQL
        assert_eq!(sqlite_outage(5), None); // BUSY: contention, not an outage
    }

    #[test]
    fn postgres_codes() {
        for code in [
            "08000", "08006", "08001", "57P01", "57P02", "57P03", "53300", "53200",
        ] {
            assert_eq!(postgres_outage(code), Some(Outage::Connection), "{code}");
        }
        assert_eq!(postgres_outage("53100"), Some(Outage::Storage));
        assert_eq!(postgres_outage("25006"), Some(Outage::Storage));
        for code in [
            "23505", "23503", "42601", "42P01", "22P02", "40001", "57014",
        ] {
            assert_eq!(postgres_outage(code), None, "{code}");
        }
    }

    #[test]
    fn connection_level_errors_are_outages_and_query_errors_are_not() {
        assert!(StoreError::from(sqlx::Error::PoolTimedOut).is_unavailable());
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(StoreError::from(sqlx::Error::Io(refused)).is_unavailable());
        assert!(matches!(
            StoreError::from(sqlx::Error::RowNotFound),
            StoreError::NotFound
        ));
        assert!(!StoreError::from(sqlx::Error::ColumnNotFound("x".into())).is_unavailable());
        assert!(!StoreError::from(sqlx::Error::Protocol("odd".into())).is_unavailable());
    }
}
