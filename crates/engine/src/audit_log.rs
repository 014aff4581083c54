//! Writing the audit log (issue 31 point 2, docs/security.md "Audit log"): the one place a
//! row is recorded, for the HTTP handlers and the Telegram commands alike. The caller says
//! who and from where ([`SessionOrigin`]); the action and its detail come from what was done.

use signaldesk_store::{AuditAction, SessionOrigin};

use crate::Engine;

/// The address recorded for actions done through Telegram commands.
pub const TELEGRAM_ADDRESS: &str = "telegram";

/// Where an action done through a Telegram command comes from.
pub fn telegram_origin() -> SessionOrigin {
    SessionOrigin {
        client_address: Some(TELEGRAM_ADDRESS.to_string()),
        user_agent: None,
    }
}

impl Engine {
    /// Records one row. The action is already done when this runs, so a row that cannot be
    /// written does not undo or fail it: the failure is logged as an error instead.
    pub async fn record_audit(
        &self,
        user_id: Option<i64>,
        action: AuditAction,
        detail: serde_json::Value,
        origin: &SessionOrigin,
    ) {
        let now = chrono::Utc::now().timestamp_millis();
        if let Err(e) = self
            .store()
            .append_audit(user_id, now, action, &detail, origin)
            .await
        {
            tracing::error!(error = %e, ?user_id, action = action.as_str(), "audit row not written");
        }
    }
}
