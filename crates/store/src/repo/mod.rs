//! Repositories: one module per table family, each adding methods to [`crate::Store`].

pub mod sessions;
pub mod users;
