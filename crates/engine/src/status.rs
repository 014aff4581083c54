//! What the engine reports about a user's bot: its status, the venue it trades on, and
//! whether each worker runs in this process.

use serde::Serialize;
use signaldesk_core::account::AccountVenue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkerState {
    Running,
    Stopped,
    /// Runs on another instance that stopped renewing its lease: it may still be running
    /// for a few seconds (until it stops itself) and another instance takes the bot over
    /// once the lease runs out.
    Unknown,
}

/// The instance that runs the bot's workers (several instances on one PostgreSQL).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RunsOn {
    /// Its instance id.
    pub instance: String,
    /// Whether it is the instance that answered this request.
    pub here: bool,
    /// False when it has not renewed its lease for two rounds (4 s): it is probably gone.
    pub answering: bool,
    /// How long ago it last renewed its lease, in ms.
    pub renewed_ms_ago: i64,
    /// When not answering: the most another instance waits before taking the bot over, in
    /// ms (its lease runs out, then the next round).
    pub taken_over_within_ms: Option<i64>,
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
    /// Whether the workers run: here, or on the instance in `runs_on` (the flags say what
    /// should run).
    pub signal_worker: WorkerState,
    pub trading_worker: WorkerState,
    /// Several instances on one database: the instance holding the bot's lease while it
    /// holds it; null when none does, and always with one process on its database.
    pub runs_on: Option<RunsOn>,
}
