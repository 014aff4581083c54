//! Accounts and sessions (spec sections 6 and 7, DESIGN.md section 5): argon2id passwords,
//! hashed random tokens, the session cookie with its CSRF double-submit check, and login
//! rate limiting. Handlers take [`AuthUser`] so none can forget to authenticate.

pub mod cookies;
pub mod extractor;
pub mod handlers;
pub mod password;
pub mod secrets;

pub use extractor::AuthUser;
