//! The wire format of `/ws/dashboard/` (docs/websocket.md): each engine event as the JSON
//! message the web app reads. What clients send is read by
//! [`signaldesk_core::client_message`]. Both are schemas of the OpenAPI document
//! (`ServerMessage`, `ClientMessage`), so the web app types the feed from the same contract
//! as the API.

use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_core::market::PositionSide;
use signaldesk_core::stats::LiveStatistics;
use signaldesk_engine::{BotStatus, UserEvent, WorkerState};
use signaldesk_store::User;
use signaldesk_venue::Position;
use utoipa::ToSchema;

use crate::api::alerts::AlertView;
use crate::api::balance::BalanceView;
use crate::api::logs::LogView;
use crate::api::signals::SignalView;
use crate::auth::handlers::UserView;
use crate::wire::rfc3339;

/// An open position as the `orders` message lists it.
#[derive(Serialize, ToSchema)]
pub struct PositionView {
    pub symbol: String,
    /// `long` or `short`.
    pub side: &'static str,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub qty: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub entry_price: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub mark_price: Decimal,
    pub leverage: u32,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub margin: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub unrealized_pnl: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub liquidation_price: Decimal,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub stop_loss: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub take_profit: Option<Decimal>,
    #[serde(with = "rust_decimal::serde::float_option")]
    #[schema(value_type = Option<f64>)]
    pub trailing_stop_price: Option<Decimal>,
    pub opened_at: String,
}

impl From<&Position> for PositionView {
    fn from(p: &Position) -> Self {
        PositionView {
            symbol: p.symbol.clone(),
            side: match p.side {
                PositionSide::Long => "long",
                PositionSide::Short => "short",
            },
            qty: p.qty,
            entry_price: p.entry_price,
            mark_price: p.mark_price,
            leverage: p.leverage,
            margin: p.margin,
            unrealized_pnl: p.unrealized_pnl,
            liquidation_price: p.liquidation_price,
            stop_loss: p.stops.stop_loss,
            take_profit: p.stops.take_profit,
            trailing_stop_price: p.trailing_stop_price,
            opened_at: rfc3339(p.opened_at_ms),
        }
    }
}

/// The `bot_status` message's data.
#[derive(Serialize, ToSchema)]
pub struct BotStatusView<'a> {
    /// The trading worker's state: `running`, `stopped`, or `unknown` while the instance
    /// running it has stopped answering and its lease runs out (docs/multi-instance.md).
    #[schema(value_type = WorkerState)]
    pub status: &'static str,
    #[serde(flatten)]
    pub detail: &'a BotStatus,
}

/// A message to the client, told apart by `type`.
#[derive(Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    Authenticated {
        user: UserView,
    },
    SignalsUpdate {
        signals: Vec<SignalView>,
    },
    Signal(SignalView),
    Balance {
        data: BalanceView,
    },
    Orders {
        data: Vec<PositionView>,
    },
    BotStatus {
        data: BotStatusView<'a>,
    },
    NewLog {
        data: LogView,
    },
    Statistics {
        #[schema(value_type = LiveStatistics)]
        data: &'a LiveStatistics,
    },
    /// An alert raised, or cleared (`cleared_at` set, `active` false).
    Alert {
        data: AlertView,
    },
    Pong,
    Error {
        error: String,
    },
}

impl<'a> ServerMessage<'a> {
    pub fn authenticated(user: &User) -> ServerMessage<'a> {
        ServerMessage::Authenticated { user: user.into() }
    }

    pub fn error(sentence: impl Into<String>) -> ServerMessage<'a> {
        ServerMessage::Error {
            error: sentence.into(),
        }
    }

    /// The message for an event of this instance's; `None` for a relayed one, which is
    /// already written ([`event_frame`]).
    pub fn from_event(event: &'a UserEvent) -> Option<ServerMessage<'a>> {
        Some(match event {
            UserEvent::SignalsUpdate(list) => ServerMessage::SignalsUpdate {
                signals: list.iter().cloned().map(SignalView::from).collect(),
            },
            UserEvent::Signal(signal) => ServerMessage::Signal(signal.clone().into()),
            UserEvent::Balance(wallet) => ServerMessage::Balance {
                data: wallet.into(),
            },
            UserEvent::Orders(positions) => ServerMessage::Orders {
                data: positions.iter().map(PositionView::from).collect(),
            },
            UserEvent::BotStatus(status) => ServerMessage::BotStatus {
                data: BotStatusView {
                    status: match status.trading_worker {
                        WorkerState::Running => "running",
                        WorkerState::Stopped => "stopped",
                        WorkerState::Unknown => "unknown",
                    },
                    detail: status,
                },
            },
            UserEvent::NewLog(entry) => ServerMessage::NewLog {
                data: entry.clone().into(),
            },
            UserEvent::Statistics(stats) => ServerMessage::Statistics { data: stats },
            UserEvent::Alert(alert) => ServerMessage::Alert {
                data: alert.clone().into(),
            },
            UserEvent::Relayed(_) => return None,
        })
    }

    pub fn to_json(&self) -> String {
        // Every field is a plain value, map keys are strings: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| {
            tracing::error!(error = %e, "a live message did not serialise");
            r#"{"type":"error","error":"Internal error."}"#.to_string()
        })
    }
}

/// An event as the websocket sends it: written here, or as another instance wrote it.
pub fn event_frame(event: &UserEvent) -> String {
    match (event, ServerMessage::from_event(event)) {
        (UserEvent::Relayed(frame), _) => frame.to_string(),
        (_, message) => message.map(|m| m.to_json()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_their_type() {
        let json = ServerMessage::Pong.to_json();
        assert_eq!(json, r#"{"type":"pong"}"#);
        let stats = LiveStatistics::default();
        let value: serde_json::Value =
            serde_json::from_str(&ServerMessage::Statistics { data: &stats }.to_json()).unwrap();
        assert_eq!(value["type"], "statistics");
        assert_eq!(value["data"]["max_drawdown"], 0.0);
    }
}
