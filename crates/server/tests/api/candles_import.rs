//! `signaldesk candles import` on the real binary, on SQLite and PostgreSQL: a CSV file
//! imported with its summary and the instrument it still needs, again with nothing new, a
//! bad row refused naming the file and the line, a Freqtrade directory with the files it does
//! not read skipped by name, and a backtest on imported candles that do not cover the period
//! refused with the message of fetched ones.

use signaldesk_store::test_support::TestDatabase;

use crate::cli::{create_user_command, signaldesk};

const MINUTE_MS: i64 = 60_000;
/// 2026-11-01T00:00:00Z.
const START_MS: i64 = 1_793_491_200_000;

/// Two days of minutes but for ten (100 to 109), newest first, in Unix seconds.
fn csv_of_two_days() -> String {
    let mut text = String::from("time,open,high,low,close,volume\n");
    for m in (0..2 * 1440).rev().filter(|m| !(100..110).contains(m)) {
        let open = 30_000 + m % 41;
        text += &format!(
            "{},{open}.5,{},{},{}.25,{}\n",
            (START_MS + m * MINUTE_MS) / 1000,
            open + 2,
            open - 1,
            open + 1,
            m % 7
        );
    }
    text
}

fn import(dir: &std::path::Path, url: &str, args: &[&str]) -> (bool, String, String) {
    let out = signaldesk(dir)
        .env("SIGNALDESK_DATABASE_URL", url)
        .args(["candles", "import"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn candles_import_reports_each_file_re_imports_nothing_and_refuses_bad_rows() {
    for db in TestDatabase::all().await {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("BTCUSDT-1m.csv");
        std::fs::write(&csv, csv_of_two_days()).unwrap();
        let csv_arg = csv.to_str().unwrap();

        let (ok, stdout, stderr) = import(dir.path(), &db.url, &["--file", csv_arg]);
        assert!(ok, "{}: {stderr}", db.label);
        assert!(
            stdout.contains("BTCUSDT: 2870 candles read from 2026-11-01T00:00:00Z to 2026-11-02T23:59:00Z, 2870 stored new, 0 already stored, 0 replaced\n"),
            "{}: {stdout}",
            db.label
        );
        assert!(
            stdout.contains("BTCUSDT: no instrument stored, so a backtest on it is refused until `signaldesk candles fetch --symbols BTCUSDT --from 2026-11-01 --to 2026-11-02` stores Bybit's"),
            "{stdout}"
        );
        assert!(
            stderr.contains(&format!("BTCUSDT: reading {csv_arg}"))
                && stderr.contains("BTCUSDT: 2870 of 2870 candles"),
            "{stderr}"
        );

        let (ok, stdout, _) = import(dir.path(), &db.url, &["--file", csv_arg]);
        assert!(ok);
        assert!(
            stdout.contains("0 stored new, 2870 already stored, 0 replaced: nothing new to store"),
            "{}: {stdout}",
            db.label
        );

        let unnamed = dir.path().join("mine.csv");
        std::fs::write(
            &unnamed,
            "time,open,high,low,close,volume\n1793491200,10,12,9,11,1\n1793491260,10,9,8,11,1\n",
        )
        .unwrap();
        let unnamed_arg = unnamed.to_str().unwrap();
        let (ok, _, stderr) = import(dir.path(), &db.url, &["--file", unnamed_arg]);
        assert!(
            !ok && stderr.contains("name the symbol with --symbol"),
            "{stderr}"
        );
        let (ok, stdout, stderr) = import(
            dir.path(),
            &db.url,
            &["--file", unnamed_arg, "--symbol", "solusdt"],
        );
        assert!(!ok, "{stdout}");
        assert!(
            stderr.contains(&format!(
                "error: {unnamed_arg}: line 3: high 9 is below the open 10 or the close 11"
            )),
            "{stderr}"
        );
        let (ok, _, stderr) = import(
            dir.path(),
            &db.url,
            &["--file", unnamed_arg, "--symbol", "SOL/USDT"],
        );
        assert!(
            !ok && stderr.contains("not a symbol: \"SOL/USDT\""),
            "{stderr}"
        );

        let futures = dir.path().join("freqtrade").join("futures");
        std::fs::create_dir_all(&futures).unwrap();
        std::fs::write(
            futures.join("ETH_USDT_USDT-1m-futures.json"),
            "[[1793491260000,2000.5,2001.0,1999.25,2000.75,3.5],[1793491200000,2000.0,2000.5,1999.5,2000.5,1.0]]",
        )
        .unwrap();
        std::fs::write(futures.join("ETH_USDT_USDT-1h-mark.json"), "[]").unwrap();
        let freqtrade = dir.path().join("freqtrade");
        let (ok, stdout, stderr) = import(
            dir.path(),
            &db.url,
            &["--freqtrade", freqtrade.to_str().unwrap()],
        );
        assert!(ok, "{stderr}");
        assert!(
            stdout.contains("ETH_USDT_USDT-1h-mark.json: skipped, mark candles")
                && stdout.contains("ETHUSDT: 2 candles read from 2026-11-01T00:00:00Z to 2026-11-01T00:01:00Z, 2 stored new"),
            "{stdout}"
        );
        // The refused file stored nothing, not even its good first line.
        std::fs::write(
            &unnamed,
            "time,open,high,low,close,volume\n1793491200,10,12,9,11,1\n1793491260,10,12,8,11,1\n",
        )
        .unwrap();
        let (ok, stdout, _) = import(
            dir.path(),
            &db.url,
            &["--file", unnamed_arg, "--symbol", "SOLUSDT"],
        );
        assert!(
            ok && stdout.contains("2 stored new, 0 already stored"),
            "{stdout}"
        );

        // A backtest of the second imported day and the next: not covered.
        let user = create_user_command(dir.path(), "trader")
            .env("SIGNALDESK_DATABASE_URL", &db.url)
            .output()
            .unwrap();
        assert!(
            user.status.success(),
            "{}",
            String::from_utf8_lossy(&user.stderr)
        );
        let refused = signaldesk(dir.path())
            .env("SIGNALDESK_DATABASE_URL", &db.url)
            .args([
                "backtest",
                "--username",
                "trader",
                "--from",
                "2026-11-02",
                "--to",
                "2026-11-03",
                "--symbols",
                "BTCUSDT",
                "--data",
                "bybit",
            ])
            .output()
            .unwrap();
        assert!(!refused.status.success());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("The stored Bybit candles do not cover the period for BTCUSDT"),
            "{}: {stderr}",
            db.label
        );
    }
}
