use sqlx::any::AnyRow;
use sqlx::Row;

use crate::crypto::SecretCipher;
use crate::{Store, StoreError};

/// An exchange key as lists show it: never the key or the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: i64,
    pub user_id: i64,
    pub is_demo: bool,
    pub is_active: bool,
    pub created_at: i64,
}

/// A decrypted key pair, for the venue only. Its Debug output hides both values.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiCredentials {
    pub key_id: i64,
    pub api_key: String,
    pub api_secret: String,
    pub is_demo: bool,
}

impl std::fmt::Debug for ApiCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiCredentials")
            .field("key_id", &self.key_id)
            .field("is_demo", &self.is_demo)
            .finish_non_exhaustive()
    }
}

const COLUMNS: &str = "id, user_id, is_demo, is_active, created_at";

fn record_from_row(row: &AnyRow) -> Result<ApiKeyRecord, StoreError> {
    Ok(ApiKeyRecord {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        is_demo: row.try_get::<i64, _>("is_demo")? != 0,
        is_active: row.try_get::<i64, _>("is_active")? != 0,
        created_at: row.try_get("created_at")?,
    })
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
        api_key: &str,
        api_secret: &str,
        is_demo: bool,
        now_ms: i64,
    ) -> Result<ApiKeyRecord, StoreError> {
        let sql = format!(
            "INSERT INTO api_keys (user_id, key_enc, secret_enc, is_demo, is_active, created_at)
             VALUES ($1, $2, $3, $4, 0, $5) RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(cipher.encrypt(api_key, &context(user_id, "key"))?)
            .bind(cipher.encrypt(api_secret, &context(user_id, "secret"))?)
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

    /// Makes `id` the user's only active key, in one transaction.
    pub async fn set_active_api_key(
        &self,
        user_id: i64,
        id: i64,
    ) -> Result<ApiKeyRecord, StoreError> {
        let mut tx = self.pool.begin().await?;
        let exists = sqlx::query("SELECT id FROM api_keys WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound);
        }
        sqlx::query("UPDATE api_keys SET is_active = CASE WHEN id = $1 THEN 1 ELSE 0 END WHERE user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.api_key(user_id, id).await?.ok_or(StoreError::NotFound)
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
            None => "SELECT id, key_enc, secret_enc, is_demo FROM api_keys WHERE user_id = $1 AND is_active <> 0",
            Some(_) => "SELECT id, key_enc, secret_enc, is_demo FROM api_keys WHERE user_id = $1 AND id = $2",
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
            is_demo: row.try_get::<i64, _>("is_demo")? != 0,
        }))
    }
}
