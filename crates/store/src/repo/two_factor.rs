//! Two-factor login (docs/security.md): each user's TOTP secret, encrypted at rest under the
//! master key and bound to its owner, the last time step whose code was accepted, and the
//! one-time recovery codes as digests.

use sqlx::Row;

use crate::crypto::SecretCipher;
use crate::{Store, StoreError};

/// A user's TOTP set-up, the secret decrypted. Its Debug output hides the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct TotpRecord {
    pub user_id: i64,
    /// Base32, as authenticator apps take it.
    pub secret: String,
    /// False while the set-up waits for its first code.
    pub enabled: bool,
    pub last_used_step: Option<i64>,
}

impl std::fmt::Debug for TotpRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TotpRecord")
            .field("user_id", &self.user_id)
            .field("enabled", &self.enabled)
            .field("last_used_step", &self.last_used_step)
            .finish_non_exhaustive()
    }
}

fn context(user_id: i64) -> String {
    format!("totp:{user_id}:secret")
}

impl Store {
    /// Starts (or restarts) a set-up with a new secret, off until [`Store::enable_totp`].
    /// A user whose 2FA is on is [`StoreError::Conflict`]: turning it off comes first.
    pub async fn begin_totp_setup(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
        secret: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let sealed = cipher.encrypt(secret, &context(user_id))?;
        let done = sqlx::query(
            "INSERT INTO user_totp (user_id, secret_enc, enabled, last_used_step, created_at)
             VALUES ($1, $2, 0, NULL, $3)
             ON CONFLICT (user_id) DO UPDATE
                SET secret_enc = excluded.secret_enc, last_used_step = NULL,
                    created_at = excluded.created_at
                WHERE user_totp.enabled = 0",
        )
        .bind(user_id)
        .bind(sealed)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::Conflict(
                "two-factor login is already on".into(),
            ));
        }
        Ok(())
    }

    /// The user's set-up, if they began one.
    pub async fn totp(
        &self,
        cipher: &SecretCipher,
        user_id: i64,
    ) -> Result<Option<TotpRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT secret_enc, enabled, last_used_step FROM user_totp WHERE user_id = $1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let sealed: String = row.try_get("secret_enc")?;
        Ok(Some(TotpRecord {
            user_id,
            secret: cipher.decrypt(&sealed, &context(user_id))?,
            enabled: row.try_get::<i64, _>("enabled")? != 0,
            last_used_step: row.try_get("last_used_step")?,
        }))
    }

    /// Whether the user's two-factor login is on.
    pub async fn totp_enabled(&self, user_id: i64) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT enabled FROM user_totp WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get::<i64, _>("enabled")? != 0,
            None => false,
        })
    }

    /// Spends time step `step`: true when it is later than every step accepted before (one
    /// statement, so two requests with the same code cannot both get it, on any instance).
    pub async fn use_totp_step(&self, user_id: i64, step: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE user_totp SET last_used_step = $1
             WHERE user_id = $2 AND (last_used_step IS NULL OR last_used_step < $1)",
        )
        .bind(step)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Turns the set-up on and replaces the user's recovery codes with these digests. False
    /// when there was no set-up waiting (none, or already on).
    pub async fn enable_totp(
        &self,
        user_id: i64,
        recovery_code_hashes: &[String],
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done =
            sqlx::query("UPDATE user_totp SET enabled = 1 WHERE user_id = $1 AND enabled = 0")
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query("DELETE FROM recovery_codes WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        for hash in recovery_code_hashes {
            sqlx::query("INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2)")
                .bind(user_id)
                .bind(hash)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Spends an unused recovery code of the user by its digest: true once, false after.
    pub async fn use_recovery_code(
        &self,
        user_id: i64,
        code_hash: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE recovery_codes SET used_at = $1
             WHERE id = (SELECT id FROM recovery_codes
                         WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL LIMIT 1)
               AND used_at IS NULL",
        )
        .bind(now_ms)
        .bind(user_id)
        .bind(code_hash)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// How many of the user's recovery codes are still unused.
    pub async fn recovery_codes_left(&self, user_id: i64) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("n")?)
    }

    /// Turns two-factor login off: forgets the secret and the recovery codes. True when the
    /// user had any set-up.
    pub async fn disable_totp(&self, user_id: i64) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("DELETE FROM user_totp WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM recovery_codes WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }

    /// `signaldesk user reset-2fa`: turns off the two-factor login of `username`. True when
    /// it was on; [`StoreError::NotFound`] without such a user.
    pub async fn reset_totp(&self, username: &str) -> Result<bool, StoreError> {
        let user = self
            .user_by_username(username)
            .await?
            .ok_or(StoreError::NotFound)?;
        let was_on = self.totp_enabled(user.id).await?;
        self.disable_totp(user.id).await?;
        Ok(was_on)
    }
}
