//! Why an exchange key may not trade, as [`ExchangeRegistry::check_key`](crate::registry::ExchangeRegistry::check_key)
//! answers it: the exchange's own refusal, or Signal Desk's rule that a key able to move funds
//! out of the account is not used (docs/security.md, "Keys that cannot withdraw"). Either way
//! it carries what the exchange reported of the key when the check got that far, so the key
//! list shows it.

use signaldesk_core::key_permissions::{describe, KeyPermissions, Permission};

use crate::VenueError;

/// A refused key, with its permissions as reported (`None` when the exchange was not reached
/// or did not describe the key).
#[derive(Debug)]
pub struct KeyRefused {
    pub reason: KeyRefusal,
    pub reported: Option<KeyPermissions>,
}

#[derive(Debug)]
pub enum KeyRefusal {
    /// The exchange refused the key or could not be asked, or the key cannot trade here
    /// (read-only, no contract permissions, hedge mode).
    Exchange(VenueError),
    /// The key can withdraw or transfer funds: these permissions must be removed first.
    MovesFunds(Vec<Permission>),
}

impl From<VenueError> for KeyRefused {
    fn from(e: VenueError) -> Self {
        KeyRefused {
            reason: KeyRefusal::Exchange(e),
            reported: None,
        }
    }
}

impl std::fmt::Display for KeyRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyRefusal::Exchange(e) => e.fmt(f),
            KeyRefusal::MovesFunds(permissions) => write!(
                f,
                "the key can withdraw or transfer funds ({})",
                describe(permissions)
            ),
        }
    }
}

impl std::fmt::Display for KeyRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reason.fmt(f)
    }
}

impl std::error::Error for KeyRefused {}
