use sqlx::Row;

use crate::repo::users::User;
use crate::{Store, StoreError};

/// A login: its API token and, for browser logins, its session cookie (both hashed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub id: i64,
    pub user_id: i64,
    pub created_at: i64,
    pub last_used_at: i64,
}

/// Which credential a request presented.
#[derive(Debug, Clone, Copy)]
pub enum Credential<'a> {
    TokenHash(&'a str),
    CookieHash(&'a str),
}

/// Where a login came from, kept with its session for the sessions list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionOrigin {
    pub client_address: Option<String>,
    pub user_agent: Option<String>,
}

/// A session as the user's sessions list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: i64,
    pub created_at: i64,
    pub last_used_at: i64,
    pub origin: SessionOrigin,
    /// Made by a browser login (it has a session cookie), not only a token.
    pub browser: bool,
}

impl Store {
    pub async fn create_session(
        &self,
        user_id: i64,
        token_hash: &str,
        cookie_hash: Option<&str>,
        now_ms: i64,
    ) -> Result<Session, StoreError> {
        self.create_session_from(
            user_id,
            token_hash,
            cookie_hash,
            now_ms,
            &SessionOrigin::default(),
        )
        .await
    }

    /// [`Store::create_session`], remembering where the login came from.
    pub async fn create_session_from(
        &self,
        user_id: i64,
        token_hash: &str,
        cookie_hash: Option<&str>,
        now_ms: i64,
        origin: &SessionOrigin,
    ) -> Result<Session, StoreError> {
        let row = sqlx::query(
            "INSERT INTO sessions (user_id, token_hash, cookie_hash, created_at, last_used_at,
                                   client_address, user_agent)
             VALUES ($1, $2, $3, $4, $4, $5, $6) RETURNING id",
        )
        .bind(user_id)
        .bind(token_hash)
        .bind(cookie_hash)
        .bind(now_ms)
        .bind(origin.client_address.as_deref())
        .bind(origin.user_agent.as_deref())
        .fetch_one(&self.pool)
        .await?;
        Ok(Session {
            id: row.try_get("id")?,
            user_id,
            created_at: now_ms,
            last_used_at: now_ms,
        })
    }

    /// The session and user a credential belongs to, if the session exists.
    pub async fn session_by_credential(
        &self,
        credential: Credential<'_>,
    ) -> Result<Option<(Session, User)>, StoreError> {
        let (column, hash) = match credential {
            Credential::TokenHash(h) => ("token_hash", h),
            Credential::CookieHash(h) => ("cookie_hash", h),
        };
        let sql = format!(
            "SELECT s.id, s.user_id, s.created_at, s.last_used_at,
                    u.username, u.password_hash, u.created_at AS user_created_at
             FROM sessions s JOIN users u ON u.id = s.user_id
             WHERE s.{column} = $1"
        );
        let Some(row) = sqlx::query(&sql)
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let session = Session {
            id: row.try_get("id")?,
            user_id: row.try_get("user_id")?,
            created_at: row.try_get("created_at")?,
            last_used_at: row.try_get("last_used_at")?,
        };
        let user = User {
            id: session.user_id,
            username: row.try_get("username")?,
            password_hash: row.try_get("password_hash")?,
            created_at: row.try_get("user_created_at")?,
        };
        Ok(Some((session, user)))
    }

    pub async fn touch_session(&self, session_id: i64, now_ms: i64) -> Result<(), StoreError> {
        sqlx::query("UPDATE sessions SET last_used_at = $1 WHERE id = $2")
            .bind(now_ms)
            .bind(session_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn delete_session(&self, session_id: i64) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE id = $1")
            .bind(session_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The user's sessions, the most recently used first.
    pub async fn sessions_of_user(&self, user_id: i64) -> Result<Vec<SessionInfo>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, created_at, last_used_at, client_address, user_agent, cookie_hash
             FROM sessions WHERE user_id = $1 ORDER BY last_used_at DESC, id DESC",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(SessionInfo {
                    id: row.try_get("id")?,
                    created_at: row.try_get("created_at")?,
                    last_used_at: row.try_get("last_used_at")?,
                    origin: SessionOrigin {
                        client_address: row.try_get("client_address")?,
                        user_agent: row.try_get("user_agent")?,
                    },
                    browser: row.try_get::<Option<String>, _>("cookie_hash")?.is_some(),
                })
            })
            .collect()
    }

    /// Ends one of the user's sessions; [`StoreError::NotFound`] when the user has no such
    /// session (another user's included).
    pub async fn delete_session_of_user(
        &self,
        user_id: i64,
        session_id: i64,
    ) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE id = $1 AND user_id = $2")
            .bind(session_id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Ends every session of the user but `keep`; returns how many ended.
    pub async fn delete_other_sessions(&self, user_id: i64, keep: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id <> $2")
            .bind(user_id)
            .bind(keep)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// Removes sessions unused since `cutoff_ms`; returns how many went.
    pub async fn delete_sessions_unused_since(&self, cutoff_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE last_used_at < $1")
            .bind(cutoff_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
