//! `signaldesk backtest` on the real binary: the summary as JSON, the same twice, and bad
//! requests refused with the field named.

use serde_json::Value;

use crate::cli::signaldesk;

fn with_trader() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = signaldesk(dir.path())
        .args([
            "user",
            "create",
            "--username",
            "trader",
            "--password",
            "secret-pass-1",
        ])
        .output()
        .unwrap();
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
