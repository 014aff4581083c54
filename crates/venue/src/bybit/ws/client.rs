//! One public websocket connection that stays up: subscribe on every (re)connect (the first
//! topics and every topic added since), send a ping every `ping_interval` (Bybit drops silent connections), reconnect with exponential
//! back-off when the connection closes, errors or goes quiet for two ping intervals.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::messages::{parse, ping_request, subscribe_request, PublicMessage};

/// Mainnet public stream of USDT perpetuals.
pub const MAINNET_PUBLIC_LINEAR_URL: &str = "wss://stream.bybit.com/v5/public/linear";

/// Topics per subscribe request (Bybit limits the args of one request).
const TOPICS_PER_REQUEST: usize = 10;

#[derive(Debug, Clone)]
pub struct WsConfig {
    pub url: String,
    pub topics: Vec<String>,
    pub ping_interval: Duration,
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
}

/// Runs the stream on a task until aborted, handing every message to `on_message`; a topic
/// sent on `added` is subscribed at once and on every reconnect after.
pub fn spawn_public_stream(
    config: WsConfig,
    mut added: mpsc::UnboundedReceiver<String>,
    mut on_message: impl FnMut(PublicMessage) + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut backoff = config.reconnect_min;
        let mut req = 0u64;
        let mut topics = config.topics.clone();
        loop {
            match tokio_tungstenite::connect_async(config.url.as_str()).await {
                Ok((socket, _)) => {
                    tracing::info!(url = %config.url, "bybit public stream connected");
                    backoff = config.reconnect_min;
                    let reason = run_connection(
                        socket,
                        &config,
                        &mut req,
                        &mut topics,
                        &mut added,
                        &mut on_message,
                    )
                    .await;
                    tracing::warn!(%reason, "bybit public stream disconnected");
                }
                Err(e) => tracing::warn!(error = %e, "bybit public stream could not connect"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(config.reconnect_max);
        }
    })
}

async fn run_connection<S>(
    socket: tokio_tungstenite::WebSocketStream<S>,
    config: &WsConfig,
    req: &mut u64,
    topics: &mut Vec<String>,
    added: &mut mpsc::UnboundedReceiver<String>,
    on_message: &mut impl FnMut(PublicMessage),
) -> String
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut sink, mut stream) = socket.split();
    for chunk in topics.chunks(TOPICS_PER_REQUEST) {
        *req += 1;
        let text = subscribe_request(&req.to_string(), chunk);
        if let Err(e) = sink.send(Message::Text(text.into())).await {
            return format!("subscribe failed: {e}");
        }
    }
    let mut ping =
        tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
    let mut last_heard = Instant::now();
    loop {
        tokio::select! {
            Some(topic) = added.recv() => {
                if topics.contains(&topic) {
                    continue;
                }
                *req += 1;
                let text = subscribe_request(&req.to_string(), std::slice::from_ref(&topic));
                topics.push(topic);
                if let Err(e) = sink.send(Message::Text(text.into())).await {
                    return format!("subscribe failed: {e}");
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > config.ping_interval * 2 {
                    return "no message for two ping intervals".into();
                }
                *req += 1;
                if let Err(e) = sink.send(Message::Text(ping_request(&req.to_string()).into())).await {
                    return format!("ping failed: {e}");
                }
            }
            frame = stream.next() => {
                last_heard = Instant::now();
                match frame {
                    Some(Ok(Message::Text(text))) => match parse(text.as_str()) {
                        Ok(messages) => {
                            for m in messages {
                                if let PublicMessage::Ack { op, success: false, ret_msg } = &m {
                                    tracing::warn!(%op, %ret_msg, "bybit refused a request");
                                }
                                on_message(m);
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "unreadable bybit message"),
                    },
                    Some(Ok(Message::Ping(payload))) => {
                        if let Err(e) = sink.send(Message::Pong(payload)).await {
                            return format!("pong failed: {e}");
                        }
                    }
                    Some(Ok(Message::Close(_))) | None => return "closed by the server".into(),
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return format!("read failed: {e}"),
                }
            }
        }
    }
}
