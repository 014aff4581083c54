//! Accounts and sessions (spec sections 6 and 7, DESIGN.md section 5): argon2id passwords,
//! hashed random tokens, the session cookie with its CSRF double-submit check, login rate
//! limiting, two-factor login (TOTP) and the sessions list. Handlers take [`AuthUser`] so
//! none can forget to authenticate.

pub mod cookies;
pub mod extractor;
pub mod handlers;
pub mod password;
pub mod secrets;
pub mod sessions;
pub mod totp;
pub mod two_factor;

pub use extractor::AuthUser;
