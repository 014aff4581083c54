//! Running `signaldesk audit` (every user's account on their venue against the store: the
//! stored paper account, or the fake Bybit read live with the user's key) and reading its
//! verdict: exit 0 is "no differences", exit 1 with "error: the books differ from the venue"
//! is differences (one printed line each, `username: …`, then the total); anything else
//! (another `error:` line, another exit code, a missing `audit` subcommand) is a failure of
//! the run, never a pass.

use std::time::Duration;

use anyhow::{bail, Context};

use crate::process::Signaldesk;

/// What `signaldesk audit` says on stderr, exiting 1, when it printed differences: the
/// verdict the harness counts, not a failure of the run.
const DIFFERENCES_FOUND: &str = "error: the books differ from the venue";

/// An audit may take this long (it replays the simulated market like a start does).
const AUDIT_TIMEOUT: Duration = Duration::from_secs(180);

/// What one audit found.
#[derive(Debug, Clone)]
pub struct Audit {
    /// Lines the audit printed as differences (0 when it exited 0).
    pub differences: usize,
    /// Those lines (`username: difference`, and the total).
    pub lines: Vec<String>,
    /// Where its output was saved.
    pub log: std::path::PathBuf,
}

impl Audit {
    /// The differences the audit printed for `username`'s account.
    pub fn of_user(&self, username: &str) -> usize {
        let prefix = format!("{username}: ");
        self.lines.iter().filter(|l| l.starts_with(&prefix)).count()
    }
}

/// Runs the audit with the scenario's configuration; `name` names its log file.
pub async fn run(signaldesk: &Signaldesk, name: &str) -> anyhow::Result<Audit> {
    let output = signaldesk.run(&["audit"], AUDIT_TIMEOUT).await?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let log = signaldesk.log_path(&format!("{name}.log"));
    std::fs::write(&log, format!("{stdout}\n--- stderr ---\n{stderr}"))
        .with_context(|| format!("cannot write {}", log.display()))?;
    if stderr.contains("unrecognized subcommand") {
        bail!(
            "this signaldesk has no `audit` subcommand, so nothing can be checked \
             (build a signaldesk that has it; {})",
            log.display()
        );
    }
    // `signaldesk` reports a failure as `error: …` on stderr with exit code 1; differences
    // found are reported that way too, and are counted below.
    if let Some(error) = stderr
        .lines()
        .find(|l| l.starts_with("error:") && l.trim() != DIFFERENCES_FOUND)
    {
        bail!("`signaldesk audit` failed: {error} ({})", log.display());
    }
    match output.status.code() {
        Some(0) => Ok(Audit {
            differences: 0,
            lines: Vec::new(),
            log,
        }),
        Some(1) => {
            // One line per difference, then the total ("N difference(s)").
            let lines: Vec<String> = stdout
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.ends_with(" difference(s)"))
                .map(str::to_string)
                .collect();
            Ok(Audit {
                differences: lines.len().max(1),
                lines,
                log,
            })
        }
        _ => bail!(
            "`signaldesk audit` failed ({}): {}",
            output.status,
            stderr.trim()
        ),
    }
}
