//! Where a user's account is: which exchange, and on Bybit which environment. A user's
//! active API key decides it (an `"exchange": "paper"` key, or none, is the paper account),
//! and everything the bot does for that user (orders, the prices that size, rate, stop and
//! chart them, the statistics) comes from that one account's market.
//!
//! The kinds are one enum so that no value can name a paper "demo" or a Bybit "paper":
//! `{"exchange", "environment"}` is only how the API spells it.

use serde::{Deserialize, Serialize};

/// The exchange an API key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Exchange {
    /// The built-in paper exchange (any non-empty key and secret).
    Paper,
    /// Bybit V5: demo trading or mainnet, by the key's `is_demo`.
    Bybit,
}

impl Exchange {
    pub fn as_str(self) -> &'static str {
        match self {
            Exchange::Paper => "paper",
            Exchange::Bybit => "bybit",
        }
    }

    pub fn parse(text: &str) -> Option<Exchange> {
        match text {
            "paper" => Some(Exchange::Paper),
            "bybit" => Some(Exchange::Bybit),
            _ => None,
        }
    }

    /// Its name as a trader reads it.
    pub fn label(self) -> &'static str {
        match self {
            Exchange::Paper => "The paper exchange",
            Exchange::Bybit => "Bybit",
        }
    }
}

/// The environment of an account: paper, or an exchange's demo or real-money one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Paper,
    Demo,
    Real,
}

/// Where an account trades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountVenue {
    Paper,
    Bybit { demo: bool },
}

/// The API's spelling of an [`AccountVenue`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = Venue)]
pub struct VenueView {
    pub exchange: Exchange,
    pub environment: Environment,
}

impl AccountVenue {
    /// The venue of a key of `exchange` with Bybit's `is_demo`.
    pub fn of_key(exchange: Exchange, is_demo: bool) -> AccountVenue {
        match exchange {
            Exchange::Paper => AccountVenue::Paper,
            Exchange::Bybit => AccountVenue::Bybit { demo: is_demo },
        }
    }

    pub fn exchange(self) -> Exchange {
        match self {
            AccountVenue::Paper => Exchange::Paper,
            AccountVenue::Bybit { .. } => Exchange::Bybit,
        }
    }

    pub fn environment(self) -> Environment {
        match self {
            AccountVenue::Paper => Environment::Paper,
            AccountVenue::Bybit { demo: true } => Environment::Demo,
            AccountVenue::Bybit { demo: false } => Environment::Real,
        }
    }

    /// How the books store it.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountVenue::Paper => "paper",
            AccountVenue::Bybit { demo: true } => "bybit-demo",
            AccountVenue::Bybit { demo: false } => "bybit-real",
        }
    }

    pub fn parse(text: &str) -> Option<AccountVenue> {
        match text {
            "paper" => Some(AccountVenue::Paper),
            "bybit-demo" => Some(AccountVenue::Bybit { demo: true }),
            "bybit-real" => Some(AccountVenue::Bybit { demo: false }),
            _ => None,
        }
    }

    /// What a trader reads: "Paper", "Bybit Demo", "Bybit Real".
    pub fn label(self) -> &'static str {
        match self {
            AccountVenue::Paper => "Paper",
            AccountVenue::Bybit { demo: true } => "Bybit Demo",
            AccountVenue::Bybit { demo: false } => "Bybit Real",
        }
    }

    pub fn view(self) -> VenueView {
        VenueView {
            exchange: self.exchange(),
            environment: self.environment(),
        }
    }
}

impl Serialize for AccountVenue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for AccountVenue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let view = VenueView::deserialize(deserializer)?;
        match (view.exchange, view.environment) {
            (Exchange::Paper, Environment::Paper) => Ok(AccountVenue::Paper),
            (Exchange::Bybit, Environment::Demo) => Ok(AccountVenue::Bybit { demo: true }),
            (Exchange::Bybit, Environment::Real) => Ok(AccountVenue::Bybit { demo: false }),
            (exchange, environment) => Err(serde::de::Error::custom(format!(
                "no {environment:?} environment on {}",
                exchange.as_str()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_venue_round_trips_through_its_stored_and_api_forms() {
        for venue in [
            AccountVenue::Paper,
            AccountVenue::Bybit { demo: true },
            AccountVenue::Bybit { demo: false },
        ] {
            assert_eq!(AccountVenue::parse(venue.as_str()), Some(venue));
            let json = serde_json::to_value(venue).unwrap();
            assert_eq!(serde_json::from_value::<AccountVenue>(json).unwrap(), venue);
        }
        assert_eq!(
            serde_json::to_value(AccountVenue::Bybit { demo: false }).unwrap(),
            serde_json::json!({"exchange": "bybit", "environment": "real"})
        );
    }

    #[test]
    fn mixed_spellings_are_refused() {
        let paper_demo = serde_json::json!({"exchange": "paper", "environment": "demo"});
        assert!(serde_json::from_value::<AccountVenue>(paper_demo).is_err());
        let bybit_paper = serde_json::json!({"exchange": "bybit", "environment": "paper"});
        assert!(serde_json::from_value::<AccountVenue>(bybit_paper).is_err());
        assert_eq!(AccountVenue::parse("paper-demo"), None);
    }

    #[test]
    fn a_key_places_its_account() {
        assert_eq!(
            AccountVenue::of_key(Exchange::Paper, false),
            AccountVenue::Paper
        );
        assert_eq!(
            AccountVenue::of_key(Exchange::Bybit, true),
            AccountVenue::Bybit { demo: true }
        );
    }
}
