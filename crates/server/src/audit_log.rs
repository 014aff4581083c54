//! [`Audit`]: the "who and where" of an audit row (issue 31 point 2, docs/security.md
//! "Audit log"), extracted once per request: the client address (behind the trusted proxies,
//! as the login limits and the sessions list read it) and the user agent. Handlers call
//! [`Audit::record`] with the action and its detail once the action is done; the row is
//! written by [`signaldesk_engine::Engine::record_audit`], shared with the Telegram commands.
//! [`spawn_pruning`] deletes the rows past the 365-day retention.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use serde_json::Value;
use signaldesk_engine::Engine;
use signaldesk_store::{AuditAction, SessionOrigin, Store};
use tokio::task::JoinHandle;

use crate::app::AppState;
use crate::auth::handlers::origin;
use crate::error::ApiError;
use crate::rate_limit::client_ip;

/// Where a request comes from, and the means to record what it did.
pub struct Audit {
    client: IpAddr,
    origin: SessionOrigin,
    engine: Arc<Engine>,
}

impl Audit {
    /// The client address (the proxy rules applied).
    pub fn client(&self) -> IpAddr {
        self.client
    }

    /// The address and user agent, as sessions keep them too.
    pub fn origin(&self) -> &SessionOrigin {
        &self.origin
    }

    /// Records one row for `user_id` (None for a failed login naming no user).
    pub async fn record(&self, user_id: Option<i64>, action: AuditAction, detail: Value) {
        self.engine
            .record_audit(user_id, action, detail, &self.origin)
            .await;
    }
}

impl FromRequestParts<AppState> for Audit {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .ok_or_else(|| ApiError::internal("the peer address is unknown"))?;
        let client = client_ip(peer, &parts.headers, &state.config.trusted_proxies);
        Ok(Audit {
            client,
            origin: origin(client, &parts.headers),
            engine: state.engine.clone(),
        })
    }
}

/// How often rows past the 365-day retention are deleted.
const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// Deletes the rows past the retention now and every [`PRUNE_EVERY`] (the server aborts the
/// task when it stops). The delete is idempotent, so with several instances on one database
/// each runs it and no duty lease is needed.
pub fn spawn_pruning(store: Store) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PRUNE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            match store.prune_audit_log().await {
                Ok(0) => {}
                Ok(pruned) => tracing::info!(pruned, "audit rows past 365 days deleted"),
                Err(e) => tracing::warn!(error = %e, "audit rows past 365 days not deleted yet"),
            }
        }
    })
}
