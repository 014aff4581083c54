//! Requests for the instance that runs a user's bot, sent from another instance (migration
//! 0014): written by the sender, taken once by the owner, answered, then deleted by whoever
//! reads last. Times are the database's clock.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// How long a command row may stay before it is deleted unread (an answer nobody waits for
/// any more, a sender that died).
const KEEP_MS: i64 = 3_600_000;

/// A command taken by the owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotCommand {
    pub id: i64,
    pub user_id: i64,
    pub kind: String,
    pub body: String,
}

fn command(row: &AnyRow) -> Result<BotCommand, StoreError> {
    Ok(BotCommand {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        kind: row.try_get("kind")?,
        body: row.try_get("body")?,
    })
}

impl Store {
    /// Leaves a command for `owner` (a process holding the user's lease); its id.
    pub async fn send_command(
        &self,
        user_id: i64,
        owner: &str,
        kind: &str,
        body: &str,
    ) -> Result<i64, StoreError> {
        let now = self.clock_ms();
        let row = sqlx::query(&format!(
            "INSERT INTO bot_commands (user_id, owner, kind, body, created_at)
             VALUES ($1, $2, $3, $4, {now}) RETURNING id"
        ))
        .bind(user_id)
        .bind(owner)
        .bind(kind)
        .bind(body)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("id")?)
    }

    /// The commands left for `owner` and not taken yet, now taken (each is taken once).
    pub async fn take_commands(&self, owner: &str) -> Result<Vec<BotCommand>, StoreError> {
        let now = self.clock_ms();
        let rows = sqlx::query(&format!(
            "UPDATE bot_commands SET taken_at = {now}
             WHERE owner = $1 AND taken_at IS NULL
             RETURNING id, user_id, kind, body"
        ))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?;
        let mut taken = rows.iter().map(command).collect::<Result<Vec<_>, _>>()?;
        taken.sort_by_key(|c| c.id);
        Ok(taken)
    }

    pub async fn answer_command(&self, id: i64, answer: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE bot_commands SET answer = $2 WHERE id = $1")
            .bind(id)
            .bind(answer)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The answer to command `id`, once there is one.
    pub async fn command_answer(&self, id: i64) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT answer FROM bot_commands WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row
            .map(|r| r.try_get::<Option<String>, _>("answer"))
            .transpose()?
            .flatten())
    }

    /// Takes back command `id` if the owner has not taken it yet: true when it never will.
    pub async fn withdraw_command(&self, id: i64) -> Result<bool, StoreError> {
        let rows = sqlx::query("DELETE FROM bot_commands WHERE id = $1 AND taken_at IS NULL")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(rows.rows_affected() == 1)
    }

    /// Deletes command `id` (read, or needing no answer) and any left unread for an hour.
    pub async fn delete_command(&self, id: i64) -> Result<(), StoreError> {
        let now = self.clock_ms();
        sqlx::query(&format!(
            "DELETE FROM bot_commands WHERE id = $1 OR created_at < {now} - $2"
        ))
        .bind(id)
        .bind(KEEP_MS)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
