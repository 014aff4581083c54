use signaldesk_core::settings::BotSettings;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

/// A user's settings record with the bot's persisted run flags.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsRecord {
    pub id: i64,
    pub user_id: i64,
    pub settings: BotSettings,
    pub is_bot_running: bool,
    pub is_signals_fetching_active: bool,
    /// When the trading worker was last started (Unix ms), while it runs.
    pub bot_started_at: Option<i64>,
}

const COLUMNS: &str =
    "id, user_id, settings, is_bot_running, is_signals_fetching_active, bot_started_at";

fn record_from_row(row: &AnyRow) -> Result<SettingsRecord, StoreError> {
    let json: String = row.try_get("settings")?;
    let settings = serde_json::from_str(&json)
        .map_err(|e| StoreError::Corrupt(format!("settings record: {e}")))?;
    Ok(SettingsRecord {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        settings,
        is_bot_running: row.try_get::<i64, _>("is_bot_running")? != 0,
        is_signals_fetching_active: row.try_get::<i64, _>("is_signals_fetching_active")? != 0,
        bot_started_at: row.try_get("bot_started_at")?,
    })
}

fn to_json(settings: &BotSettings) -> Result<String, StoreError> {
    serde_json::to_string(settings).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Which run flags to change; `None` leaves a flag as it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFlags {
    pub bot_running: Option<bool>,
    pub signals_active: Option<bool>,
    /// Written with `bot_running`: the start time when it turns on, cleared when it turns off.
    pub started_at: Option<i64>,
}

impl Store {
    pub async fn settings_of_user(
        &self,
        user_id: i64,
    ) -> Result<Option<SettingsRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM bot_settings WHERE user_id = $1");
        let row = sqlx::query(&sql)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    /// The user's record, created with the spec's defaults the first time.
    pub async fn settings_or_default(
        &self,
        user_id: i64,
        now_ms: i64,
    ) -> Result<SettingsRecord, StoreError> {
        if let Some(record) = self.settings_of_user(user_id).await? {
            return Ok(record);
        }
        sqlx::query(
            "INSERT INTO bot_settings (user_id, settings, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_id) DO NOTHING",
        )
        .bind(user_id)
        .bind(to_json(&BotSettings::default())?)
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        self.settings_of_user(user_id)
            .await?
            .ok_or(StoreError::NotFound)
    }

    /// Creates the user's record; [`StoreError::Conflict`] when one exists.
    pub async fn create_settings(
        &self,
        user_id: i64,
        settings: &BotSettings,
        now_ms: i64,
    ) -> Result<SettingsRecord, StoreError> {
        sqlx::query("INSERT INTO bot_settings (user_id, settings, updated_at) VALUES ($1, $2, $3)")
            .bind(user_id)
            .bind(to_json(settings)?)
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
        self.settings_of_user(user_id)
            .await?
            .ok_or(StoreError::NotFound)
    }

    /// The record `id` if it belongs to `user_id`.
    pub async fn settings_by_id(
        &self,
        user_id: i64,
        id: i64,
    ) -> Result<Option<SettingsRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM bot_settings WHERE id = $1 AND user_id = $2");
        let row = sqlx::query(&sql)
            .bind(id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    pub async fn update_settings(
        &self,
        user_id: i64,
        id: i64,
        settings: &BotSettings,
        now_ms: i64,
    ) -> Result<SettingsRecord, StoreError> {
        let done = sqlx::query(
            "UPDATE bot_settings SET settings = $1, updated_at = $2 WHERE id = $3 AND user_id = $4",
        )
        .bind(to_json(settings)?)
        .bind(now_ms)
        .bind(id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        self.settings_by_id(user_id, id)
            .await?
            .ok_or(StoreError::NotFound)
    }

    pub async fn set_run_flags(&self, user_id: i64, flags: RunFlags) -> Result<(), StoreError> {
        if let Some(active) = flags.signals_active {
            sqlx::query(
                "UPDATE bot_settings SET is_signals_fetching_active = $1 WHERE user_id = $2",
            )
            .bind(i64::from(active))
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        }
        if let Some(running) = flags.bot_running {
            let started = if running { flags.started_at } else { None };
            sqlx::query(
                "UPDATE bot_settings SET is_bot_running = $1, bot_started_at = $2 WHERE user_id = $3",
            )
            .bind(i64::from(running))
            .bind(started)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// Records whose bot or signal fetching was on: what a restart resumes.
    pub async fn active_bots(&self) -> Result<Vec<SettingsRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM bot_settings
             WHERE is_bot_running <> 0 OR is_signals_fetching_active <> 0 ORDER BY user_id"
        );
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        rows.iter().map(record_from_row).collect()
    }
}
