//! The Telegram notifier against a fake Bot API on loopback: what reaches which chat, the pace
//! per chat, 429 and 5xx handling, and that an unreachable or hanging Telegram never makes
//! `send` wait. Also when the daily summary is due around daylight saving changes.

mod fake_telegram;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::Method;
use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use rust_decimal_macros::dec;
use signaldesk_core::market::PositionSide;
use signaldesk_engine::telegram::{
    deal_closed_text, deal_opened_text, next_local_midnight, DealClosed, DealOpened, Notifier,
    TelegramConfig, QUEUE_CAP,
};
use tokio::time::Instant;

use fake_telegram::{FakeTelegram, Reply, Request, TOKEN};

fn opened() -> DealOpened {
    DealOpened {
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        qty: dec!(0.01),
        price: dec!(65000),
        leverage: 10,
        margin: dec!(65),
    }
}

fn closed() -> DealClosed {
    DealClosed {
        symbol: "BTCUSDT".into(),
        side: PositionSide::Long,
        qty: dec!(0.01),
        exit_price: dec!(66000),
        pnl: dec!(10),
        fees: dec!(0.72),
        funding: dec!(-0.05),
        reason: "take profit".into(),
    }
}

fn gap(earlier: &Request, later: &Request) -> Duration {
    later.at.duration_since(earlier.at)
}

#[tokio::test]
async fn opens_and_closes_reach_the_right_chat_as_plain_text() {
    let telegram = FakeTelegram::start().await;
    let notifier = telegram.notifier();

    notifier.send("1001", deal_opened_text(&opened()));
    notifier.send(" 2002 ", deal_closed_text(&closed()));

    let mut requests = telegram.wait_for(2).await;
    requests.sort_by(|a, b| a.chat().cmp(b.chat()));
    for request in &requests {
        assert_eq!(request.method, Method::POST);
        assert_eq!(request.path, format!("/bot{TOKEN}/sendMessage"));
        assert!(
            request.body.get("parse_mode").is_none(),
            "{:?}",
            request.body
        );
    }
    assert_eq!(requests[0].chat(), "1001");
    assert_eq!(
        requests[0].text(),
        "Opened LONG BTCUSDT\nSize: 0.01 @ 65000\nLeverage: 10x, margin 65.00 USDT"
    );
    assert_eq!(requests[1].chat(), "2002");
    assert_eq!(
        requests[1].text(),
        "Closed LONG BTCUSDT (take profit)\nSize: 0.01 @ 66000\nPnL: +10.00 USDT\n\
         Fees: 0.72 USDT, funding: -0.05 USDT"
    );
}

#[tokio::test]
async fn one_chat_gets_a_message_a_second_and_other_chats_do_not_wait() {
    let telegram = FakeTelegram::start().await;
    let notifier = telegram.notifier();

    let sent = Instant::now();
    for n in 1..=3 {
        notifier.send("1", format!("a{n}"));
    }
    notifier.send("2", "b1".into());

    let requests = telegram.wait_for(4).await;
    let chat_a: Vec<&Request> = requests.iter().filter(|r| r.chat() == "1").collect();
    let chat_b: Vec<&Request> = requests.iter().filter(|r| r.chat() == "2").collect();
    let texts: Vec<&str> = chat_a.iter().map(|r| r.text()).collect();
    assert_eq!(texts, ["a1", "a2", "a3"], "in order, each once");
    for pair in chat_a.windows(2) {
        let between = gap(pair[0], pair[1]);
        assert!(
            between >= Duration::from_millis(900),
            "same chat {between:?} apart"
        );
    }
    assert_eq!(chat_b.len(), 1);
    assert!(
        chat_b[0].at < chat_a[1].at,
        "chat 2 waited behind chat 1's queue"
    );
    assert!(chat_b[0].at.duration_since(sent) < Duration::from_millis(900));
}

#[tokio::test]
async fn a_429_waits_retry_after_then_delivers_the_same_message_once() {
    let telegram = FakeTelegram::start().await;
    telegram.script(&[Reply::TooManyRequests { retry_after: 1 }]);
    let notifier = telegram.notifier();

    notifier.send("1", "hello".into());

    let requests = telegram.wait_for(2).await;
    assert_eq!(requests[0].text(), "hello");
    assert_eq!(requests[1].text(), "hello");
    let between = gap(&requests[0], &requests[1]);
    assert!(
        between >= Duration::from_secs(1),
        "retried after {between:?}"
    );

    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(telegram.requests().len(), 2, "delivered once, not again");
}

#[tokio::test]
async fn a_server_error_is_retried_after_a_pause() {
    let telegram = FakeTelegram::start().await;
    telegram.script(&[Reply::ServerError]);
    let notifier = telegram.notifier();

    notifier.send("1", "hello".into());

    let requests = telegram.wait_for(2).await;
    assert_eq!(requests[1].text(), "hello");
    assert!(gap(&requests[0], &requests[1]) >= Duration::from_millis(900));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(telegram.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_message_is_dropped_and_the_next_one_still_goes() {
    let telegram = FakeTelegram::start().await;
    telegram.script(&[Reply::Forbidden]);
    let notifier = telegram.notifier();

    notifier.send("1", "first".into());
    notifier.send("1", "second".into());

    let requests = telegram.wait_for(2).await;
    let texts: Vec<&str> = requests.iter().map(|r| r.text()).collect();
    assert_eq!(
        texts,
        ["first", "second"],
        "the refused message is not retried"
    );
    assert!(gap(&requests[0], &requests[1]) >= Duration::from_millis(900));
}

/// `send` on an unreachable Telegram: 200 calls must all return at once (this is the
/// non-blocking property, not a benchmark) and the chat's queue must stay bounded.
fn assert_send_never_waits(notifier: &Notifier) {
    let started = std::time::Instant::now();
    for n in 0..200 {
        notifier.send("1", format!("message {n}"));
    }
    let took = started.elapsed();
    assert!(took < Duration::from_millis(50), "200 sends took {took:?}");
    assert!(notifier.queued("1") <= QUEUE_CAP);
    assert!(
        notifier.dropped() >= 99,
        "dropped only {}",
        notifier.dropped()
    );
}

#[tokio::test]
async fn a_hanging_telegram_never_delays_send() {
    let telegram = FakeTelegram::start().await;
    telegram.always(Reply::Hang);
    let notifier = telegram.notifier();

    assert_send_never_waits(&notifier);

    let requests = telegram.wait_for(1).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        telegram.requests().len(),
        1,
        "one request hangs, the rest wait"
    );
    assert_eq!(requests[0].text(), "message 100", "the oldest were dropped");
    assert_eq!(notifier.queued("1"), QUEUE_CAP - 1);

    // The stuck chat does not hold up another one.
    telegram.answer_normally();
    notifier.send("2", "still here".into());
    let requests = telegram.wait_for(2).await;
    assert_eq!(requests[1].chat(), "2");
}

#[tokio::test]
async fn a_closed_port_never_delays_send() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let notifier = Notifier::start(TelegramConfig {
        bot_token: TOKEN.into(),
        api_url: url,
        ..TelegramConfig::default()
    });

    assert_send_never_waits(&notifier);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(notifier.queued("1") <= QUEUE_CAP);
}

#[tokio::test]
async fn no_token_or_no_chat_sends_nothing() {
    let telegram = FakeTelegram::start().await;
    for token in ["", "   "] {
        let off = Notifier::start(TelegramConfig {
            bot_token: token.into(),
            api_url: telegram.url.clone(),
            ..TelegramConfig::default()
        });
        assert!(!off.is_enabled());
        off.send("1", "nobody hears this".into());
        assert_eq!(off.queued("1"), 0);
    }
    let notifier = telegram.notifier();
    notifier.send("", "no chat".into());
    notifier.send("  ", "no chat".into());

    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(telegram.requests().is_empty(), "{:?}", telegram.requests());

    // The same notifier does deliver to a real chat.
    notifier.send("1", "hello".into());
    let requests = telegram.wait_for(1).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].text(), "hello");
}

/// A `Write` into a shared buffer, to read what the notifier logged.
#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogBuffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    async fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let text = self.text();
            if text.contains(needle) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in the log:\n{text}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

// The default single-threaded runtime runs every task on this thread, where the log
// subscriber below is installed.
#[tokio::test]
async fn the_token_never_reaches_the_log() {
    let log = LogBuffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    // A refused connection: reqwest's error would name the URL, token included.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let unreachable = Notifier::start(TelegramConfig {
        bot_token: TOKEN.into(),
        api_url: closed,
        ..TelegramConfig::default()
    });
    unreachable.send("1", "hello".into());
    log.wait_for("telegram send failed").await;

    // A refusal from Telegram itself.
    let telegram = FakeTelegram::start().await;
    telegram.script(&[Reply::Forbidden]);
    telegram.notifier().send("1", "hello".into());
    let text = log.wait_for("bot was blocked by the user").await;

    assert!(!text.contains("secret-token"), "token in the log:\n{text}");
    assert!(!text.contains("/bot"), "URL in the log:\n{text}");
}

fn utc(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn zone(name: &str) -> Tz {
    name.parse().unwrap()
}

#[test]
fn berlin_midnights_around_daylight_saving_changes() {
    let berlin = zone("Europe/Berlin");
    // Spring forward on 30 March 2025: that local day lasts 23 hours.
    let sat = next_local_midnight(utc("2025-03-29T12:00:00Z"), berlin);
    let sun = next_local_midnight(utc("2025-03-30T12:00:00Z"), berlin);
    assert_eq!(sat, utc("2025-03-29T23:00:00Z"), "00:00 CET");
    assert_eq!(sun, utc("2025-03-30T22:00:00Z"), "00:00 CEST");
    assert_eq!(sun - sat, TimeDelta::hours(23));
    // Fall back on 26 October 2025: 25 hours.
    let sat = next_local_midnight(utc("2025-10-25T12:00:00Z"), berlin);
    let sun = next_local_midnight(utc("2025-10-26T12:00:00Z"), berlin);
    assert_eq!(sat, utc("2025-10-25T22:00:00Z"), "00:00 CEST");
    assert_eq!(sun, utc("2025-10-26T23:00:00Z"), "00:00 CET");
    assert_eq!(sun - sat, TimeDelta::hours(25));
    // Between the two 02:00 to 03:00 hours of that night the next midnight is still Monday's.
    assert_eq!(
        next_local_midnight(utc("2025-10-26T00:30:00Z"), berlin),
        utc("2025-10-26T23:00:00Z")
    );
}

#[test]
fn midnights_east_of_utc() {
    // Tokyo, UTC+9, no daylight saving: local midnight is 15:00 UTC the day before.
    let tokyo = zone("Asia/Tokyo");
    assert_eq!(
        next_local_midnight(utc("2025-01-01T14:59:59Z"), tokyo),
        utc("2025-01-01T15:00:00Z")
    );
    assert_eq!(
        next_local_midnight(utc("2025-01-01T15:00:00Z"), tokyo),
        utc("2025-01-02T15:00:00Z"),
        "exactly at midnight, the next one is a day on"
    );

    // Sydney springs forward at 02:00 on 5 October 2025 (UTC+10 to UTC+11).
    let sydney = zone("Australia/Sydney");
    let sun = next_local_midnight(utc("2025-10-04T12:00:00Z"), sydney);
    let mon = next_local_midnight(utc("2025-10-04T15:00:00Z"), sydney);
    assert_eq!(sun, utc("2025-10-04T14:00:00Z"), "00:00 AEST");
    assert_eq!(mon, utc("2025-10-05T13:00:00Z"), "00:00 AEDT");
    assert_eq!(mon - sun, TimeDelta::hours(23));

    // Beirut (UTC+2) moves its clocks from 00:00 to 01:00 on the last Sunday of March: that
    // midnight never shows, so the day starts at the jump, 01:00 EEST.
    assert_eq!(
        next_local_midnight(utc("2025-03-29T12:00:00Z"), zone("Asia/Beirut")),
        utc("2025-03-29T22:00:00Z")
    );
}

#[test]
fn the_next_midnight_is_always_the_start_of_the_next_local_day() {
    for name in [
        "Europe/Berlin",
        "Australia/Sydney",
        "Asia/Beirut",
        "America/Santiago",
        "Asia/Kolkata",
    ] {
        let tz = zone(name);
        let mut now = utc("2025-01-01T00:00:00Z");
        while now < utc("2026-01-01T00:00:00Z") {
            let next = next_local_midnight(now, tz);
            assert!(next > now, "{name} {now}");
            assert!(next - now <= TimeDelta::hours(25), "{name} {now} -> {next}");
            let local_now = now.with_timezone(&tz).date_naive();
            let last_of_today = (next - TimeDelta::seconds(1)).with_timezone(&tz);
            assert_eq!(
                last_of_today.date_naive(),
                local_now,
                "{name} {now} -> {next}"
            );
            let first_of_tomorrow = next.with_timezone(&tz);
            assert_eq!(
                first_of_tomorrow.date_naive(),
                local_now.succ_opt().unwrap(),
                "{name} {now} -> {next}"
            );
            now += TimeDelta::minutes(47);
        }
    }
}

/// The fake refuses what Telegram refuses and long-polls as documented, so the command
/// poller's tests stand on Telegram's contract.
mod fake_contract {
    use super::*;
    use serde_json::{json, Value};

    async fn call(fake: &FakeTelegram, token: &str, method: &str, body: Value) -> (u16, Value) {
        let res = reqwest::Client::new()
            .post(format!("{}/bot{token}/{method}", fake.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        (res.status().as_u16(), res.json().await.unwrap())
    }

    #[tokio::test]
    async fn a_wrong_token_is_401_unauthorized() {
        let fake = FakeTelegram::start().await;
        for method in ["getUpdates", "sendMessage", "answerCallbackQuery"] {
            let (status, body) = call(&fake, "123456:wrong", method, json!({})).await;
            assert_eq!(status, 401, "{method}");
            assert_eq!(
                body,
                json!({"ok": false, "error_code": 401, "description": "Unauthorized"})
            );
        }
    }

    #[tokio::test]
    async fn get_updates_confirms_below_the_offset_and_waits_for_the_timeout() {
        let fake = FakeTelegram::start().await;
        let first = fake.user_writes(1, "/status");
        let second = fake.user_writes(1, "/balance");
        let (_, all) = call(&fake, TOKEN, "getUpdates", json!({})).await;
        let ids: Vec<i64> = all["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["update_id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, [first, second], "unconfirmed updates come again");
        let (_, rest) = call(&fake, TOKEN, "getUpdates", json!({"offset": second})).await;
        assert_eq!(rest["result"].as_array().unwrap().len(), 1);
        assert_eq!(fake.unconfirmed(), 1, "the first is confirmed");

        // Nothing new: the call waits out its timeout, and an update ends the wait early.
        let started = Instant::now();
        let (_, none) = call(
            &fake,
            TOKEN,
            "getUpdates",
            json!({"offset": second + 1, "timeout": 1}),
        )
        .await;
        assert_eq!(none["result"], json!([]));
        assert!(started.elapsed() >= Duration::from_millis(900));
        let waiting = tokio::spawn({
            let url = fake.url.clone();
            async move {
                reqwest::Client::new()
                    .post(format!("{url}/bot{TOKEN}/getUpdates"))
                    .json(&json!({"offset": second + 1, "timeout": 20}))
                    .send()
                    .await
                    .unwrap()
                    .json::<Value>()
                    .await
                    .unwrap()
            }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        let third = fake.user_writes(1, "/help");
        let got = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the long poll ended with the update")
            .unwrap();
        assert_eq!(got["result"][0]["update_id"], third);
    }

    #[tokio::test]
    async fn a_second_poller_or_a_webhook_is_409_conflict() {
        let fake = FakeTelegram::start().await;
        let url = fake.url.clone();
        let first = tokio::spawn(async move {
            let res = reqwest::Client::new()
                .post(format!("{url}/bot{TOKEN}/getUpdates"))
                .json(&json!({"timeout": 20}))
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (status, _) = call(&fake, TOKEN, "getUpdates", json!({"timeout": 0})).await;
        assert_eq!(status, 200);
        let (status, body) = first.await.unwrap();
        assert_eq!(status, 409);
        assert!(body["description"]
            .as_str()
            .unwrap()
            .starts_with("Conflict: terminated by other getUpdates request"));

        fake.set_webhook(true);
        let (status, body) = call(&fake, TOKEN, "getUpdates", json!({})).await;
        assert_eq!(status, 409);
        assert!(body["description"]
            .as_str()
            .unwrap()
            .contains("webhook is active"));
    }

    #[tokio::test]
    async fn a_callback_query_is_answered_once() {
        let fake = FakeTelegram::start().await;
        let (_, sent) = call(
            &fake,
            TOKEN,
            "sendMessage",
            json!({"chat_id": 1, "text": "Sure?", "reply_markup": {"inline_keyboard": [[{"text": "Yes", "callback_data": "yes"}]]}}),
        )
        .await;
        assert_eq!(sent["ok"], true);
        let request = fake.messages_to(1).pop().unwrap();
        assert_eq!(request.buttons(), ["yes"]);
        let query = fake.user_presses(1, &request, "yes");
        let answer = json!({"callback_query_id": query});
        assert_eq!(
            call(&fake, TOKEN, "answerCallbackQuery", answer.clone())
                .await
                .0,
            200
        );
        assert_eq!(
            call(&fake, TOKEN, "answerCallbackQuery", answer).await.0,
            400
        );
        let too_long = json!({"chat_id": 1, "text": "x", "reply_markup": {"inline_keyboard": [[{"text": "x", "callback_data": "y".repeat(65)}]]}});
        assert_eq!(call(&fake, TOKEN, "sendMessage", too_long).await.0, 400);
    }
}
