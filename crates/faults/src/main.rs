//! `signaldesk-faults`: the fault-injection harness (`make faults`, part of `make test`).
//!
//! It drives the real `signaldesk` binary the way a trader's machine would fail it. On
//! SQLite (a database file on a small tmpfs of its own) and on PostgreSQL (a database of its
//! own, created and dropped by the harness), with the simulated market at speed 180 and a
//! paper bot forced by TradingView alerts into many entries across many symbols, it
//!
//! * SIGKILLs the server at seeded random moments, some in the middle of a burst of alerts,
//!   and after each kill restarts it on the same files, lets it run, stops it gracefully and
//!   runs `signaldesk audit`, which must find the books equal to the paper account;
//! * takes the database away for 30 s while alerts keep coming (PostgreSQL: connections
//!   refused and cut; SQLite: the disk is full), gives it back, lets the bot run on, stops
//!   and audits again.
//!
//! It prints the seed, every fault, and the figures (faults injected, alerts, trades at the
//! end, audit differences per run), and exits non-zero if any audit found a difference or
//! anything failed. Every wait is bounded. docs/reliability.md ("Faults") describes it.

mod alerts;
mod api;
mod audit;
mod database;
mod options;
mod process;
mod report;
mod scenario;
mod wait;

use std::process::ExitCode;

use clap::Parser;

use crate::options::Options;

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    match run(options).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("signaldesk-faults: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the scenario on every selected backend; `Ok(false)` when an audit found differences.
async fn run(options: Options) -> anyhow::Result<bool> {
    let seed = options.seed();
    println!("signaldesk-faults: seed {seed} (repeat with --seed {seed})");
    let backends = options.backends()?;
    let mut reports = Vec::new();
    for (i, backend) in backends.iter().enumerate() {
        let report = scenario::run(&options, backend, seed.wrapping_add(i as u64)).await?;
        reports.push(report);
    }
    report::print_summary(&reports);
    Ok(reports.iter().all(report::Report::clean))
}
