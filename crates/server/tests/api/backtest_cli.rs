//! `signaldesk backtest` on the real binary: the summary as JSON, the same twice, and bad
//! requests refused with the field named; `signaldesk candles fetch` from the fake Bybit and
//! backtests on what it stored.

use rust_decimal::Decimal;
use serde_json::Value;

use crate::cli::{create_user, signaldesk};
use crate::wif::{assert_traded_on_wif, wif, wif_minutes};

fn with_trader() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = create_user(dir.path(), "trader");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn backtest(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["backtest", "--username", "trader"];
    args.extend_from_slice(extra);
    signaldesk(dir).args(args).output().unwrap()
}

#[test]
fn a_backtest_prints_its_trades_and_summary_and_is_the_same_twice() {
    let dir = with_trader();
    let args = [
        "--from",
        "2026-11-02",
        "--to",
        "2026-11-03",
        "--symbols",
        "BTCUSDT,ETHUSDT,SOLUSDT",
        "--json",
    ];
    let first = backtest(dir.path(), &args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    let trades = report["trades"].as_array().unwrap();
    let closed = trades.iter().filter(|t| t["status"] == "CLOSED").count();
    assert!(closed > 0, "{report:#}");
    assert_eq!(report["summary"]["stats"]["total_trades"], closed);
    let pnl: f64 = trades
        .iter()
        .filter(|t| t["status"] == "CLOSED")
        .map(|t| {
            t["pnl"]
                .as_str()
                .and_then(|p| p.parse().ok())
                .or(t["pnl"].as_f64())
                .unwrap()
        })
        .sum();
    let total = report["summary"]["stats"]["total_pnl"].as_f64().unwrap();
    assert!((pnl - total).abs() < 1e-6, "{pnl} vs {total}");

    let second = backtest(dir.path(), &args);
    let again: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(again["summary"], report["summary"]);

    let text = backtest(dir.path(), &args[..6]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("closed trades: {closed} (")),
        "{text}"
    );
}

#[test]
fn a_wrong_setting_symbol_or_period_is_refused_by_name() {
    let dir = with_trader();
    let cases: [(&[&str], &str); 3] = [
        (
            &["--set", "initial_stop_loss_pct=500"],
            "overrides.initial_stop_loss_pct",
        ),
        (&["--symbols", "NOPEUSDT"], "Unknown symbol NOPEUSDT"),
        (&["--from", "2026-11-05", "--to", "2026-11-01"], "date_to"),
    ];
    for (extra, named) in cases {
        let out = backtest(dir.path(), extra);
        assert!(!out.status.success(), "{extra:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(named), "{extra:?}: {stderr}");
    }
}

/// The fake Bybit with the simulated market's instruments and BTC minutes, and WIF (which the
/// simulated market does not have, 2 % maintenance margin up to 200,000 USDT, then 3 %), of
/// the six days before yesterday.
async fn bybit_with_history() -> (signaldesk_fake_bybit::FakeBybit, String, String) {
    use signaldesk_fake_bybit::{FakeBybit, FakeConfig, RiskTier};
    use signaldesk_venue::market::sim::default_symbols;
    let today = chrono::Utc::now().date_naive();
    let from = today - chrono::Days::new(7);
    let to = today - chrono::Days::new(2);
    let start = from
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp_millis();
    let end = (to + chrono::Days::new(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp_millis();
    let (_, minutes) =
        signaldesk_backtest::data::simulated_minutes(3, &["BTCUSDT".to_string()], start, end)
            .unwrap();
    let mut instruments: Vec<_> = default_symbols()
        .into_iter()
        .map(|s| s.instrument)
        .collect();
    instruments.push(wif());
    let fake = FakeBybit::start(FakeConfig::new(instruments))
        .await
        .unwrap();
    fake.add_klines("BTCUSDT", &minutes["BTCUSDT"]);
    fake.add_klines("WIFUSDT", &wif_minutes(start, end));
    let tier = |value: i64, rate: Decimal, leverage: i64| RiskTier {
        risk_limit_value: Decimal::from(value),
        maintenance_margin: rate,
        initial_margin: rate * Decimal::TWO,
        max_leverage: Decimal::from(leverage),
        mm_deduction: None,
    };
    fake.set_risk_tiers(
        "WIFUSDT",
        vec![
            tier(200_000, Decimal::new(2, 2), 25),
            tier(400_000, Decimal::new(3, 2), 16),
        ],
    );
    (fake, from.to_string(), to.to_string())
}

/// `signaldesk args…` in `dir`, its Bybit at `url`, off the test's runtime (where the fake
/// answers).
async fn with_bybit(dir: &std::path::Path, url: &str, args: &[&str]) -> std::process::Output {
    let (dir, url) = (dir.to_path_buf(), url.to_string());
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        signaldesk(&dir)
            .env("SIGNALDESK_MARKET__BYBIT_REST_URL", url)
            .args(args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// The day before `to` (`YYYY-MM-DD`).
fn day_before(to: &str) -> String {
    (chrono::NaiveDate::parse_from_str(to, "%Y-%m-%d").unwrap() - chrono::Days::new(1)).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn candles_fetched_from_bybit_are_backtested_and_a_fetch_resumes() {
    let (fake, from, to) = bybit_with_history().await;
    let dir = with_trader();
    let url = fake.rest_url();
    let fetch_args = [
        "candles",
        "fetch",
        "--symbols",
        "BTCUSDT",
        "--from",
        &from,
        "--to",
        &to,
    ];

    let fetched = with_bybit(dir.path(), &url, &fetch_args).await;
    let stdout = String::from_utf8_lossy(&fetched.stdout);
    assert!(
        fetched.status.success(),
        "{}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    assert!(
        stdout.contains(
            "BTCUSDT: 0 minutes stored before, 8640 fetched in 9 requests, 0 with no candle"
        ),
        "{stdout}"
    );
    let again = with_bybit(dir.path(), &url, &fetch_args).await;
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        stdout.contains("BTCUSDT: 8640 minutes stored before, 0 fetched in 0 requests"),
        "{stdout}"
    );

    let day_before_to = day_before(&to);
    let (first, last) = (day_before_to.as_str(), to.as_str());
    let backtest_args = move |symbols: &'static str| {
        [
            "backtest",
            "--username",
            "trader",
            "--from",
            first,
            "--to",
            last,
            "--symbols",
            symbols,
            "--data",
            "bybit",
            "--json",
        ]
    };
    let tested = with_bybit(dir.path(), &url, &backtest_args("BTCUSDT")).await;
    assert!(
        tested.status.success(),
        "{}",
        String::from_utf8_lossy(&tested.stderr)
    );
    let report: Value = serde_json::from_slice(&tested.stdout).unwrap();
    assert!(
        report["summary"]["stats"]["total_trades"].is_u64(),
        "{report}"
    );

    let uncovered = with_bybit(dir.path(), &url, &backtest_args("BTCUSDT,ETHUSDT")).await;
    assert!(!uncovered.status.success());
    let stderr = String::from_utf8_lossy(&uncovered.stderr);
    assert!(
        stderr.contains("data:") && stderr.contains("ETHUSDT"),
        "{stderr}"
    );
}

/// Issue 28, "Instruments come from the venue": a symbol the simulated market does not have
/// is fetched with Bybit's instrument and backtested on it; one Bybit does not list is
/// refused by name with nothing stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symbol_only_bybit_has_is_fetched_with_its_instrument_and_backtested_on_it() {
    let (fake, from, to) = bybit_with_history().await;
    let dir = with_trader();
    let url = fake.rest_url();
    let (first, last) = (from.as_str(), to.as_str());
    let fetch = move |symbols: &'static str| {
        [
            "candles",
            "fetch",
            "--symbols",
            symbols,
            "--from",
            first,
            "--to",
            last,
        ]
    };

    let refused = with_bybit(dir.path(), &url, &fetch("WIFUSDT,NOPEUSDT")).await;
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("Bybit does not trade NOPEUSDT"), "{stderr}");
    assert!(!String::from_utf8_lossy(&refused.stdout).contains("WIFUSDT"));

    let fetched = with_bybit(dir.path(), &url, &fetch("WIFUSDT")).await;
    let stdout = String::from_utf8_lossy(&fetched.stdout);
    assert!(
        fetched.status.success(),
        "{}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    assert!(
        stdout.contains(
            "WIFUSDT: Bybit's instrument stored: tick size 0.0005, quantity step 5, minimum quantity 10, minimum value 5 USDT, leverage up to 25x, maintenance margin 0.02 in the first of 2 risk tiers"
        ),
        "{stdout}"
    );

    let day_before_to = day_before(&to);
    let tested = with_bybit(
        dir.path(),
        &url,
        &[
            "backtest",
            "--username",
            "trader",
            "--from",
            &day_before_to,
            "--to",
            &to,
            "--symbols",
            "WIFUSDT",
            "--data",
            "bybit",
            "--set",
            "initial_stop_loss_pct=1",
            "--set",
            "take_profit_first_pct=0.5",
            "--json",
        ],
    )
    .await;
    assert!(
        tested.status.success(),
        "{}",
        String::from_utf8_lossy(&tested.stderr)
    );
    let report: Value = serde_json::from_slice(&tested.stdout).unwrap();
    assert_traded_on_wif(&report, 0.02);
}

#[test]
fn a_sweep_prints_one_cell_per_value_and_a_refused_value_runs_nothing() {
    let dir = with_trader();
    let sweep = |values: &str| {
        backtest(
            dir.path(),
            &[
                "--from",
                "2026-11-02",
                "--to",
                "2026-11-03",
                "--symbols",
                "BTCUSDT,SOLUSDT",
                "--sweep",
                &format!("initial_stop_loss_pct={values}"),
                "--json",
            ],
        )
    };
    let refused = sweep("1,4,500");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("sweep") && stderr.contains("initial_stop_loss_pct = 500"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty());

    let out = sweep("1,4");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cells: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = cells.as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[1]["values"]["initial_stop_loss_pct"], 4);
    for cell in cells {
        assert!(
            cell["outcome"]["Ok"]["stats"]["total_trades"].is_u64(),
            "{cells:?}"
        );
    }
}

#[test]
fn a_walk_forward_prints_its_windows_and_refuses_what_the_api_refuses() {
    let dir = with_trader();
    let walk = |plan: &str, extra: &[&str]| {
        let mut args = vec![
            "--from",
            "2026-11-02",
            "--to",
            "2026-11-04",
            "--symbols",
            "BTCUSDT",
            "--sweep",
            "initial_stop_loss_pct=1,3",
            "--walk-forward",
            plan,
        ];
        args.extend_from_slice(extra);
        backtest(dir.path(), &args)
    };
    // The API's sentences, after the field.
    for (plan, extra, said) in [
        ("2:2", &[][..], "walk_forward: The period (3 days) is shorter than one training window and one test window (2 + 2 days)."),
        ("0:1", &[][..], "walk_forward: train_days must be at least 1 day."),
        ("2-1", &[][..], "--walk-forward takes TRAIN:TEST days, e.g. 30:10, not \"2-1\""),
        ("2:1", &["--metric", "sharpe"][..], "Unknown metric \"sharpe\": expected total_pnl or pnl_over_drawdown."),
    ] {
        let refused = walk(plan, extra);
        assert!(!refused.status.success());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains(said), "{plan}: {stderr}");
        assert!(refused.stdout.is_empty());
    }

    let out = walk("2:1", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("walk-forward of initial_stop_loss_pct: 2 training days, 1 test days, best by total_pnl"),
        "{text}"
    );
    assert!(
        text.contains(
            "train 2026-11-02 to 2026-11-03, test 2026-11-04 to 2026-11-04: initial_stop_loss_pct="
        ),
        "{text}"
    );
    assert!(text.contains("total: in-sample "), "{text}");

    let json = walk("2:1", &["--metric", "pnl_over_drawdown", "--json"]);
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let walked = &report["walk_forward"];
    assert_eq!(walked["metric"], "pnl_over_drawdown");
    assert_eq!(walked["windows"][0]["test_from"], "2026-11-04");
    let in_sample = &walked["windows"][0]["in_sample"];
    let expected = in_sample["total_pnl"].as_f64().unwrap()
        / in_sample["max_drawdown_usdt"].as_f64().unwrap().max(1.0);
    assert!(
        (in_sample["score"].as_f64().unwrap() - expected).abs() < 1e-9,
        "{in_sample}"
    );
}
