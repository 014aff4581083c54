//! The figures of a run, printed per database and in one summary table, then per user.

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
    /// Each user's figures: the paper user first, then the Bybit user.
    pub traders: Vec<TraderReport>,
    /// Difference lines of each audit, in order (the orders check's included).
    pub audit_differences: Vec<usize>,
    /// PostgreSQL: the failovers between two instances.
    pub failover: FailoverReport,
    /// Prices the fake Bybit moved.
    pub price_moves: u64,
    pub elapsed: Duration,
}

/// One user's figures.
#[derive(Debug, Default)]
pub struct TraderReport {
    pub username: &'static str,
    /// The account their key chooses.
    pub account: &'static str,
    pub alerts: Tally,
    /// Their trades when the outage's server stopped.
    pub trades: TradeCounts,
    /// Filled orders on the fake Bybit on this user's key at the last audit (always 0 for a
    /// paper user).
    pub fake_orders: usize,
    /// Executions (opening fills and closes) in this user's books at the last audit.
    pub booked_executions: usize,
    /// Their webhook alerts stored as signals at the last audit (at least those accepted).
    pub alerts_stored: usize,
    /// Differences found for this user over every audit.
    pub audit_differences: usize,
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

    fn alerts(&self) -> Tally {
        let mut all = Tally::default();
        for t in &self.traders {
            all.add(t.alerts);
        }
        all
    }

    fn trades(&self) -> TradeCounts {
        let mut all = TradeCounts::default();
        for t in &self.traders {
            all.open += t.trades.open;
            all.closed += t.trades.closed;
            all.pending += t.trades.pending;
            all.cancelled += t.trades.cancelled;
        }
        all
    }
}

pub fn print_summary(reports: &[Report]) {
    println!();
    println!("| database | seed | faults (SIGKILL + outage) | alerts accepted / not accepted | trades open / closed (pending, cancelled) | audits | audit differences | time |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in reports {
        let t = r.trades();
        let alerts = r.alerts();
        let differences: Vec<String> = r.audit_differences.iter().map(|d| d.to_string()).collect();
        println!(
            "| {} | {} | {} ({} + {}) | {} / {} | {} / {} ({}, {}) | {} | {} | {:.0} s |",
            r.backend,
            r.seed,
            r.faults(),
            r.kills,
            r.outages,
            alerts.accepted,
            alerts.refused,
            t.open,
            t.closed,
            t.pending,
            t.cancelled,
            r.audit_differences.len(),
            differences.join(" "),
            r.elapsed.as_secs_f64(),
        );
    }
    println!();
    println!("| database | user | account | alerts accepted / not accepted / stored | trades open / closed (pending, cancelled) | orders that reached the fake Bybit | executions in the books | audit differences |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in reports {
        for u in &r.traders {
            let t = &u.trades;
            println!(
                "| {} | {} | {} | {} / {} / {} | {} / {} ({}, {}) | {} | {} | {} |",
                r.backend,
                u.username,
                u.account,
                u.alerts.accepted,
                u.alerts.refused,
                u.alerts_stored,
                t.open,
                t.closed,
                t.pending,
                t.cancelled,
                u.fake_orders,
                u.booked_executions,
                u.audit_differences,
            );
        }
    }
    for r in reports {
        println!(
            "\n{}: the fake Bybit moved its prices {} times",
            r.backend, r.price_moves
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
