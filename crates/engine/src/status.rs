//! What the engine reports about a user's bot: its status, the venue it trades on, and
//! whether each worker runs in this process.

use serde::Serialize;
use signaldesk_core::account::AccountVenue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerState {
    Running,
    Stopped,
}

/// What `/api/bot/status/` answers (DESIGN.md section 5, Bot control).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct BotStatus {
    pub is_bot_running: bool,
    pub is_signals_fetching_active: bool,
    #[schema(value_type = signaldesk_core::settings::BotMode)]
    pub bot_mode: String,
    pub open_trades: i64,
    pub active_chains: i64,
    /// Where the bot trades: the user's active key's account, or paper.
    #[schema(value_type = signaldesk_core::account::VenueView)]
    pub venue: AccountVenue,
    /// RFC 3339 time the trading worker was started, while it runs.
    pub started_at: Option<String>,
    /// Whether the tasks are alive in this process (the flags say what should run).
    pub signal_worker: WorkerState,
    pub trading_worker: WorkerState,
}
