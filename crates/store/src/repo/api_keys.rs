use std::collections::BTreeMap;

use signaldesk_core::account::{AccountVenue, Exchange};
use signaldesk_core::key_permissions::KeyPermissions;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::crypto::SecretCipher;
use crate::{Store, StoreError};

/// An exchange key as lists show it: never the key or the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: i64,
    pub user_id: i64,
    pub exchange: Exchange,
    pub is_demo: bool,
    pub is_active: bool,
    pub created_at: i64,
    /// What the exchange reported of the key at its last check, and when (Unix ms); `None`
    /// for a key never checked and for paper keys.
    pub permissions: Option<KeyPermissions>,
    pub permissions_checked_at: Option<i64>,
}

/// A decrypted key pair, for the venue only. Its Debug output hides both values.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub key_id: i64,
    pub api_key: String,
    pub api_secret: String,
    pub exchange: Exchange,
    pub is_demo: bool,
}

impl ApiKeyRecord {
    /// Where this key's account trades.
    pub fn venue(&self) -> AccountVenue {
        AccountVenue::of_key(self.exchange, self.is_demo)
    }
}

impl ApiCredentials {
    pub fn venue(&self) -> AccountVenue {
        AccountVenue::of_key(self.exchange, self.is_demo)
    }
}

/// A key from before keys named their exchange, placed by [`Store::place_undecided_keys`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedKey {
    pub key_id: i64,
    pub user_id: i64,
    pub username: String,
    pub placement: Placement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The user's books were kept on the paper exchange only.
    Paper,
    /// The user's books hold Bybit executions only.
    Bybit,
    /// The books cannot tell (no trades, or trades on both): made an inactive Bybit key, so
    /// nothing trades on it until the user chooses.
    Undecided,
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("key_id", &self.key_id)
            .field("exchange", &self.exchange)
            .field("is_demo", &self.is_demo)
            .finish_non_exhaustive()
    }
}

const COLUMNS: &str = "id, user_id, exchange, is_demo, is_active, created_at, permissions_json, permissions_checked_at";

fn exchange(row: &AnyRow) -> Result<Exchange, StoreError> {
    let text: Option<String> = row.try_get("exchange")?;
    let text = text.ok_or_else(|| {
        StoreError::Corrupt("an API key from before keys named their exchange is not placed".into())
    })?;
    Exchange::parse(&text).ok_or_else(|| StoreError::Corrupt(format!("key exchange {text}")))
}

fn record_from_row(row: &AnyRow) -> Result<ApiKeyRecord, StoreError> {
    Ok(ApiKeyRecord {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        exchange: exchange(row)?,
        is_demo: row.try_get::<i64, _>("is_demo")? != 0,
        is_active: row.try_get::<i64, _>("is_active")? != 0,
        created_at: row.try_get("created_at")?,
        permissions: permissions(row)?,
        permissions_checked_at: row.try_get("permissions_checked_at")?,
    })
}

fn permissions(row: &AnyRow) -> Result<Option<KeyPermissions>, StoreError> {
    let json: Option<String> = row.try_get("permissions_json")?;
    json.map(|text| {
        serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt(format!("key permissions {text}: {e}")))
    })
    .transpose()
}

/// Associated data binding a ciphertext to its owner and field.
pub(crate) fn context(user_id: i64, field: &str) -> String {
    format!("api_key:{user_id}:{field}")
}

impl Store {
    pub async fn create_api_key(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        (api_key, api_secret): (&str, &str),
        exchange: Exchange,
        is_demo: bool,
        now_ms: i64,
    ) -> Result<ApiKeyRecord, StoreError> {
        let sql = format!(
            "INSERT INTO api_keys (user_id, key_enc, secret_enc, exchange, is_demo, is_active, created_at)
             VALUES ($1, $2, $3, $4, $5, 0, $6) RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(cipher.encrypt(api_key, &context(user_id, "key"))?)
            .bind(cipher.encrypt(api_secret, &context(user_id, "secret"))?)
            .bind(exchange.as_str())
            .bind(i64::from(is_demo))
            .bind(now_ms)
            .fetch_one(&self.pool)
            .await?;
        record_from_row(&row)
    }

    /// The user's keys, newest first.
    pub async fn api_keys_of_user(&self, user_id: i64) -> Result<Vec<ApiKeyRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY id DESC");
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(record_from_row).collect()
    }

    pub async fn api_key(&self, user_id: i64, id: i64) -> Result<Option<ApiKeyRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2");
        let row = sqlx::query(&sql)
            .bind(id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    pub async fn delete_api_key(&self, user_id: i64, id: i64) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM api_keys WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Keeps what the exchange reported of key `id` at a check made at `now_ms`.
    pub async fn record_key_permissions(
        &self,
        user_id: i64,
        id: i64,
        permissions: &KeyPermissions,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(permissions)
            .map_err(|e| StoreError::Corrupt(format!("key permissions: {e}")))?;
        sqlx::query(
            "UPDATE api_keys SET permissions_json = $1, permissions_checked_at = $2
             WHERE id = $3 AND user_id = $4",
        )
        .bind(json)
        .bind(now_ms)
        .bind(id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Makes `id` the user's only active key, in one transaction.
    pub async fn set_active_api_key(
        &self,
        user_id: i64,
        id: i64,
    ) -> Result<ApiKeyRecord, StoreError> {
        // One statement: a transaction that read and then wrote could be refused outright by
        // SQLite (SQLITE_BUSY_SNAPSHOT, a 500) when another connection wrote in between.
        let done = sqlx::query(
            "UPDATE api_keys SET is_active = CASE WHEN id = $1 THEN 1 ELSE 0 END
             WHERE user_id = $2
                 AND EXISTS (SELECT 1 FROM api_keys WHERE id = $1 AND user_id = $2)",
        )
        .bind(id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        self.api_key(user_id, id).await?.ok_or(StoreError::NotFound)
    }

    /// Makes `id` inactive: the user has no active key, and trades on their paper account.
    pub async fn deactivate_api_key(
        &self,
        user_id: i64,
        id: i64,
    ) -> Result<ApiKeyRecord, StoreError> {
        let done = sqlx::query("UPDATE api_keys SET is_active = 0 WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        self.api_key(user_id, id).await?.ok_or(StoreError::NotFound)
    }

    /// Where the user's bot trades now: their active key's venue, or paper without one.
    pub async fn account_venue(&self, user_id: i64) -> Result<AccountVenue, StoreError> {
        Ok(self
            .active_api_key(user_id)
            .await?
            .map_or(AccountVenue::Paper, |key| key.venue()))
    }

    /// Places every key from before keys named their exchange, by what the books say of its
    /// user (docs/accounts.md, "Upgrading"): executions on the paper exchange only (closes
    /// with ids `paper-…`, or a stored paper account) make paper keys, Bybit executions only
    /// (closes with Bybit's order ids; an opening's id, `open:…`, is the same on both) make
    /// Bybit keys, and otherwise the key becomes an inactive Bybit key and the user's bot is
    /// stopped, so nothing trades where its owner did not choose. The user's trades and
    /// balance snapshots without a venue go to the account their keys were placed on, when
    /// that is one account (paper, or Bybit keys all demo or all real); otherwise they stay on
    /// no account (docs/accounts.md, "Statistics follow the account"). Answers what it
    /// placed; nothing once every key is placed.
    pub async fn place_undecided_keys(&self) -> Result<Vec<PlacedKey>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(
            "SELECT k.id, k.user_id, k.is_demo, u.username,
                 (SELECT COUNT(*) FROM paper_accounts p WHERE p.user_id = k.user_id)
                 + (SELECT COUNT(*) FROM fills f WHERE f.user_id = k.user_id
                        AND f.venue_id LIKE 'paper-%') AS paper_marks,
                 (SELECT COUNT(*) FROM fills f WHERE f.user_id = k.user_id
                        AND f.venue_id NOT LIKE 'paper-%'
                        AND f.venue_id NOT LIKE 'open:%') AS bybit_marks
             FROM api_keys k JOIN users u ON u.id = k.user_id
             WHERE k.exchange IS NULL ORDER BY k.id",
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut placed = Vec::with_capacity(rows.len());
        // Each user's accounts their keys were placed on; None once it is not one account.
        let mut accounts: BTreeMap<i64, Option<AccountVenue>> = BTreeMap::new();
        for row in &rows {
            let paper: i64 = row.try_get("paper_marks")?;
            let bybit: i64 = row.try_get("bybit_marks")?;
            let placement = match (paper > 0, bybit > 0) {
                (true, false) => Placement::Paper,
                (false, true) => Placement::Bybit,
                _ => Placement::Undecided,
            };
            let key = PlacedKey {
                key_id: row.try_get("id")?,
                user_id: row.try_get("user_id")?,
                username: row.try_get("username")?,
                placement,
            };
            let exchange = match placement {
                Placement::Paper => Exchange::Paper,
                Placement::Bybit | Placement::Undecided => Exchange::Bybit,
            };
            let is_demo = row.try_get::<i64, _>("is_demo")? != 0;
            let account = (placement != Placement::Undecided)
                .then(|| AccountVenue::of_key(exchange, is_demo));
            accounts
                .entry(key.user_id)
                .and_modify(|known| {
                    if *known != account {
                        *known = None;
                    }
                })
                .or_insert(account);
            sqlx::query("UPDATE api_keys SET exchange = $1 WHERE id = $2")
                .bind(exchange.as_str())
                .bind(key.key_id)
                .execute(&mut *tx)
                .await?;
            if placement == Placement::Undecided {
                let was_active = sqlx::query(
                    "UPDATE api_keys SET is_active = 0 WHERE id = $1 AND is_active <> 0",
                )
                .bind(key.key_id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                    > 0;
                if was_active {
                    sqlx::query("UPDATE bot_settings SET is_bot_running = 0 WHERE user_id = $1")
                        .bind(key.user_id)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            placed.push(key);
        }
        for (user_id, account) in accounts {
            let Some(account) = account else { continue };
            for table in ["trades", "balance_snapshots"] {
                sqlx::query(&format!(
                    "UPDATE {table} SET venue = $1 WHERE user_id = $2 AND venue IS NULL"
                ))
                .bind(account.as_str())
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(placed)
    }

    pub async fn active_api_key(&self, user_id: i64) -> Result<Option<ApiKeyRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE user_id = $1 AND is_active <> 0");
        let row = sqlx::query(&sql)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    /// The decrypted active key pair, for the venue.
    pub async fn active_credentials(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
    ) -> Result<Option<ApiCredentials>, StoreError> {
        self.credentials(cipher, user_id, None).await
    }

    /// The decrypted pair of key `id` (active or not), to check it before Set Active.
    pub async fn api_key_credentials(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        id: i64,
    ) -> Result<Option<ApiCredentials>, StoreError> {
        self.credentials(cipher, user_id, Some(id)).await
    }

    /// Key `id`, or the active key without one.
    async fn credentials(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        id: Option<i64>,
    ) -> Result<Option<ApiCredentials>, StoreError> {
        let sql = match id {
            None => "SELECT id, key_enc, secret_enc, exchange, is_demo FROM api_keys WHERE user_id = $1 AND is_active <> 0",
            Some(_) => "SELECT id, key_enc, secret_enc, exchange, is_demo FROM api_keys WHERE user_id = $1 AND id = $2",
        };
        let mut query = sqlx::query(sql).bind(user_id);
        if let Some(id) = id {
            query = query.bind(id);
        }
        let row = query.fetch_optional(&self.pool).await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(ApiCredentials {
            key_id: row.try_get("id")?,
            api_key: cipher.decrypt(
                &row.try_get::<String, _>("key_enc")?,
                &context(user_id, "key"),
            )?,
            api_secret: cipher.decrypt(
                &row.try_get::<String, _>("secret_enc")?,
                &context(user_id, "secret"),
            )?,
            exchange: exchange(&row)?,
            is_demo: row.try_get::<i64, _>("is_demo")? != 0,
        }))
    }
}
