//! The `signaldesk` binary as the harness runs it: one command line and environment for
//! every subcommand (so `serve` and `audit` read the same configuration), and a running
//! `serve` that can be SIGKILLed or stopped gracefully with SIGTERM.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output, Stdio};
use std::time::Duration;

use anyhow::{bail, Context};
use rustix::process::{kill_process, Pid, Signal};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// How long a server may take to announce its address (debug build, market replay).
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a graceful stop may take.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// What `serve` logs once it accepts connections.
const SERVING: &str = "serving on http://";

/// The binary with the environment of one scenario.
pub struct Signaldesk {
    bin: PathBuf,
    env: Vec<(String, String)>,
    /// Working directory of every run; logs go to `logs/` inside it.
    dir: PathBuf,
}

impl Signaldesk {
    pub fn new(bin: &Path, env: Vec<(String, String)>, dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir.join("logs"))?;
        Ok(Signaldesk {
            bin: bin.to_path_buf(),
            env,
            dir: dir.to_path_buf(),
        })
    }

    /// The same binary and folder with some variables set otherwise (a second instance).
    pub fn with_env(&self, overrides: &[(&str, String)]) -> anyhow::Result<Signaldesk> {
        let mut env: Vec<(String, String)> = self
            .env
            .iter()
            .filter(|(k, _)| overrides.iter().all(|(o, _)| o != k))
            .cloned()
            .collect();
        env.extend(overrides.iter().map(|(k, v)| (k.to_string(), v.clone())));
        Signaldesk::new(&self.bin, env, &self.dir)
    }

    /// A log file in the scenario's `logs/` folder.
    pub fn log_path(&self, name: &str) -> PathBuf {
        self.dir.join("logs").join(name)
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// Runs a subcommand to its end (at most `timeout`) and returns what it printed.
    pub async fn run(&self, args: &[&str], timeout: Duration) -> anyhow::Result<Output> {
        let child = self
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run {}", self.bin.display()))?;
        tokio::time::timeout(timeout, child.wait_with_output())
            .await
            .with_context(|| {
                format!(
                    "`signaldesk {}` ran longer than {timeout:?}",
                    args.join(" ")
                )
            })?
            .context("signaldesk")
    }

    /// Starts `signaldesk serve` on a free loopback port, its output in `log`, and waits
    /// until it serves.
    pub async fn serve(&self, log: PathBuf) -> anyhow::Result<Server> {
        let mut child = self
            .command()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", self.bin.display()))?;
        let (addr_tx, addr_rx) = oneshot::channel();
        copy_output(&mut child, &log, addr_tx).await?;
        let addr = tokio::select! {
            addr = tokio::time::timeout(START_TIMEOUT, addr_rx) => match addr {
                Ok(Ok(addr)) => addr,
                Ok(Err(_)) => bail!("the server closed its output before serving (log: {})", log.display()),
                Err(_) => bail!("the server did not serve within {START_TIMEOUT:?} (log: {})", log.display()),
            },
            status = child.wait() => bail!("the server exited before serving ({}; log: {})", describe(status?), log.display()),
        };
        Ok(Server { child, addr, log })
    }
}

/// Copies the child's stdout and stderr into `log`, sending the address once `serve`
/// announces it.
async fn copy_output(
    child: &mut Child,
    log: &Path,
    addr_tx: oneshot::Sender<String>,
) -> anyhow::Result<()> {
    let file = tokio::fs::File::create(log)
        .await
        .with_context(|| format!("cannot create {}", log.display()))?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut addr_tx = Some(addr_tx);
    let stdout = child.stdout.take().context("no stdout")?;
    let stderr = child.stderr.take().context("no stderr")?;
    for stream in [
        Box::new(stdout) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
        Box::new(stderr),
    ] {
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stream).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    tokio::spawn(async move {
        let mut file = tokio::io::BufWriter::new(file);
        while let Some(line) = rx.recv().await {
            if let Some(rest) = line.split(SERVING).nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or_default();
                if let Some(tx) = addr_tx.take() {
                    let _ = tx.send(addr.to_string());
                }
            }
            let _ = file.write_all(line.as_bytes()).await;
            let _ = file.write_all(b"\n").await;
            let _ = file.flush().await;
        }
    });
    Ok(())
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => format!("{status}"),
    }
}

/// A running `signaldesk serve` (killed if dropped, so none outlives the harness).
pub struct Server {
    child: Child,
    pub addr: String,
    pub log: PathBuf,
}

impl Server {
    fn signal(&self, signal: Signal) -> anyhow::Result<()> {
        let pid = self
            .child
            .id()
            .and_then(|id| Pid::from_raw(id as i32))
            .context("the server has already exited")?;
        kill_process(pid, signal).context("cannot signal the server")
    }

    /// SIGKILL, then reaps the process.
    pub async fn sigkill(mut self) -> anyhow::Result<()> {
        self.signal(Signal::KILL)?;
        tokio::time::timeout(STOP_TIMEOUT, self.child.wait())
            .await
            .context("a SIGKILLed server did not go away")??;
        Ok(())
    }

    /// SIGTERM, then waits for a clean exit (exit code 0).
    pub async fn terminate(mut self) -> anyhow::Result<()> {
        if let Some(status) = self.child.try_wait()? {
            bail!(
                "the server had already exited ({}; log: {})",
                describe(status),
                self.log.display()
            );
        }
        self.signal(Signal::TERM)?;
        let status = tokio::time::timeout(STOP_TIMEOUT, self.child.wait())
            .await
            .with_context(|| {
                format!(
                    "the server did not stop within {STOP_TIMEOUT:?} of SIGTERM (log: {})",
                    self.log.display()
                )
            })??;
        if !status.success() {
            bail!(
                "the server stopped with {} after SIGTERM (log: {})",
                describe(status),
                self.log.display()
            );
        }
        Ok(())
    }
}
