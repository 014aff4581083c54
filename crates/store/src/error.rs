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
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("could not prepare the database file: {0}")]
    Io(#[from] std::io::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::Conflict(db.message().to_string())
            }
            _ => StoreError::Database(err),
        }
    }
}
