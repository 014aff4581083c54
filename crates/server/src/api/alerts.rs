//! `/api/alerts/`: the user's raised alerts and the most recent cleared ones (docs/alerts.md),
//! for the app's banner at first paint; later changes arrive as `alert` websocket messages.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use signaldesk_engine::AlertKind;
use signaldesk_store::AlertRecord;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::error::{ApiResult, ErrorBody};
use crate::wire::rfc3339;

/// Raised alerts and recent cleared ones answered, in all.
const RECENT: i64 = 50;

#[derive(Serialize, ToSchema)]
pub struct AlertView {
    pub id: i64,
    /// `market_feed_stale`, `venue_unreachable`, `database_unreachable`, `worker_stopped`,
    /// `lease_lost`, `unprotected` or `circuit_breaker`.
    pub kind: String,
    /// What happened, in a few words.
    pub title: String,
    /// What happened, in full.
    pub detail: String,
    /// What the bot does about it.
    pub action: String,
    /// Since when.
    pub raised_at: String,
    /// When it was over; null while raised.
    pub cleared_at: Option<String>,
    /// Raised and not cleared.
    pub active: bool,
}

impl From<AlertRecord> for AlertView {
    fn from(a: AlertRecord) -> Self {
        AlertView {
            id: a.id,
            title: AlertKind::parse(&a.kind)
                .map_or_else(|| a.kind.clone(), |k| k.title().to_string()),
            kind: a.kind,
            detail: a.detail,
            action: a.action,
            raised_at: rfc3339(a.raised_at),
            active: a.cleared_at.is_none(),
            cleared_at: a.cleared_at.map(rfc3339),
        }
    }
}

/// The raised alerts first (newest first), then the most recent cleared ones.
#[utoipa::path(get, path = "/api/alerts/", tag = "alerts",
    responses((status = 200, body = [AlertView]), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<Vec<AlertView>>> {
    let alerts = state.store.recent_alerts(auth.id(), RECENT).await?;
    Ok(Json(alerts.into_iter().map(Into::into).collect()))
}
