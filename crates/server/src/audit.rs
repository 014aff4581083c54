//! `signaldesk audit`: opens the configured database, compares every user's (or one user's)
//! account, on the venue their active key chooses, with the books
//! (`signaldesk_engine::audit`) and prints each difference. Paper accounts are read from
//! their stored snapshots, so a paper audit is exact on a stopped server; Bybit accounts are
//! read live with each user's active key.

use std::sync::Arc;

use anyhow::{bail, Context};
use signaldesk_core::account::Exchange;
use signaldesk_engine::accounts::LazyMarket;
use signaldesk_engine::audit::{differences, VenueAccount};
use signaldesk_engine::ExchangeAccounts;
use signaldesk_store::{SecretCipher, Store, User};
use signaldesk_venue::paper::AccountSnapshot;

use crate::config::Config;

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
    crate::serve::place_undecided_keys(&store).await?;
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

/// Each user's account as the audit reads it: paper ones from their stored snapshots, Bybit
/// ones live on the user's active key.
struct Accounts {
    snapshots: Vec<(i64, AccountSnapshot)>,
    starting_balance: rust_decimal::Decimal,
    exchanges: Arc<ExchangeAccounts>,
    store: Store,
}

impl Accounts {
    async fn open(config: &Config, store: &Store) -> anyhow::Result<Accounts> {
        let mut snapshots = Vec::new();
        for (user_id, json) in store.paper_accounts().await? {
            let snapshot: AccountSnapshot = serde_json::from_str(&json).with_context(|| {
                format!("the stored paper account of user {user_id} is unreadable")
            })?;
            snapshots.push((user_id, snapshot));
        }
        let master_key = std::env::var("SIGNALDESK_MASTER_KEY").ok();
        let cipher = SecretCipher::load(master_key.as_deref(), &config.data_dir)
            .context("cannot load the master key")?;
        // The audit reads accounts, never a market: no exchange's is started here.
        let market = LazyMarket::lazy(config.market.clone(), Default::default());
        Ok(Accounts {
            snapshots,
            starting_balance: config.paper.starting_balance,
            exchanges: ExchangeAccounts::new(
                store.clone(),
                Arc::new(cipher),
                config.exchanges(),
                market,
            ),
            store: store.clone(),
        })
    }

    /// The user's account on their own venue.
    async fn of(&self, user: &User) -> anyhow::Result<VenueAccount> {
        match self.store.active_api_key(user.id).await? {
            Some(key) if key.exchange != Exchange::Paper => {
                let venue = self.exchanges.account(user.id, &key).await?;
                VenueAccount::live(venue).await.with_context(|| {
                    format!(
                        "cannot read {}'s {} account",
                        user.username,
                        key.exchange.as_str()
                    )
                })
            }
            _ => {
                let fresh = AccountSnapshot::new(self.starting_balance, 0);
                let snapshot = self
                    .snapshots
                    .iter()
                    .find(|(id, _)| *id == user.id)
                    .map_or(&fresh, |(_, s)| s);
                Ok(VenueAccount::paper(snapshot, self.starting_balance))
            }
        }
    }
}
