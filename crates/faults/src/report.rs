//! The figures of a run, printed per database and in one summary table.

use std::time::Duration;

use crate::alerts::Tally;
use crate::api::TradeCounts;
use crate::scenario::FailoverReport;

/// What one database's run did and found.
#[derive(Debug, Default)]
pub struct Report {
    pub backend: &'static str,
    pub seed: u64,
    pub kills: u32,
    pub outages: u32,
    pub alerts: Tally,
    /// The trades when the last server stopped.
    pub trades: TradeCounts,
    /// Difference lines of each audit, in order.
    pub audit_differences: Vec<usize>,
    /// PostgreSQL: the failovers between two instances.
    pub failover: FailoverReport,
    pub elapsed: Duration,
}

impl Report {
    /// No audit found a difference, every takeover was within its bound and no two
    /// instances ever acted for the bot at once.
    pub fn clean(&self) -> bool {
        self.audit_differences.iter().all(|&d| d == 0) && self.failover.clean()
    }

    fn faults(&self) -> u32 {
        self.kills + self.outages
    }
}

pub fn print_summary(reports: &[Report]) {
    println!();
    println!("| database | seed | faults (SIGKILL + outage) | alerts accepted / not accepted | trades open / closed (pending, cancelled) | audits | audit differences | time |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in reports {
        let t = &r.trades;
        let differences: Vec<String> = r.audit_differences.iter().map(|d| d.to_string()).collect();
        println!(
            "| {} | {} | {} ({} + {}) | {} / {} | {} / {} ({}, {}) | {} | {} | {:.0} s |",
            r.backend,
            r.seed,
            r.faults(),
            r.kills,
            r.outages,
            r.alerts.accepted,
            r.alerts.refused,
            t.open,
            t.closed,
            t.pending,
            t.cancelled,
            r.audit_differences.len(),
            differences.join(" "),
            r.elapsed.as_secs_f64(),
        );
    }
    for r in reports.iter().filter(|r| !r.failover.takeovers.is_empty()) {
        let takeovers: Vec<String> = r
            .failover
            .takeovers
            .iter()
            .map(|t| format!("{:.1}", t.as_secs_f64()))
            .collect();
        let f = &r.failover.fences;
        println!(
            "\n{} failovers: takeover after SIGKILL {} s (bound 15 s); fence log {} actions under {} tenures, {} overlaps",
            r.backend,
            takeovers.join(", "),
            f.actions,
            f.tenures,
            f.violations
        );
    }
    let verdict = if reports.iter().all(Report::clean) {
        "every audit found no differences; every failover was clean"
    } else {
        "AUDIT DIFFERENCES, A SLOW TAKEOVER OR AN OVERLAP FOUND"
    };
    println!("\nsignaldesk-faults: {verdict}");
}
