//! Two instances on one PostgreSQL database (issue 18): instance A runs the traders' bots
//! (the paper user's and the Bybit user's), B waits; A is SIGKILLed in the middle of the
//! bots' work and B must own every bot within 15 s; A comes back as the standby, and the
//! next round kills whichever owns the paper user's bot. At the end both stop gracefully and
//! `signaldesk audit` must find no difference; the fence log (every order, stop change and
//! leverage change with the tenure it was sent under) must show that no two instances ever
//! acted for one bot at once.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rand::Rng;
use sqlx::{Connection, PgConnection, PgPool, Row};

use super::{Moment, Run, QUIET, READY_TIMEOUT};
use crate::alerts::Burst;
use crate::process::{Server, Signaldesk};
use crate::wait;

/// The bound on a takeover after the owner died.
pub const TAKEOVER_BOUND: Duration = Duration::from_secs(15);

/// What the failover rounds found.
#[derive(Debug, Default, Clone)]
pub struct FailoverReport {
    /// Time from each SIGKILL of the owner to the other instance holding every bot's lease.
    pub takeovers: Vec<Duration>,
    pub fences: FenceFindings,
}

impl FailoverReport {
    pub fn clean(&self) -> bool {
        self.fences.violations == 0 && self.takeovers.iter().all(|t| *t <= TAKEOVER_BOUND)
    }
}

/// The fence log read in the order it was written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FenceFindings {
    /// Orders, stop and leverage changes recorded.
    pub actions: usize,
    /// Tenures that acted.
    pub tenures: usize,
    /// Actions under a tenure older than one that had already acted, or tenures claimed by
    /// two processes: each is two instances acting for one bot.
    pub violations: usize,
}

/// Reads `(user, token, owner)` rows in the order they were written, each user's bot on its
/// own (tokens count one user's tenures).
pub fn check_all_fences(entries: &[(i64, i64, String)]) -> FenceFindings {
    let mut users: Vec<i64> = entries.iter().map(|(u, _, _)| *u).collect();
    users.sort_unstable();
    users.dedup();
    let mut all = FenceFindings::default();
    for user in users {
        let own: Vec<(i64, String)> = entries
            .iter()
            .filter(|(u, _, _)| *u == user)
            .map(|(_, t, o)| (*t, o.clone()))
            .collect();
        let found = check_fences(&own);
        all.actions += found.actions;
        all.tenures += found.tenures;
        all.violations += found.violations;
    }
    all
}

/// Reads one bot's `(token, owner)` pairs in the order they were written.
pub fn check_fences(entries: &[(i64, String)]) -> FenceFindings {
    let mut findings = FenceFindings::default();
    let mut newest: Option<(i64, &str)> = None;
    for (token, owner) in entries {
        findings.actions += 1;
        match newest {
            Some((t, o)) if *token == t && owner != o => findings.violations += 1,
            Some((t, _)) if *token < t => findings.violations += 1,
            Some((t, _)) if *token == t => {}
            _ => {
                findings.tenures += 1;
                newest = Some((*token, owner));
            }
        }
    }
    findings
}

/// One of the two instances: its configuration and, while it runs, its server.
struct Instance {
    name: &'static str,
    signaldesk: Signaldesk,
    server: Option<Server>,
}

impl<'a> Run<'a> {
    /// The failover rounds, then the graceful stop, the audit and the fence check.
    pub(super) async fn failover(&mut self, universe: &[String], dir: &Path) -> anyhow::Result<()> {
        let mut instances = [
            self.instance("a", &dir.join("data"))?,
            self.instance("b", &dir.join("data-b"))?,
        ];
        // B shares A's master key and simulated market (docs/deploy.md).
        std::fs::create_dir_all(dir.join("data-b"))?;
        for file in ["master.key", "market.json"] {
            std::fs::copy(dir.join("data").join(file), dir.join("data-b").join(file))
                .with_context(|| format!("cannot copy {file} for instance b"))?;
        }
        for instance in &mut instances {
            let log = instance
                .signaldesk
                .log_path(&format!("failover-{}-start.log", instance.name));
            instance.server = Some(instance.signaldesk.serve(log).await?);
        }
        let mut owner = self.wait_for_owner(None).await?;
        self.say(format_args!(
            "two instances up; {} runs the bots; {} failovers to come",
            owner, self.options.failovers
        ));
        for round in 1..=self.options.failovers {
            let index = usize::from(owner != "a");
            let addr = instances[index]
                .server
                .as_ref()
                .map(|s| s.addr.clone())
                .context("the owner is not running")?;
            let burst = Burst::choose(&mut self.rng, universe, self.traders.len());
            let posting = tokio::spawn(burst.post(self.targets(&addr)));
            let moment = Moment::MidBurst {
                after: Duration::from_millis(self.rng.gen_range(0..400)),
            };
            if let Moment::MidBurst { after } = moment {
                tokio::time::sleep(after).await;
            }
            let killed = instances[index].server.take().context("no server")?;
            killed.sigkill().await?;
            let died = Instant::now();
            let tallies = posting.await?;
            self.add_alerts(&tallies);
            let next = self.wait_for_owner(Some(&owner)).await?;
            let took = died.elapsed();
            self.report.failover.takeovers.push(took);
            self.say(format_args!(
                "failover {round}/{}: {owner} SIGKILLed {moment}; {next} ran the bots {:.1} s later{}",
                self.options.failovers,
                took.as_secs_f64(),
                if took > TAKEOVER_BOUND { " (OVER 15 s)" } else { "" }
            ));
            // The survivor trades on; the dead one comes back as the standby.
            let survivor = &instances[1 - index];
            let survivor_addr = survivor
                .server
                .as_ref()
                .context("no survivor")?
                .addr
                .clone();
            let after = Burst::choose(&mut self.rng, universe, self.traders.len());
            let tallies = after.post(self.targets(&survivor_addr)).await;
            self.add_alerts(&tallies);
            let log = instances[index].signaldesk.log_path(&format!(
                "failover-{}-{round:02}.log",
                instances[index].name
            ));
            instances[index].server = Some(instances[index].signaldesk.serve(log).await?);
            owner = next;
        }
        tokio::time::sleep(self.options.settle()).await;
        self.bybit.pause();
        tokio::time::sleep(QUIET).await;
        // The standby first, so the owner's graceful stop is the last word on the books.
        instances.sort_by_key(|i| i.name == owner);
        for instance in &mut instances {
            if let Some(server) = instance.server.take() {
                server.terminate().await?;
            }
        }
        self.audit().await?;
        let fences = self.read_fences().await?;
        self.say(format_args!(
            "fence log: {} actions under {} tenures, {} overlaps",
            fences.actions, fences.tenures, fences.violations
        ));
        self.report.failover.fences = fences;
        Ok(())
    }

    fn instance(&self, name: &'static str, data_dir: &Path) -> anyhow::Result<Instance> {
        Ok(Instance {
            name,
            signaldesk: self.signaldesk.with_env(&[
                ("SIGNALDESK_MULTI_INSTANCE", "true".to_string()),
                ("SIGNALDESK_INSTANCE_ID", name.to_string()),
                ("SIGNALDESK_DATA_DIR", data_dir.display().to_string()),
            ])?,
            server: None,
        })
    }

    /// Waits until instances other than `not` hold a live lease on every trader's bot; the
    /// id of the one running the first trader's (the paper user's). The lease rows are read
    /// every `wait::POLL` (100 ms), so a takeover is timed to within that.
    async fn wait_for_owner(&self, not: Option<&str>) -> anyhow::Result<String> {
        let users: Vec<i64> = self.traders.iter().map(|t| t.user_id).collect();
        let pool = PgPool::connect(&self.database.url()).await?;
        let found = wait::until("instances running every bot", READY_TIMEOUT, || {
            let pool = pool.clone();
            let users = users.clone();
            async move {
                let rows = sqlx::query(
                    "SELECT user_id, instance FROM bot_leases
                     WHERE expires_at >= (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
                )
                .fetch_all(&pool)
                .await?;
                let holder = |user: i64| {
                    rows.iter()
                        .find(|r| r.get::<i64, _>("user_id") == user)
                        .map(|r| r.get::<String, _>("instance"))
                        .filter(|i| Some(i.as_str()) != not)
                };
                if users.iter().any(|u| holder(*u).is_none()) {
                    return Ok(None);
                }
                Ok(users.first().and_then(|u| holder(*u)))
            }
        })
        .await;
        pool.close().await;
        found
    }

    async fn read_fences(&self) -> anyhow::Result<FenceFindings> {
        let mut conn = PgConnection::connect(&self.database.url()).await?;
        let rows = sqlx::query("SELECT user_id, token, owner FROM lease_fences ORDER BY id")
            .fetch_all(&mut conn)
            .await?;
        conn.close().await?;
        let entries: Vec<(i64, i64, String)> = rows
            .iter()
            .map(|r| (r.get("user_id"), r.get("token"), r.get("owner")))
            .collect();
        for trader in &self.traders {
            if !entries.iter().any(|(u, _, _)| *u == trader.user_id) {
                bail!(
                    "the fence log holds nothing of {}: their bot sent no order, stop or leverage change",
                    trader.username
                );
            }
        }
        Ok(check_all_fences(&entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(entries: &[(i64, &str)]) -> Vec<(i64, String)> {
        entries.iter().map(|(t, o)| (*t, o.to_string())).collect()
    }

    #[test]
    fn tenures_one_after_another_are_clean() {
        let found = check_fences(&log(&[(1, "a#1"), (1, "a#1"), (2, "b#1"), (4, "a#2")]));
        assert_eq!(
            found,
            FenceFindings {
                actions: 4,
                tenures: 3,
                violations: 0
            }
        );
    }

    #[test]
    fn an_older_tenure_acting_after_a_newer_one_is_a_violation() {
        let found = check_fences(&log(&[(1, "a#1"), (2, "b#1"), (1, "a#1"), (2, "b#1")]));
        assert_eq!(found.violations, 1);
    }

    #[test]
    fn each_bot_has_its_own_tokens() {
        // User 2's tenure 1 acting after user 1's tenure 3 is no overlap.
        let entries = [(1, 3, "a#1"), (2, 1, "a#1"), (1, 4, "b#1"), (2, 2, "b#1")]
            .map(|(u, t, o)| (u, t, o.to_string()));
        let found = check_all_fences(&entries);
        assert_eq!(
            found,
            FenceFindings {
                actions: 4,
                tenures: 4,
                violations: 0
            }
        );
        let overlap =
            [(1, 3, "a#1"), (2, 1, "a#1"), (1, 2, "b#1")].map(|(u, t, o)| (u, t, o.to_string()));
        assert_eq!(check_all_fences(&overlap).violations, 1);
    }

    #[test]
    fn one_token_held_by_two_processes_is_a_violation() {
        let found = check_fences(&log(&[(3, "a#1"), (3, "b#1")]));
        assert_eq!(found.violations, 1);
    }
}
