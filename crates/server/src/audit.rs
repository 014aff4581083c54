//! `signaldesk audit`: opens the configured database and venue, compares every user's (or
//! one user's) account with the books (`signaldesk_engine::audit`) and prints each
//! difference. Paper accounts are read from their stored snapshots, so a paper audit is
//! exact on a stopped server; Bybit accounts are read live with each user's active key.

use std::sync::Arc;

use anyhow::{bail, Context};
use signaldesk_engine::audit::{differences, VenueAccount};
use signaldesk_engine::{BybitAccounts, Venues};
use signaldesk_store::{SecretCipher, Store, User};
use signaldesk_venue::paper::AccountSnapshot;

use crate::config::{Config, VenueKind};

/// Audits and prints; answers whether the books equal the venue.
pub async fn run(config: &Config, username: Option<&str>) -> anyhow::Result<bool> {
    let store = Store::connect(&config.database_url)
        .await
        .context("cannot open the database")?;
    let users = match username {
        Some(name) => match store.user_by_username(name.trim()).await? {
            Some(user) => vec![user],
            None => bail!("no user \"{name}\""),
        },
        None => store.all_users().await?,
    };
    let accounts = Accounts::open(config, &store).await?;
    let mut total = 0;
    for user in &users {
        let account = accounts.of(user).await?;
        let found = differences(&store, user.id, &account).await?;
        for difference in &found {
            println!("{}: {difference}", user.username);
        }
        total += found.len();
    }
    store.close().await;
    if total == 0 {
        println!("no differences ({} user(s) audited)", users.len());
    } else {
        println!("{total} difference(s)");
    }
    Ok(total == 0)
}

enum Accounts {
    Paper {
        snapshots: Vec<(i64, AccountSnapshot)>,
        starting_balance: rust_decimal::Decimal,
    },
    Bybit(Venues),
}

impl Accounts {
    async fn open(config: &Config, store: &Store) -> anyhow::Result<Accounts> {
        Ok(match config.venue {
            VenueKind::Paper => {
                let mut snapshots = Vec::new();
                for (user_id, json) in store.paper_accounts().await? {
                    let snapshot: AccountSnapshot =
                        serde_json::from_str(&json).with_context(|| {
                            format!("the stored paper account of user {user_id} is unreadable")
                        })?;
                    snapshots.push((user_id, snapshot));
                }
                Accounts::Paper {
                    snapshots,
                    starting_balance: config.paper.starting_balance,
                }
            }
            VenueKind::Bybit => {
                let master_key = std::env::var("SIGNALDESK_MASTER_KEY").ok();
                let cipher = SecretCipher::load(master_key.as_deref(), &config.data_dir)
                    .context("cannot load the master key")?;
                Accounts::Bybit(Venues::Bybit(BybitAccounts::new(
                    store.clone(),
                    Arc::new(cipher),
                    config.bybit.clone(),
                )))
            }
        })
    }

    async fn of(&self, user: &User) -> anyhow::Result<VenueAccount> {
        match self {
            Accounts::Paper {
                snapshots,
                starting_balance,
            } => {
                let fresh = AccountSnapshot::new(*starting_balance, 0);
                let snapshot = snapshots
                    .iter()
                    .find(|(id, _)| *id == user.id)
                    .map_or(&fresh, |(_, s)| s);
                Ok(VenueAccount::paper(snapshot, *starting_balance))
            }
            Accounts::Bybit(venues) => {
                let venue = venues.account(user.id);
                VenueAccount::live(venue)
                    .await
                    .with_context(|| format!("cannot read {}'s Bybit account", user.username))
            }
        }
    }
}
