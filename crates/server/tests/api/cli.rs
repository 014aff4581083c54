//! The real `signaldesk` binary: user commands, the first-start admin, graceful shutdown.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_signaldesk");

pub fn signaldesk(dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(
            "SIGNALDESK_DATABASE_URL",
            format!("sqlite://{}/sd.db", dir.display()),
        )
        .env("SIGNALDESK_DATA_DIR", dir)
        .current_dir(dir);
    cmd
}

/// `signaldesk user create` of `username` (password "secret-pass-1") in `dir`.
pub fn create_user(dir: &std::path::Path, username: &str) -> std::process::Output {
    create_user_command(dir, username).output().unwrap()
}

/// The command of [`create_user`], to run on another database (`SIGNALDESK_DATABASE_URL`).
pub fn create_user_command(dir: &std::path::Path, username: &str) -> Command {
    let mut cmd = signaldesk(dir);
    cmd.args([
        "user",
        "create",
        "--username",
        username,
        "--password",
        "secret-pass-1",
    ]);
    cmd
}

#[test]
fn user_create_then_duplicate_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = create_user(dir.path(), "trader");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = create_user(dir.path(), "trader");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    let reset = signaldesk(dir.path())
        .args([
            "user",
            "set-password",
            "--username",
            "trader",
            "--password",
            "another-pass-2",
        ])
        .output()
        .unwrap();
    assert!(reset.status.success());
    let missing = signaldesk(dir.path())
        .args([
            "user",
            "set-password",
            "--username",
            "ghost",
            "--password",
            "another-pass-2",
        ])
        .output()
        .unwrap();
    assert!(!missing.status.success());
}

pub type Lines = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// Starts `serve` on a free port, logging at trace level; returns the child, its address,
/// the stdout lines so far and every stderr (log) line as it arrives.
fn start_serve(dir: &std::path::Path) -> (std::process::Child, String, Vec<String>, Lines) {
    start_serve_with(dir, &[])
}

/// `start_serve` with extra environment variables.
pub fn start_serve_with(
    dir: &std::path::Path,
    env: &[(&str, &str)],
) -> (std::process::Child, String, Vec<String>, Lines) {
    start_serve_args(dir, env, &[])
}

/// `start_serve_with` and extra command-line arguments.
pub fn start_serve_args(
    dir: &std::path::Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> (std::process::Child, String, Vec<String>, Lines) {
    let mut child = signaldesk(dir)
        .envs(env.iter().copied())
        .env("RUST_LOG", "trace")
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let log: Lines = Default::default();
    let log_writer = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("serving on http://").nth(1) {
                // The address ends the text line; in a JSON line a quote follows it.
                let addr: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || ".:[]".contains(*c))
                    .collect();
                let _ = tx.send(addr);
            }
            log_writer.lock().unwrap().push(line);
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("server announced its address");
    let stdout = child.stdout.take().unwrap();
    let mut lines = Vec::new();
    let (ltx, lrx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = ltx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_millis(500);
    while let Ok(line) = lrx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        lines.push(line);
    }
    (child, addr, lines, log)
}

fn sigterm_and_wait(mut child: std::process::Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("server did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn first_start_prints_admin_password_once_and_sigterm_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (child, addr, lines, log) = start_serve(dir.path());
    let password = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("password: "))
        .expect("admin password printed")
        .to_string();
    let login = reqwest::Client::new()
        .post(format!("http://{addr}/api/auth/login/"))
        .json(&json!({"username": "admin", "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), reqwest::StatusCode::OK);
    let token = login.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let created = reqwest::Client::new()
        .post(format!("http://{addr}/api/api-keys/"))
        .header("Authorization", format!("Token {token}"))
        .json(&json!({"key": "VISIBLE-KEY-77", "secret": "HIDDEN-SECRET-88", "is_demo": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), reqwest::StatusCode::CREATED);
    assert!(
        sigterm_and_wait(child).success(),
        "graceful shutdown exits 0"
    );
    let log = log.lock().unwrap().join("\n");
    assert!(log.contains("API key added"), "the trace log was captured");
    for secret in [
        "HIDDEN-SECRET-88",
        "VISIBLE-KEY-77",
        password.as_str(),
        token.as_str(),
    ] {
        assert!(!log.contains(secret), "a secret reached the log");
    }

    let (child, _, lines, _) = start_serve(dir.path());
    assert!(
        !lines.iter().any(|l| l.contains("password:")),
        "the password is printed only on the first start"
    );
    assert!(sigterm_and_wait(child).success());
}

/// A log written to a file or a pipe: no ANSI colour codes; `--log-format json` (or
/// `SIGNALDESK_LOG_FORMAT=json`) writes one JSON object a line.
#[tokio::test]
async fn piped_logs_have_no_colour_codes_and_json_lines_parse() {
    // (environment, extra arguments, json expected)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], bool);
    let cases: [Case; 3] = [
        (&[], &[], false),
        (&[("SIGNALDESK_LOG_FORMAT", "json")], &[], true),
        (&[], &["--log-format", "json"], true),
    ];
    for (env, args, json) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (child, addr, _, log) = start_serve_args(dir.path(), env, args);
        let health = reqwest::get(format!("http://{addr}/healthz"))
            .await
            .unwrap();
        assert_eq!(health.status(), reqwest::StatusCode::OK);
        assert!(sigterm_and_wait(child).success());
        let log = log.lock().unwrap().clone();
        assert!(log.len() > 3, "the trace log was captured: {log:?}");
        for line in &log {
            assert!(
                !line.contains("\u{1b}["),
                "a colour code in a piped log: {line:?}"
            );
        }
        if json {
            let mut serving = false;
            for line in &log {
                let value: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                assert!(value["level"].is_string(), "{line}");
                assert!(value["timestamp"].is_string(), "{line}");
                assert!(value["fields"].is_object(), "{line}");
                let message = value["fields"]["message"].as_str().unwrap_or("");
                serving |= message.starts_with("Signal Desk is serving on http://");
            }
            assert!(serving, "the start line is among the JSON lines");
        } else {
            assert!(
                serde_json::from_str::<serde_json::Value>(&log[0]).is_err(),
                "text by default: {}",
                log[0]
            );
        }
    }
}

#[test]
fn an_unknown_log_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = signaldesk(dir.path())
        .args(["--log-format", "xml", "serve"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--log-format"), "{stderr}");
    assert!(
        stderr.contains("text") && stderr.contains("json"),
        "{stderr}"
    );
}
