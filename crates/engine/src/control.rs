//! Bot control (spec section 4, DESIGN.md section 5, "Bot control"): starting and stopping a
//! user's trading worker and signal fetching, with the checks that come first. Every way in
//! (the HTTP API, Telegram's `/startbot` and `/stopbot`) calls [`Engine::control`], so the
//! rules and refusals are the same everywhere, and each done action is audited once.

use signaldesk_store::{AuditAction, SessionOrigin};

use crate::{BotStatus, Engine, EngineError};

/// What a control call asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotControl {
    /// Signal fetching first when it is off, then the trading worker; a Bybit key must pass
    /// Bybit's check first.
    StartBot,
    /// The trading worker only; open positions stay on the venue with their stops.
    StopBot,
    StartSignals,
    StopSignals,
}

impl BotControl {
    /// What the trader reads when it is done (the app's toast titles, spec section 8).
    pub fn done(self) -> &'static str {
        match self {
            BotControl::StartBot => "Bot started",
            BotControl::StopBot => "Bot stopped",
            BotControl::StartSignals => "Signals started",
            BotControl::StopSignals => "Signals stopped",
        }
    }

    /// The audit log's name for it.
    pub fn audited_as(self) -> AuditAction {
        match self {
            BotControl::StartBot => AuditAction::BotStarted,
            BotControl::StopBot => AuditAction::BotStopped,
            BotControl::StartSignals => AuditAction::SignalsStarted,
            BotControl::StopSignals => AuditAction::SignalsStopped,
        }
    }
}

impl Engine {
    /// Carries out `action` for the user, asked from `origin`; the status after it, also
    /// sent live. A done action is recorded in the audit log.
    pub async fn control(
        &self,
        user_id: i64,
        action: BotControl,
        origin: &SessionOrigin,
    ) -> Result<BotStatus, EngineError> {
        let supervisor = self.supervisor();
        let status = match action {
            BotControl::StartBot => {
                self.check_api_key(user_id, None).await?;
                supervisor.start_trading(user_id).await?
            }
            BotControl::StopBot => supervisor.stop_trading(user_id).await?,
            BotControl::StartSignals => supervisor.start_signals(user_id).await?,
            BotControl::StopSignals => supervisor.stop_signals(user_id).await?,
        };
        tracing::info!(user_id, message = action.done(), "bot control");
        self.record_audit(
            Some(user_id),
            action.audited_as(),
            serde_json::json!({}),
            origin,
        )
        .await;
        Ok(status)
    }
}
