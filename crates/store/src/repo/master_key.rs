//! The master key check (migration 0011): instances sharing one PostgreSQL database must
//! share the master key too, or exchange keys saved through one do not decrypt on another.

use sqlx::Row;

use crate::crypto::SecretCipher;
use crate::{Store, StoreError};

/// What the check value seals, and its context.
const CHECK_TEXT: &str = "signaldesk master key check";
const CHECK_CONTEXT: &str = "master_key_check";

fn wrong_key(what: &str) -> StoreError {
    StoreError::Corrupt(format!(
        "this master key does not open {what}: every instance on this database must be given \
         the same master key (SIGNALDESK_MASTER_KEY, or the same master.key file)"
    ))
}

impl Store {
    /// Checks that `cipher` holds the master key this database's secrets are sealed with.
    /// The first call on a database seals a check value with it, after making sure it opens a
    /// stored exchange key if there is one (a database from before the check); every later
    /// call must open that value.
    pub async fn check_master_key(&self, cipher: &SecretCipher) -> Result<(), StoreError> {
        let stored = sqlx::query("SELECT sealed FROM master_key_check WHERE id = 1")
            .fetch_optional(&self.pool)
            .await?;
        if stored.is_none() {
            let key = sqlx::query("SELECT user_id, key_enc FROM api_keys ORDER BY id LIMIT 1")
                .fetch_optional(&self.pool)
                .await?;
            if let Some(key) = key {
                let user_id: i64 = key.try_get("user_id")?;
                let sealed: String = key.try_get("key_enc")?;
                cipher
                    .decrypt(&sealed, &crate::repo::api_keys::context(user_id, "key"))
                    .map_err(|_| wrong_key("the stored exchange keys"))?;
            }
            sqlx::query(
                "INSERT INTO master_key_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            )
            .bind(cipher.encrypt(CHECK_TEXT, CHECK_CONTEXT)?)
            .execute(&self.pool)
            .await?;
        }
        // Read back: another instance may have sealed it first.
        let sealed: String = sqlx::query("SELECT sealed FROM master_key_check WHERE id = 1")
            .fetch_one(&self.pool)
            .await?
            .try_get("sealed")?;
        match cipher.decrypt(&sealed, CHECK_CONTEXT) {
            Ok(text) if text == CHECK_TEXT => Ok(()),
            _ => Err(wrong_key("the database's master key check")),
        }
    }
}
