//! Telegram commands through the real server (its engine, workers and paper venue, a real
//! database file) and a local Bot API that follows Telegram's contract: `/status` and
//! `/closeall` with its confirmation button through `getUpdates`, the bot started and stopped,
//! `/profit` against the statistics page, other chats changing nothing, and an update handled
//! once across a restart. SQLite always; PostgreSQL too when `TEST_DATABASE_URL` is set.

#[path = "../../../engine/tests/fake_telegram/mod.rs"]
mod fake_telegram;

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use signaldesk_store::test_support::TestDatabase;

use crate::helpers::TestApp;
use crate::trades::{alert_entry, open_trades, trading_bot};
use fake_telegram::{FakeTelegram, Reply};

/// The trader's Telegram user id, which is also their private chat's id.
const CHAT: i64 = 5001;
/// Somebody else who found the bot.
const STRANGER: i64 = 6002;
/// A group whose id a user gave as their `telegram_id`: commands are read in private chats
/// only, so its members cannot command that user's bot.
const GROUP: i64 = -100_777;

async fn app_on(db: TestDatabase, fake: &FakeTelegram) -> TestApp {
    let config = fake.config();
    TestApp::spawn_with(db, move |c| {
        c.telegram = config;
        c.telegram.confirm_secs = 30;
    })
    .await
}

/// Alice with her chat as `telegram_id` (deal messages off, so only answers reach the chat).
async fn trader(app: &TestApp) -> String {
    user_with_chat(app, "alice", CHAT).await
}

/// A user whose settings name `chat` as their `telegram_id`; their API token.
async fn user_with_chat(app: &TestApp, name: &str, chat: i64) -> String {
    let token = app.user_with_token(name).await;
    let list = app
        .call_ok(
            Method::GET,
            "/api/bot-settings/",
            &token,
            None,
            StatusCode::OK,
        )
        .await;
    let id = list[0]["id"].as_i64().unwrap();
    app.call_ok(
        Method::PUT,
        &format!("/api/bot-settings/{id}/"),
        &token,
        Some(json!({
            "telegram_id": chat.to_string(),
            "telegram_notify_deals": false,
            "telegram_notify_stats": false,
        })),
        StatusCode::OK,
    )
    .await;
    token
}

/// Sends `/help` and waits for its answer: every update sent before it has been handled.
async fn settle(fake: &FakeTelegram) {
    let before = fake.messages_to(CHAT).len();
    fake.user_writes(CHAT, "/help");
    for _ in 0..500 {
        let sent = fake.messages_to(CHAT);
        if sent.len() > before
            && sent[before..]
                .iter()
                .any(|r| r.text().starts_with("Signal Desk commands"))
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no answer to /help: {:#?}", fake.requests());
}

async fn bot_running(app: &TestApp, token: &str) -> bool {
    let status = app
        .call_ok(Method::GET, "/api/bot/status/", token, None, StatusCode::OK)
        .await;
    status["is_bot_running"].as_bool().unwrap()
}

/// `pnl` as `/profit` writes it.
fn shown(pnl: f64) -> String {
    let cents = (pnl * 100.0).round() / 100.0;
    match cents {
        c if c.abs() < 0.005 => "0.00".to_string(),
        c if c > 0.0 => format!("+{c:.2}"),
        c => format!("{c:.2}"),
    }
}

#[tokio::test]
async fn commands_from_the_traders_chat_report_and_close_everything_only_after_the_button() {
    let mut dbs = vec![TestDatabase::sqlite()];
    dbs.extend(TestDatabase::postgres().await);
    for db in dbs {
        let label = db.label;
        let fake = FakeTelegram::start().await;
        let app = app_on(db, &fake).await;
        let token = trader(&app).await;
        let path = trading_bot(&app, &token).await;
        alert_entry(&app, &token, &path, "BTCUSDT").await;
        alert_entry(&app, &token, &path, "ETHUSDT").await;
        open_trades(&app, &token, 2).await;

        // /status: venue, bot, signals and the open trades with their pnl.
        fake.user_writes(CHAT, "/status");
        let status = fake.wait_for_message(CHAT, "Open trades: 2").await;
        let text = status.text();
        for part in [
            "Venue: Paper",
            "Bot: running",
            "Signals: active",
            "BTCUSDT",
            "ETHUSDT",
            "pnl",
        ] {
            assert!(text.contains(part), "{label}: {part:?} missing in {text}");
        }
        assert!(
            status.body.get("parse_mode").is_none(),
            "{label}: plain text"
        );

        // Other chats change nothing and hear nothing: a stranger, the trader writing in a
        // group, and a group that is another user's telegram_id.
        let bob = user_with_chat(&app, "bob", GROUP).await;
        fake.user_writes(STRANGER, "/closeall");
        fake.user_writes(STRANGER, "/stopbot");
        fake.group_member_writes(GROUP, CHAT, "/stopbot");
        fake.group_member_writes(GROUP, STRANGER, "/startbot");
        settle(&fake).await;
        assert!(fake.messages_to(STRANGER).is_empty(), "{label}");
        assert!(fake.messages_to(GROUP).is_empty(), "{label}");
        assert!(
            bot_running(&app, &token).await,
            "{label}: a stranger stopped the bot"
        );
        assert!(
            !bot_running(&app, &bob).await,
            "{label}: a group member started a bot"
        );
        assert_eq!(open_trades(&app, &token, 2).await.len(), 2);

        // /closeall only asks; a forged or pressed-elsewhere button closes nothing.
        fake.user_writes(CHAT, "/closeall");
        let question = fake
            .wait_for_message(CHAT, "Close all 2 open positions")
            .await;
        let buttons = question.buttons();
        assert_eq!(buttons.len(), 2, "{label}: {buttons:?}");
        assert!(buttons[0].starts_with("closeall:"), "{label}: {buttons:?}");
        settle(&fake).await;
        assert_eq!(open_trades(&app, &token, 2).await.len(), 2, "{label}");
        let forged = fake.user_presses(CHAT, &question, "closeall:0000000000000000");
        let answer = fake
            .wait_until(Duration::from_secs(10), "the forged press answered", |r| {
                r.api_method() == "answerCallbackQuery" && r.body["callback_query_id"] == forged
            })
            .await;
        assert!(
            answer.text().contains("expired"),
            "{label}: {}",
            answer.text()
        );
        settle(&fake).await;
        assert_eq!(open_trades(&app, &token, 2).await.len(), 2, "{label}");

        // The button the bot sent, which closes the positions on the paper venue.
        let pressed = fake.user_presses(CHAT, &question, &buttons[0]);
        fake.wait_until(Duration::from_secs(10), "the press answered", |r| {
            r.api_method() == "answerCallbackQuery" && r.body["callback_query_id"] == pressed
        })
        .await;
        let done = fake
            .wait_until(Duration::from_secs(20), "the question edited", |r| {
                r.api_method() == "editMessageText" && r.text().starts_with("Closed")
            })
            .await;
        assert_eq!(done.text(), "Closed 2 positions at market.", "{label}");
        assert_eq!(done.body["message_id"].as_i64(), question.message_id);
        open_trades(&app, &token, 0).await;
        let wallet = app
            .call_ok(Method::GET, "/api/balance/", &token, None, StatusCode::OK)
            .await;
        assert_eq!(
            wallet["equity"], wallet["available_balance"],
            "{label}: no margin held"
        );

        // The same button again is spent.
        let again = fake.user_presses(CHAT, &question, &buttons[0]);
        let answer = fake
            .wait_until(Duration::from_secs(10), "the spent button refused", |r| {
                r.api_method() == "answerCallbackQuery" && r.body["callback_query_id"] == again
            })
            .await;
        assert!(
            answer.text().contains("expired"),
            "{label}: {}",
            answer.text()
        );

        // /profit month: the statistics page's figures for the month.
        let stats = app
            .call_ok(
                Method::GET,
                "/api/stats/?period=month",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        assert_eq!(stats["total_trades"], 2, "{label}");
        fake.user_writes(CHAT, "/profit month");
        let profit = fake.wait_for_message(CHAT, "Profit this month").await;
        let expected = format!(
            "Net pnl: {} USDT",
            shown(stats["total_pnl"].as_f64().unwrap())
        );
        assert!(
            profit.text().contains("Closed trades: 2"),
            "{label}: {}",
            profit.text()
        );
        assert!(
            profit.text().contains(&expected),
            "{label}: {expected:?} in {}",
            profit.text()
        );

        // /stopbot and /startbot, as the app's buttons.
        fake.user_writes(CHAT, "/stopbot");
        fake.wait_for_message(CHAT, "Bot stopped.").await;
        assert!(!bot_running(&app, &token).await, "{label}");
        fake.user_writes(CHAT, "/startbot");
        fake.wait_for_message(CHAT, "Bot started.").await;
        assert!(bot_running(&app, &token).await, "{label}");

        // Each is in the audit log once, from "telegram" (issue 31 point 2).
        let log = app
            .call_ok(
                Method::GET,
                "/api/audit-log/?limit=3",
                &token,
                None,
                StatusCode::OK,
            )
            .await;
        let rows: Vec<(Value, Value, Value)> = log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["action"].clone(),
                    e["detail"].clone(),
                    e["address"].clone(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (json!("bot_started"), json!({}), json!("telegram")),
                (json!("bot_stopped"), json!({}), json!("telegram")),
                (
                    json!("positions_closed_all"),
                    json!({"count": 2}),
                    json!("telegram")
                ),
            ],
            "{label}"
        );

        app.server.stop().await.unwrap();
    }
}

#[tokio::test]
async fn an_update_is_handled_once_across_a_restart() {
    let mut dbs = vec![TestDatabase::sqlite()];
    dbs.extend(TestDatabase::postgres().await);
    for db in dbs {
        let label = db.label;
        let fake = FakeTelegram::start().await;
        let app = app_on(db, &fake).await;
        trader(&app).await;
        settle(&fake).await;

        // The answer to /balance never comes back: the server stops while sending it, after
        // acting on the update and before asking Telegram for the next ones (which would
        // have confirmed it).
        fake.script(&[Reply::Hang]);
        let update = fake.user_writes(CHAT, "/balance");
        fake.wait_for_message(CHAT, "Balance (Paper)").await;
        assert_eq!(
            fake.unconfirmed(),
            1,
            "{label}: the update is not confirmed yet"
        );
        let app = app.restart().await;

        settle(&fake).await;
        let balances = fake
            .messages_to(CHAT)
            .into_iter()
            .filter(|r| r.text().starts_with("Balance"))
            .count();
        assert_eq!(
            balances, 1,
            "{label}: /balance was handled again after the restart"
        );
        let first_poll = fake
            .polls()
            .into_iter()
            .map(|p| p.body["offset"].as_i64())
            .rfind(|o| *o == Some(update + 1));
        assert!(
            first_poll.is_some(),
            "{label}: the restarted server did not poll from the stored offset: {:?}",
            fake.polls()
                .iter()
                .map(|p| p.body.clone())
                .collect::<Vec<Value>>()
        );
        // The next poll confirms what was handled.
        for _ in 0..250 {
            if fake.unconfirmed() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(fake.unconfirmed(), 0, "{label}");
        app.server.stop().await.unwrap();
    }
}

/// Several instances on one PostgreSQL database: one polls (Telegram would end a second
/// poller's requests with 409), each command is answered once, and when that instance stops
/// another takes over.
#[tokio::test]
async fn one_instance_of_a_deployment_polls_and_another_takes_over() {
    let Some(db) = TestDatabase::postgres().await else {
        return;
    };
    let fake = FakeTelegram::start().await;
    let config = fake.config();
    let a = TestApp::spawn_with(db, move |c| {
        c.multi_instance = true;
        c.telegram = config;
    })
    .await;
    trader(&a).await;
    let b = a.sibling().await;
    for _ in 0..3 {
        settle(&fake).await;
    }
    // Both instances had time for several polls; had both polled, each would have ended the
    // other's long poll.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(fake.overtaken(), 0, "two instances polled at once");
    let helps = fake
        .messages_to(CHAT)
        .iter()
        .filter(|r| r.text().starts_with("Signal Desk commands"))
        .count();
    assert_eq!(helps, 3, "each /help answered once");

    a.server.stop().await.unwrap();
    // The stopped instance let go of the lease: the other polls within its standby look.
    fake.user_writes(CHAT, "/status");
    fake.wait_until(
        Duration::from_secs(25),
        "/status answered by the other instance",
        |r| r.api_method() == "sendMessage" && r.text().starts_with("Venue:"),
    )
    .await;
    assert_eq!(fake.overtaken(), 0);
    b.server.stop().await.unwrap();
}
