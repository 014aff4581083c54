//! Requests for a bot another instance runs: sent through the `bot_commands` table to the
//! process holding the user's lease, which takes them every [`COMMAND_POLL`], carries them out
//! as if they had come to it, and answers.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Supervisor;
use crate::ownership::Ownership;
use crate::remote::{decode_answer, encode_answer, Remote};
use crate::EngineError;

/// How often the owner looks for requests.
pub const COMMAND_POLL: Duration = Duration::from_millis(200);
/// How long a sender waits for an answer.
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// How often a sender looks for the answer.
const ANSWER_POLL: Duration = Duration::from_millis(50);

impl Supervisor {
    /// The process running the user's bot now, if another does.
    async fn live_owner(&self, user_id: i64) -> Result<String, EngineError> {
        if !matches!(self.ownership, Ownership::Leased { .. }) {
            return Err(EngineError::RunsElsewhere);
        }
        match self.store().lease_owner(user_id).await? {
            Some((owner, true)) => Ok(owner),
            _ => Err(EngineError::RunsElsewhere),
        }
    }

    /// Leaves `remote` for the instance running the bot, without waiting for it.
    pub(super) async fn tell_owner(
        &self,
        user_id: i64,
        remote: &Remote,
    ) -> Result<(), EngineError> {
        let owner = self.live_owner(user_id).await?;
        let (kind, body) = remote.encode();
        self.store()
            .send_command(user_id, &owner, kind, &body)
            .await?;
        Ok(())
    }

    /// Asks the instance running the bot to carry out `remote` and waits for its answer.
    /// Not taken in time: [`EngineError::RunsElsewhere`] (nothing was done, try again);
    /// taken but not answered: [`EngineError::NoAnswer`].
    pub(super) async fn ask_owner(
        &self,
        user_id: i64,
        remote: &Remote,
    ) -> Result<Value, EngineError> {
        let owner = self.live_owner(user_id).await?;
        let (kind, body) = remote.encode();
        let store = self.store();
        let id = store.send_command(user_id, &owner, kind, &body).await?;
        let deadline = Instant::now() + ANSWER_WAIT;
        loop {
            if let Some(answer) = store.command_answer(id).await? {
                if let Err(e) = store.delete_command(id).await {
                    tracing::debug!(id, "an answered command stays until the hourly sweep: {e}");
                }
                return decode_answer(&answer);
            }
            if Instant::now() >= deadline {
                return Err(if store.withdraw_command(id).await? {
                    EngineError::RunsElsewhere
                } else {
                    EngineError::NoAnswer
                });
            }
            tokio::time::sleep(ANSWER_POLL).await;
        }
    }

    /// Takes the requests other instances left for this one and carries them out in order.
    pub async fn run_commands(&self) {
        let Ownership::Leased { holder, .. } = &self.ownership else {
            return;
        };
        let commands = match self.store().take_commands(&holder.process).await {
            Ok(commands) => commands,
            Err(e) => {
                tracing::debug!("no requests read from other instances: {e}");
                return;
            }
        };
        for command in commands {
            let user_id = command.user_id;
            let answer = match Remote::decode(&command.kind, &command.body) {
                Some(Remote::Close { trade_id }) => Some(
                    self.close_trade_here(user_id, trade_id)
                        .await
                        .map(|trade| json!(trade.id)),
                ),
                Some(Remote::CloseAll) => {
                    Some(self.close_all_here(user_id).await.map(|n| json!(n)))
                }
                Some(Remote::Alert(alert)) => {
                    if let Err(e) = self.submit_alert_here(user_id, alert).await {
                        // Kept in the store: the signal worker's sweep, or its next start,
                        // acts on it.
                        tracing::warn!(
                            user_id,
                            "an alert from another instance was not queued ({e}); it stays kept \
                             for the signal worker"
                        );
                    }
                    None
                }
                Some(Remote::SettingsChanged) => {
                    self.settings_changed_here(user_id).await;
                    None
                }
                None => Some(Err(EngineError::Config(format!(
                    "an unknown request `{}` from another instance",
                    command.kind
                )))),
            };
            let stored = match answer {
                Some(outcome) => {
                    self.store()
                        .answer_command(command.id, &encode_answer(outcome))
                        .await
                }
                None => self.store().delete_command(command.id).await,
            };
            if let Err(e) = stored {
                tracing::warn!(
                    user_id,
                    id = command.id,
                    "a request's answer was not stored: {e}"
                );
            }
        }
    }
}
