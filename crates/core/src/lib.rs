//! Signal Desk's pure domain: trading settings and their validation, market value types
//! (sides, instruments and their rounding), trading rules and statistics. No I/O lives here,
//! so every rule can be tested with plain values.

pub mod account;
pub mod alert;
pub mod client_message;
pub mod key_permissions;
pub mod market;
pub mod martingale;
pub mod running_stats;
pub mod settings;
pub mod signal;
pub mod stats;
pub mod trading;
pub mod validation;
