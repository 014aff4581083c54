//! `signaldesk-faults`: the fault-injection harness (`make faults`, part of `make test`).
//!
//! It drives the real `signaldesk` binary the way a trader's machine would fail it. On
//! SQLite (a database file on a small tmpfs of its own) and on PostgreSQL (a database of its
//! own, created and dropped by the harness), one server process runs two users side by side:
//! a paper bot on the simulated market at speed 180, and a Bybit demo bot on a fake Bybit
//! running inside the harness (it outlives the server's deaths, as Bybit would; its prices
//! move a little all along). TradingView alerts for both, interleaved, force many entries
//! across many symbols. It
//!
//! * SIGKILLs the server at seeded random moments, some in the middle of a burst of alerts,
//!   and after each kill restarts it on the same files, lets it run, stops it gracefully and
//!   runs `signaldesk audit`, which must find every user's books equal to their account (the
//!   paper account, or the fake Bybit read live with the user's key), and checks that the
//!   fake holds exactly the Bybit user's booked orders and none of the paper user's;
//! * takes the database away for 30 s while alerts keep coming (PostgreSQL: connections
//!   refused and cut; SQLite: the disk is full), gives it back, lets the bots run on, stops
//!   and audits again.
//!
//! It prints the seed, every fault, and the figures (faults injected, alerts, trades, orders
//! on the fake, audit differences, per run and per user), and exits non-zero if any audit
//! found a difference or anything failed. Every wait is bounded. docs/reliability.md
//! ("Faults") describes it.

mod alerts;
mod api;
mod audit;
mod bybit;
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
