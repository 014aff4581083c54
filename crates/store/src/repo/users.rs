use serde::Serialize;
use sqlx::Row;

use crate::{Store, StoreError};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct User {
    pub id: i64,
    pub username: String,
    #[serde(skip)]
    pub password_hash: String,
    pub created_at: i64,
}

fn user_from_row(row: &sqlx::any::AnyRow) -> Result<User, sqlx::Error> {
    Ok(User {
        id: row.try_get("id")?,
        username: row.try_get("username")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
    })
}

impl Store {
    /// Creates a user; a taken username is [`StoreError::Conflict`].
    pub async fn create_user(
        &self,
        username: &str,
        password_hash: &str,
        now_ms: i64,
    ) -> Result<User, StoreError> {
        let row = sqlx::query(
            "INSERT INTO users (username, password_hash, created_at) VALUES ($1, $2, $3)
             RETURNING id, username, password_hash, created_at",
        )
        .bind(username)
        .bind(password_hash)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(user_from_row(&row)?)
    }

    pub async fn user_by_username(&self, username: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(
            "SELECT id, username, password_hash, created_at FROM users WHERE username = $1",
        )
        .bind(username)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(user_from_row).transpose()?)
    }

    /// Every user, by id.
    pub async fn all_users(&self) -> Result<Vec<User>, StoreError> {
        let rows =
            sqlx::query("SELECT id, username, password_hash, created_at FROM users ORDER BY id")
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| user_from_row(r).map_err(StoreError::from))
            .collect()
    }

    pub async fn user_by_id(&self, id: i64) -> Result<Option<User>, StoreError> {
        let row =
            sqlx::query("SELECT id, username, password_hash, created_at FROM users WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.as_ref().map(user_from_row).transpose()?)
    }

    /// Every user's id, in creation order.
    pub async fn user_ids(&self) -> Result<Vec<i64>, StoreError> {
        let rows = sqlx::query("SELECT id FROM users ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|r| r.try_get("id"))
            .collect::<Result<_, _>>()?)
    }

    pub async fn user_count(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM users")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("n")?)
    }

    /// Replaces a user's password hash and ends every session of that user.
    pub async fn set_password(
        &self,
        username: &str,
        password_hash: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let row =
            sqlx::query("UPDATE users SET password_hash = $1 WHERE username = $2 RETURNING id")
                .bind(password_hash)
                .bind(username)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(row) = row else {
            // Roll back now: a rollback left to the pool runs only when the runtime gets to it.
            tx.rollback().await?;
            return Err(StoreError::NotFound);
        };
        let id: i64 = row.try_get("id")?;
        sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Replaces a user's password hash and ends every session of that user but `keep` (the
    /// one that asked for the change); returns how many sessions ended.
    pub async fn change_password(
        &self,
        user_id: i64,
        password_hash: &str,
        keep: i64,
    ) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            tx.rollback().await?;
            return Err(StoreError::NotFound);
        }
        let ended = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id <> $2")
            .bind(user_id)
            .bind(keep)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ended.rows_affected())
    }
}
