//! The audit log (migration 0026, docs/security.md "Audit log"): appending a row, reading a
//! user's rows newest first by id cursor, and pruning rows past the 365-day retention. The
//! table has no update path here, and the database's triggers refuse one anyway, as they
//! refuse deleting a row younger than the retention.

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::repo::sessions::SessionOrigin;
use crate::{Store, StoreError};

/// How long rows are kept: 365 days (the delete trigger of migration 0026 uses the same).
pub const AUDIT_RETENTION_MS: i64 = 365 * 24 * 60 * 60 * 1000;

/// What a row records. The names ([`AuditAction::as_str`]) are stable: they are stored,
/// answered by the API and documented in docs/security.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    SettingsChanged,
    ApiKeyAdded,
    ApiKeyActivated,
    ApiKeyDeactivated,
    ApiKeyDeleted,
    BotStarted,
    BotStopped,
    SignalsStarted,
    SignalsStopped,
    PositionClosed,
    PositionsClosedAll,
    Login,
    LoginFailed,
    Logout,
    TwoFactorEnabled,
    TwoFactorDisabled,
    WebhookUrlCreated,
    WebhookUrlRotated,
    SessionRevoked,
    SessionsRevokedOthers,
    PasswordChanged,
}

impl AuditAction {
    /// Every action, in the order docs/security.md lists them.
    pub const ALL: [AuditAction; 21] = [
        AuditAction::SettingsChanged,
        AuditAction::ApiKeyAdded,
        AuditAction::ApiKeyActivated,
        AuditAction::ApiKeyDeactivated,
        AuditAction::ApiKeyDeleted,
        AuditAction::BotStarted,
        AuditAction::BotStopped,
        AuditAction::SignalsStarted,
        AuditAction::SignalsStopped,
        AuditAction::PositionClosed,
        AuditAction::PositionsClosedAll,
        AuditAction::Login,
        AuditAction::LoginFailed,
        AuditAction::Logout,
        AuditAction::TwoFactorEnabled,
        AuditAction::TwoFactorDisabled,
        AuditAction::WebhookUrlCreated,
        AuditAction::WebhookUrlRotated,
        AuditAction::SessionRevoked,
        AuditAction::SessionsRevokedOthers,
        AuditAction::PasswordChanged,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::SettingsChanged => "settings_changed",
            AuditAction::ApiKeyAdded => "api_key_added",
            AuditAction::ApiKeyActivated => "api_key_activated",
            AuditAction::ApiKeyDeactivated => "api_key_deactivated",
            AuditAction::ApiKeyDeleted => "api_key_deleted",
            AuditAction::BotStarted => "bot_started",
            AuditAction::BotStopped => "bot_stopped",
            AuditAction::SignalsStarted => "signals_started",
            AuditAction::SignalsStopped => "signals_stopped",
            AuditAction::PositionClosed => "position_closed",
            AuditAction::PositionsClosedAll => "positions_closed_all",
            AuditAction::Login => "login",
            AuditAction::LoginFailed => "login_failed",
            AuditAction::Logout => "logout",
            AuditAction::TwoFactorEnabled => "two_factor_enabled",
            AuditAction::TwoFactorDisabled => "two_factor_disabled",
            AuditAction::WebhookUrlCreated => "webhook_url_created",
            AuditAction::WebhookUrlRotated => "webhook_url_rotated",
            AuditAction::SessionRevoked => "session_revoked",
            AuditAction::SessionsRevokedOthers => "sessions_revoked_others",
            AuditAction::PasswordChanged => "password_changed",
        }
    }
}

/// One stored row.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    pub id: i64,
    pub user_id: Option<i64>,
    /// Unix ms.
    pub at: i64,
    /// The action's stable name (a name from a newer version reads back as it is).
    pub action: String,
    /// The action's detail, a JSON object (`{}` when there is none).
    pub detail: serde_json::Value,
    pub origin: SessionOrigin,
}

fn entry_from_row(row: &AnyRow) -> Result<AuditEntry, StoreError> {
    let detail: String = row.try_get("detail")?;
    Ok(AuditEntry {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        at: row.try_get("at")?,
        action: row.try_get("action")?,
        detail: serde_json::from_str(&detail)
            .map_err(|e| StoreError::Corrupt(format!("audit detail: {e}")))?,
        origin: SessionOrigin {
            client_address: row.try_get("address")?,
            user_agent: row.try_get("user_agent")?,
        },
    })
}

impl Store {
    /// Appends one row; answers its id.
    pub async fn append_audit(
        &self,
        user_id: Option<i64>,
        at_ms: i64,
        action: AuditAction,
        detail: &serde_json::Value,
        origin: &SessionOrigin,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO audit_log (user_id, at, action, detail, address, user_agent)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(user_id)
        .bind(at_ms)
        .bind(action.as_str())
        .bind(detail.to_string())
        .bind(origin.client_address.as_deref())
        .bind(origin.user_agent.as_deref())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("id")?)
    }

    /// The user's rows newest first: at most `limit`, with ids below `before` when given.
    pub async fn audit_page(
        &self,
        user_id: i64,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, user_id, at, action, detail, address, user_agent FROM audit_log
             WHERE user_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
        )
        .bind(user_id)
        .bind(before.unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// Deletes the rows older than the retention by the database's clock (the one its delete
    /// trigger reads, so a server clock ahead of it cannot make the trigger refuse the whole
    /// statement); answers how many went. Idempotent, so every instance may run it.
    pub async fn prune_audit_log(&self) -> Result<u64, StoreError> {
        let sql = format!("DELETE FROM audit_log WHERE at < {} - $1", self.clock_ms());
        let done = sqlx::query(&sql)
            .bind(AUDIT_RETENTION_MS)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
