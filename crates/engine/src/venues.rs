//! Where each user's orders go: the venue the server was started with, one account per user.

use std::sync::Arc;

use signaldesk_venue::paper::PaperExchange;
use signaldesk_venue::Venue;

use crate::supervisor::VenueName;

#[derive(Clone)]
pub enum Venues {
    /// The built-in paper exchange: every user has a paper wallet of their own.
    Paper(Arc<PaperExchange>),
}

impl Venues {
    pub fn name(&self) -> VenueName {
        match self {
            Venues::Paper(_) => VenueName::Paper,
        }
    }

    /// The user's account.
    pub fn account(&self, user_id: i64) -> Arc<dyn Venue> {
        match self {
            Venues::Paper(exchange) => Arc::new(exchange.account(user_id)),
        }
    }
}
