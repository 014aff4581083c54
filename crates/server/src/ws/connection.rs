//! One websocket client of `/ws/dashboard/`: authentication, the snapshot, then the user's
//! events from the bus and answers to the client's actions, until either side leaves.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use metrics::gauge;
use signaldesk_core::client_message::{read_client_message, ClientMessage, UnreadFrame};
use signaldesk_engine::metrics::Metrics;
use signaldesk_engine::signal_worker::sort_for_display;
use signaldesk_engine::UserEvent;
use signaldesk_store::repo::sessions::Credential;
use signaldesk_store::User;

use crate::app::AppState;
use crate::auth::extractor::resolve_credential;
use crate::auth::secrets;
use crate::http::metrics::WEBSOCKET_CLIENTS;
use crate::ws::protocol::{event_frame, ServerMessage};

/// A socket that has not authenticated by then is closed.
pub const AUTH_TIMEOUT: Duration = Duration::from_secs(10);
/// A write the client has not taken by then drops the client.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

pub const CLOSE_UNAUTHORIZED: u16 = 4001;
/// RFC 6455 "message too big": a client message above
/// [`MAX_CLIENT_MESSAGE`](crate::ws::MAX_CLIENT_MESSAGE).
pub const CLOSE_TOO_BIG: u16 = 1009;
pub const CLOSE_AUTH_TIMEOUT: u16 = 4008;
pub const CLOSE_TOO_SLOW: u16 = 4009;
const CLOSE_SERVER_ERROR: u16 = 1011;

/// Counts the socket in `/metrics` while it lives.
struct Counted(Metrics);

impl Counted {
    fn new(metrics: &Metrics) -> Counted {
        metrics.record(|| gauge!(WEBSOCKET_CLIENTS).increment(1.0));
        Counted(metrics.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.record(|| gauge!(WEBSOCKET_CLIENTS).decrement(1.0));
    }
}

/// The sending half, where every write is bounded in time.
struct Outbox {
    sink: SplitSink<WebSocket, Message>,
}

/// The client is gone or too slow: stop serving it.
struct Gone;

impl Outbox {
    async fn send(&mut self, message: &ServerMessage<'_>) -> Result<(), Gone> {
        self.send_text(message.to_json()).await
    }

    async fn send_text(&mut self, text: String) -> Result<(), Gone> {
        let frame = Message::Text(text.into());
        match tokio::time::timeout(WRITE_TIMEOUT, self.sink.send(frame)).await {
            Ok(Ok(())) => Ok(()),
            _ => Err(Gone),
        }
    }

    async fn close(mut self, code: u16, reason: &'static str) {
        let frame = Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        }));
        let _ = tokio::time::timeout(WRITE_TIMEOUT, self.sink.send(frame)).await;
    }
}

/// How the wait for `authenticate` ended, when it did not end with a user.
enum NotAuthenticated {
    Refused(crate::error::ApiError),
    TooBig,
    Left,
}

/// Whether a read error is the library refusing a message above its own limit.
fn is_too_big(error: &axum::Error) -> bool {
    let text = error.to_string();
    text.contains("Space limit exceeded") || text.contains("too long")
}

const TOO_BIG_REASON: &str = "message too big (the limit is 16384 bytes)";

/// The socket's task lives as long as the socket and is allocated whole when it starts,
/// before authentication: the snapshot and the answers, larger than the rest and run once or
/// rarely, are boxed for their run so the idle socket does not keep room for them.
pub async fn serve(socket: WebSocket, state: AppState, upgrade_user: Option<User>) {
    let _counted = Counted::new(&state.metrics.metrics);
    let (sink, mut stream) = socket.split();
    let mut out = Outbox { sink };
    let user = match upgrade_user {
        Some(user) => user,
        None => match tokio::time::timeout(AUTH_TIMEOUT, wait_for_token(&mut stream, &state)).await
        {
            Ok(Ok(user)) => user,
            Ok(Err(NotAuthenticated::Refused(e))) => return refuse(out, e).await,
            Ok(Err(NotAuthenticated::TooBig)) => {
                return out.close(CLOSE_TOO_BIG, TOO_BIG_REASON).await
            }
            Ok(Err(NotAuthenticated::Left)) => return,
            Err(_) => {
                return out
                    .close(CLOSE_AUTH_TIMEOUT, "authentication timeout")
                    .await
            }
        },
    };
    // Subscribe before the snapshot is read, so nothing that happens meanwhile is missed.
    let mut events = state.engine.bus().subscribe(user.id);
    if out
        .send(&ServerMessage::authenticated(&user))
        .await
        .is_err()
        || Box::pin(send_snapshot(&mut out, &state, user.id))
            .await
            .is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(event) => {
                    if out.send_text(event_frame(&event)).await.is_err() {
                        return;
                    }
                }
                None => return out.close(CLOSE_TOO_SLOW, "too slow").await,
            },
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    match Box::pin(answer(&mut out, &state, &user, text.as_str())).await {
                        Ok(()) => {}
                        Err(Answered::Gone) => return,
                        Err(Answered::TooBig) => {
                            return out.close(CLOSE_TOO_BIG, TOO_BIG_REASON).await
                        }
                        Err(Answered::Refused) => {
                            return out.close(CLOSE_UNAUTHORIZED, "not authenticated").await
                        }
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let reply = ServerMessage::error(
                        "Binary frames are not supported: send JSON text frames.",
                    );
                    if out.send(&reply).await.is_err() {
                        return;
                    }
                }
                Some(Err(e)) if is_too_big(&e) => {
                    return out.close(CLOSE_TOO_BIG, TOO_BIG_REASON).await;
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                // Pings and pongs are answered by the library.
                Some(Ok(_)) => {}
            },
        }
    }
}

/// Reads frames until a valid `authenticate`; anything else before it is ignored.
async fn wait_for_token(
    stream: &mut SplitStream<WebSocket>,
    state: &AppState,
) -> Result<User, NotAuthenticated> {
    while let Some(frame) = stream.next().await {
        let text = match frame {
            Ok(Message::Text(text)) => text,
            Err(e) if is_too_big(&e) => return Err(NotAuthenticated::TooBig),
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => continue,
        };
        match read_client_message(text.as_str()) {
            Ok(ClientMessage::Authenticate { token }) => {
                return user_for_token(state, &token)
                    .await
                    .map_err(NotAuthenticated::Refused)
            }
            Err(UnreadFrame::TooBig) => return Err(NotAuthenticated::TooBig),
            Ok(_) | Err(UnreadFrame::Unknown) => {}
        }
    }
    Err(NotAuthenticated::Left)
}

async fn user_for_token(state: &AppState, token: &str) -> Result<User, crate::error::ApiError> {
    let digest = secrets::digest(token);
    let (_, user) = resolve_credential(state, Credential::TokenHash(&digest)).await?;
    Ok(user)
}

async fn refuse(mut out: Outbox, error: crate::error::ApiError) {
    let code = if error.status.is_server_error() {
        CLOSE_SERVER_ERROR
    } else {
        CLOSE_UNAUTHORIZED
    };
    if out.send(&ServerMessage::error(error.message)).await.is_ok() {
        out.close(code, "not authenticated").await;
    }
}

/// What follows `authenticated`: signals_update, balance, bot_status, statistics.
async fn send_snapshot(out: &mut Outbox, state: &AppState, user_id: i64) -> Result<(), Gone> {
    send_signals(out, state, user_id).await?;
    let engine = &state.engine;
    match engine.wallet(user_id).await {
        Ok(wallet) => send_event(out, UserEvent::Balance(wallet)).await?,
        Err(e) => tracing::warn!(user_id, error = %e, "no balance for the live snapshot"),
    }
    match engine.supervisor().status(user_id).await {
        Ok(status) => send_event(out, UserEvent::BotStatus(status)).await?,
        Err(e) => tracing::warn!(user_id, error = %e, "no bot status for the live snapshot"),
    }
    match engine.statistics(user_id).await {
        Ok(stats) => send_event(out, UserEvent::Statistics(stats)).await?,
        Err(e) => tracing::warn!(user_id, error = %e, "no statistics for the live snapshot"),
    }
    Ok(())
}

async fn send_event(out: &mut Outbox, event: UserEvent) -> Result<(), Gone> {
    out.send_text(event_frame(&event)).await
}

async fn send_signals(out: &mut Outbox, state: &AppState, user_id: i64) -> Result<(), Gone> {
    match state.store.latest_signal_per_symbol(user_id).await {
        Ok(mut signals) => {
            sort_for_display(&mut signals);
            send_event(out, UserEvent::SignalsUpdate(signals)).await
        }
        Err(e) => {
            tracing::error!(user_id, error = %e, "could not read signals for a live client");
            out.send(&ServerMessage::error("Could not read the signals."))
                .await
        }
    }
}

/// Why an answer ended the socket.
enum Answered {
    Gone,
    /// A message above [`MAX_CLIENT_MESSAGE`](crate::ws::MAX_CLIENT_MESSAGE): close 1009.
    TooBig,
    /// A further `authenticate` with a token not valid for this socket's user: close 4001.
    Refused,
}

impl From<Gone> for Answered {
    fn from(_: Gone) -> Answered {
        Answered::Gone
    }
}

/// Answers one client message on an authenticated socket.
async fn answer(
    out: &mut Outbox,
    state: &AppState,
    user: &User,
    text: &str,
) -> Result<(), Answered> {
    let message = match read_client_message(text) {
        Ok(message) => message,
        Err(UnreadFrame::TooBig) => return Err(Answered::TooBig),
        Err(UnreadFrame::Unknown) => {
            out.send(&ServerMessage::error(
                "Unknown message: expected an action of authenticate, get_signals, get_trades or ping.",
            ))
            .await?;
            return Ok(());
        }
    };
    match message {
        ClientMessage::Ping => out.send(&ServerMessage::Pong).await?,
        ClientMessage::GetSignals => send_signals(out, state, user.id).await?,
        ClientMessage::GetTrades => match state.engine.positions(user.id).await {
            Ok(positions) => send_event(out, UserEvent::Orders(positions)).await?,
            Err(e) => {
                out.send(&ServerMessage::error(format!(
                    "Could not read the positions: {e}"
                )))
                .await?
            }
        },
        // Any token not valid for this socket's user (another user's, a logged-out one, junk)
        // is refused and the socket closed with 4001.
        ClientMessage::Authenticate { token } => match user_for_token(state, &token).await {
            Ok(same) if same.id == user.id => out.send(&ServerMessage::authenticated(user)).await?,
            Ok(_) => {
                out.send(&ServerMessage::error(
                    "This socket belongs to another user.",
                ))
                .await?;
                return Err(Answered::Refused);
            }
            Err(e) => {
                out.send(&ServerMessage::error(e.message)).await?;
                return Err(Answered::Refused);
            }
        },
    }
    Ok(())
}
