//! Alerts and notification channels end to end (docs/alerts.md): the market feed of a running
//! trading worker stops, the stale-feed alert reaches the user's Telegram chat (a local Bot
//! API stand-in) and a generic webhook (a local receiver that checks the signature) within two
//! signal intervals, once, and "cleared" follows when prices come back. Also Discord's 429
//! `retry_after` and e-mail through a local SMTP stand-in. Real SQLite file throughout.

#[allow(dead_code)]
mod desk_support;
mod fake_telegram;

use std::future::IntoFuture;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use hmac::{Hmac, Mac};
use rust_decimal_macros::dec;
use serde_json::Value;
use sha2::Sha256;
use signaldesk_core::settings::BotSettings;
use signaldesk_engine::notify::{Notice, Outbound, SmtpConfig, SmtpTls};
use signaldesk_engine::trading::{TradingDeps, TradingWorker};
use signaldesk_engine::{Alerts, EventBus, Notifications, UserEvent};
use signaldesk_store::{ChannelSpec, SecretCipher};
use signaldesk_venue::market::manual::ManualMarket;
use signaldesk_venue::paper::{NoJournal, PaperConfig, PaperExchange};
use signaldesk_venue::Venue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use desk_support::{classic, instrument, store_with_trader};
use fake_telegram::FakeTelegram;

const WEBHOOK_SECRET: &str = "a-webhook-secret-of-the-trader";

/// One POST a local receiver got.
#[derive(Clone, Debug)]
struct Received {
    body: Value,
    /// Whether `X-SignalDesk-Signature` was HMAC-SHA256 of the raw body under the secret.
    signed: bool,
    at: Instant,
}

/// A local HTTP receiver that records every POST; `reply` answers each in turn (then 204).
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Received>>>,
}

#[derive(Clone)]
struct ReceiverState {
    got: Arc<Mutex<Vec<Received>>>,
    replies: Arc<Mutex<Vec<(StatusCode, String)>>>,
}

async fn receive(
    State(state): State<ReceiverState>,
    headers: HeaderMap,
    raw: Bytes,
) -> impl IntoResponse {
    let mut mac = Hmac::<Sha256>::new_from_slice(WEBHOOK_SECRET.as_bytes()).unwrap();
    mac.update(&raw);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    let signed = headers
        .get("x-signaldesk-signature")
        .and_then(|v| v.to_str().ok())
        == Some(expected.as_str());
    state.got.lock().unwrap().push(Received {
        body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
        signed,
        at: Instant::now(),
    });
    let mut replies = state.replies.lock().unwrap();
    if replies.is_empty() {
        (StatusCode::NO_CONTENT, String::new())
    } else {
        replies.remove(0)
    }
}

impl Receiver {
    async fn start(replies: Vec<(StatusCode, String)>) -> Receiver {
        let got = Arc::new(Mutex::new(Vec::new()));
        let state = ReceiverState {
            got: got.clone(),
            replies: Arc::new(Mutex::new(replies)),
        };
        let app = axum::Router::new()
            .fallback(axum::routing::post(receive))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook/secret-path", listener.local_addr().unwrap());
        tokio::spawn(axum::serve(listener, app).into_future());
        Receiver { url, got }
    }

    fn got(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    async fn wait_for(
        &self,
        what: impl Fn(&[Received]) -> bool,
        within: Duration,
    ) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.got();
            if what(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "not received in time: {got:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn telegram_texts_until(
    telegram: &FakeTelegram,
    needle: &str,
    within: Duration,
) -> Vec<String> {
    let deadline = Instant::now() + within;
    loop {
        let texts: Vec<String> = telegram
            .requests()
            .iter()
            .map(|r| r.text().to_string())
            .collect();
        if texts.iter().any(|t| t.contains(needle)) {
            return texts;
        }
        assert!(
            Instant::now() < deadline,
            "no {needle:?} on Telegram: {texts:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_market_feed_is_alerted_once_on_telegram_and_the_webhook_then_cleared() {
    // Two signal intervals of 0.6 s each.
    let stale_after = Duration::from_millis(1200);
    let (_db, store, user) = store_with_trader(&BotSettings {
        telegram_id: "4242".into(),
        ..classic()
    })
    .await;
    let cipher = Arc::new(SecretCipher::random());
    let receiver = Receiver::start(Vec::new()).await;
    let events = vec!["alert_raised".to_string(), "alert_cleared".to_string()];
    store
        .create_channel(
            &cipher,
            user,
            &ChannelSpec {
                kind: "webhook",
                target: &receiver.url,
                secret: Some(WEBHOOK_SECRET),
                events: &events,
            },
            0,
        )
        .await
        .unwrap();
    let telegram = FakeTelegram::start().await;

    let market = Arc::new(ManualMarket::new(vec![instrument("BTCUSDT")], 0));
    market.set_price("BTCUSDT", dec!(30000));
    let exchange = PaperExchange::new(market.clone(), PaperConfig::default(), Arc::new(NoJournal))
        .await
        .unwrap();
    let venue: Arc<dyn Venue> = Arc::new(exchange.account(user));
    let bus = EventBus::new();
    let mut live = bus.subscribe(user);
    let notices = Notifications::start(
        store.clone(),
        cipher.clone(),
        telegram.notifier(),
        Outbound::new(&SmtpConfig::default(), Some(store.clone())),
    );
    let deps = TradingDeps {
        account_venue: signaldesk_core::account::AccountVenue::Paper,
        store: store.clone(),
        ledger: Arc::new(store.clone()),
        journal: signaldesk_engine::journal::BotJournal::new(store.clone(), bus.clone()),
        alerts: Alerts::start(store.clone(), bus.clone(), notices.clone()),
        bus: bus.clone(),
        venue,
        market: market.clone(),
        notices,
        feed_stale_after: stale_after,
    };
    let worker = TradingWorker::new(user, deps, Vec::new()).await.unwrap();

    // The feed: a BTCUSDT price every 100 ms while `feeding`.
    let feeding = Arc::new(AtomicBool::new(true));
    let stop = CancellationToken::new();
    let feeder = {
        let (feeding, market, stop) = (feeding.clone(), market.clone(), stop.clone());
        tokio::spawn(async move {
            let mut price = dec!(30000);
            while !stop.is_cancelled() {
                if feeding.load(Ordering::SeqCst) {
                    price += dec!(0.1);
                    market.set_price("BTCUSDT", price);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let (_signals_tx, signals) = broadcast::channel(8);
    let (_commands_tx, commands) = mpsc::channel(8);
    let running = tokio::spawn(worker.run(signals, commands, stop.clone()));

    // Prices flow for longer than the stale time: no alert.
    tokio::time::sleep(stale_after + Duration::from_millis(600)).await;
    assert!(receiver.got().is_empty(), "{:?}", receiver.got());
    assert!(telegram.requests().is_empty());

    // The feed stops.
    feeding.store(false, Ordering::SeqCst);
    let stopped_at = Instant::now();
    let texts = telegram_texts_until(
        &telegram,
        "ALERT: Market feed stale",
        Duration::from_secs(5),
    )
    .await;
    let alerted_after = stopped_at.elapsed();
    assert!(
        alerted_after <= stale_after + Duration::from_millis(800),
        "alerted {alerted_after:?} after the feed stopped (two intervals: {stale_after:?})"
    );
    let alert = texts.iter().find(|t| t.starts_with("ALERT")).unwrap();
    assert!(alert.contains("BTCUSDT"), "{alert}");
    assert!(alert.contains("Since: "), "{alert}");
    assert!(alert.contains("The bot: "), "{alert}");
    assert_eq!(telegram.requests()[0].chat(), "4242");

    let got = receiver
        .wait_for(|got| !got.is_empty(), Duration::from_secs(5))
        .await;
    assert_eq!(got[0].body["event"], "alert_raised");
    assert_eq!(got[0].body["data"]["kind"], "market_feed_stale");
    assert!(got[0].signed, "the signature did not verify: {:?}", got[0]);

    let raised = store.open_alert(user, "market_feed_stale").await.unwrap();
    assert!(raised.is_some(), "the alert is stored while raised");

    // Still stale for another two intervals: nothing is sent again.
    tokio::time::sleep(stale_after * 2).await;
    let alerts_sent = telegram
        .requests()
        .iter()
        .filter(|r| r.text().starts_with("ALERT"))
        .count();
    assert_eq!(alerts_sent, 1, "sent once, not once per check");
    assert_eq!(receiver.got().len(), 1);

    // Prices come back: cleared, on both channels.
    feeding.store(true, Ordering::SeqCst);
    let resumed_at = Instant::now();
    telegram_texts_until(
        &telegram,
        "CLEARED: Market feed stale",
        Duration::from_secs(5),
    )
    .await;
    assert!(resumed_at.elapsed() < Duration::from_secs(2));
    let got = receiver
        .wait_for(|got| got.len() >= 2, Duration::from_secs(5))
        .await;
    assert_eq!(got[1].body["event"], "alert_cleared");
    assert!(got[1].body["data"]["cleared_at"].is_string());
    assert!(got[1].signed);
    assert!(store
        .open_alert(user, "market_feed_stale")
        .await
        .unwrap()
        .is_none());

    // The live view heard both: raised, then cleared.
    let mut seen = Vec::new();
    while let Some(event) = live.try_recv() {
        if let UserEvent::Alert(a) = &*event {
            seen.push(a.cleared_at.is_some());
        }
    }
    assert_eq!(seen, [false, true]);

    stop.cancel();
    running.await.unwrap();
    feeder.await.unwrap();
}

#[tokio::test]
async fn a_webhook_whose_receiver_fails_is_retried_and_its_failures_are_written() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let cipher = SecretCipher::random();
    let receiver = Receiver::start(vec![(
        StatusCode::SERVICE_UNAVAILABLE,
        "down for a moment".into(),
    )])
    .await;
    let events = vec!["trade_opened".to_string()];
    let channel = store
        .create_channel(
            &cipher,
            user,
            &ChannelSpec {
                kind: "webhook",
                target: &receiver.url,
                secret: Some(WEBHOOK_SECRET),
                events: &events,
            },
            0,
        )
        .await
        .unwrap();
    let outbound = Outbound::new(&SmtpConfig::default(), Some(store.clone()));
    outbound.enqueue(channel.clone(), Notice::Test);
    let got = receiver
        .wait_for(|got| got.len() >= 2, Duration::from_secs(6))
        .await;
    assert!(
        got[1].at - got[0].at >= Duration::from_secs(2),
        "retried after a back-off"
    );
    assert!(got.iter().all(|r| r.signed));
    // The failure was written, then the success reset the count and kept the last error.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let now = store
            .channel(&cipher, user, channel.id)
            .await
            .unwrap()
            .unwrap();
        if now.last_success_at.is_some() {
            assert_eq!(now.failures, 0);
            assert!(now.last_error.as_deref().unwrap().contains("503"));
            assert!(now.last_failure_at.is_some());
            assert!(
                !now.last_error.unwrap().contains("secret-path"),
                "no URL in errors"
            );
            break;
        }
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn discord_gets_content_and_a_429_waits_retry_after() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let cipher = SecretCipher::random();
    // Discord's rate limit answer: retry_after in seconds, a float.
    let limited =
        r#"{"message": "You are being rate limited.", "retry_after": 0.7, "global": false}"#;
    let discord = Receiver::start(vec![(StatusCode::TOO_MANY_REQUESTS, limited.into())]).await;
    let events = vec!["trade_opened".to_string()];
    let channel = store
        .create_channel(
            &cipher,
            user,
            &ChannelSpec {
                kind: "discord",
                target: &discord.url,
                secret: None,
                events: &events,
            },
            0,
        )
        .await
        .unwrap();
    let outbound = Outbound::new(&SmtpConfig::default(), Some(store.clone()));
    outbound.enqueue(channel.clone(), Notice::Test);
    let got = discord
        .wait_for(|got| got.len() >= 2, Duration::from_secs(5))
        .await;
    assert_eq!(got[0].body, got[1].body, "the same message again");
    assert_eq!(
        got[1].body["content"],
        "Signal Desk test message: this channel works."
    );
    assert!(got[1].at - got[0].at >= Duration::from_millis(700));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(discord.got().len(), 2);
    let now = store
        .channel(&cipher, user, channel.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(now.failures, 0, "a 429 is a wait, not a failure");
}

/// A minimal SMTP server (RFC 5321's commands, no extensions) that keeps each message's data.
async fn smtp_stand_in() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let messages = Arc::new(Mutex::new(Vec::new()));
    let kept = messages.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let kept = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 stand-in ESMTP\r\n").await.unwrap();
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(body) = data.as_mut() {
                        if line == "." {
                            kept.lock().unwrap().push(data.take().unwrap());
                            write.write_all(b"250 2.0.0 queued\r\n").await.unwrap();
                        } else {
                            body.push_str(&line);
                            body.push('\n');
                        }
                        continue;
                    }
                    let verb = line.split_whitespace().next().unwrap_or("").to_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 stand-in\r\n",
                        "MAIL" | "RCPT" | "RSET" | "NOOP" => b"250 2.1.0 OK\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 go ahead\r\n"
                        }
                        "QUIT" => {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            return;
                        }
                        _ => b"502 5.5.2 not implemented\r\n",
                    };
                    write.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (port, messages)
}

#[tokio::test]
async fn email_goes_through_the_configured_smtp_relay() {
    let (_db, store, user) = store_with_trader(&classic()).await;
    let cipher = SecretCipher::random();
    let (port, messages) = smtp_stand_in().await;
    let smtp = SmtpConfig {
        host: "127.0.0.1".into(),
        port,
        tls: SmtpTls::None,
        from: "Signal Desk <bot@example.com>".into(),
        ..SmtpConfig::default()
    };
    let events = vec!["trade_opened".to_string()];
    let channel = store
        .create_channel(
            &cipher,
            user,
            &ChannelSpec {
                kind: "email",
                target: "trader@example.com",
                secret: None,
                events: &events,
            },
            0,
        )
        .await
        .unwrap();
    let outbound = Outbound::new(&smtp, Some(store.clone()));
    assert!(outbound.email_enabled());
    outbound
        .deliver_once(&channel, &Notice::Test, user)
        .await
        .unwrap();
    let messages = messages.lock().unwrap().clone();
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].contains("To: trader@example.com"),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("Subject: Signal Desk: Signal Desk test message"),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("this channel works."),
        "{}",
        messages[0]
    );

    // No relay listening: a failure that says so, not a hang.
    drop(store);
    let closed = SmtpConfig {
        port: {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        },
        ..smtp
    };
    let failed = Outbound::new(&closed, None)
        .deliver_once(&channel, &Notice::Test, user)
        .await;
    assert!(failed.is_err());
}
