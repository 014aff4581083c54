//! Two instances on one PostgreSQL database (issue 18): instance A runs the trader's bot, B
//! waits; A is SIGKILLed in the middle of the bot's work and B must own the bot within 15 s;
//! A comes back as the standby, and the next round kills whichever owns the bot. At the end
//! both stop gracefully and `signaldesk audit` must find no difference; the fence log (every
//! order, stop change and leverage change with the tenure it was sent under) must show that
//! no two instances ever acted for the bot at once.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rand::Rng;
use sqlx::{Connection, PgConnection, PgPool, Row};

use super::{Moment, Run, READY_TIMEOUT};
use crate::alerts::Burst;
use crate::api::Api;
use crate::process::{Server, Signaldesk};
use crate::wait;

/// The bound on a takeover after the owner died.
pub const TAKEOVER_BOUND: Duration = Duration::from_secs(15);

/// What the failover rounds found.
#[derive(Debug, Default, Clone)]
pub struct FailoverReport {
    /// Time from each SIGKILL of the owner to the other instance holding the lease.
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

/// Reads `(token, owner)` pairs in the order they were written.
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
    pub(super) async fn failover(
        &mut self,
        api: &Api,
        webhook: &str,
        universe: &[String],
        dir: &Path,
    ) -> anyhow::Result<()> {
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
            "two instances up; {} runs the bot; {} failovers to come",
            owner, self.options.failovers
        ));
        for round in 1..=self.options.failovers {
            let index = usize::from(owner != "a");
            let addr = instances[index]
                .server
                .as_ref()
                .map(|s| s.addr.clone())
                .context("the owner is not running")?;
            let burst = Burst::choose(&mut self.rng, universe);
            let posting = tokio::spawn(burst.post(api.at(&addr), webhook.to_string()));
            let moment = Moment::MidBurst {
                after: Duration::from_millis(self.rng.gen_range(0..400)),
            };
            if let Moment::MidBurst { after } = moment {
                tokio::time::sleep(after).await;
            }
            let killed = instances[index].server.take().context("no server")?;
            killed.sigkill().await?;
            let died = Instant::now();
            self.report.alerts.add(posting.await?);
            let next = self.wait_for_owner(Some(&owner)).await?;
            let took = died.elapsed();
            self.report.failover.takeovers.push(took);
            self.say(format_args!(
                "failover {round}/{}: {owner} SIGKILLed {moment}; {next} ran the bot {:.1} s later{}",
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
            let after = Burst::choose(&mut self.rng, universe);
            self.report.alerts.add(
                after
                    .post(api.at(&survivor_addr), webhook.to_string())
                    .await,
            );
            let log = instances[index].signaldesk.log_path(&format!(
                "failover-{}-{round:02}.log",
                instances[index].name
            ));
            instances[index].server = Some(instances[index].signaldesk.serve(log).await?);
            owner = next;
        }
        tokio::time::sleep(self.options.settle()).await;
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

    /// Waits until an instance other than `not` holds a live lease on the bot; its id. The
    /// lease row is read every `wait::POLL` (100 ms), so a takeover is timed to within that.
    async fn wait_for_owner(&self, not: Option<&str>) -> anyhow::Result<String> {
        let pool = PgPool::connect(&self.database.url()).await?;
        let found = wait::until("an instance running the bot", READY_TIMEOUT, || {
            let pool = pool.clone();
            async move {
                let row = sqlx::query(
                    "SELECT instance FROM bot_leases
                     WHERE expires_at >= (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
                )
                .fetch_optional(&pool)
                .await?;
                let instance: Option<String> = row.map(|r| r.get("instance"));
                Ok(instance.filter(|i| Some(i.as_str()) != not))
            }
        })
        .await;
        pool.close().await;
        found
    }

    async fn read_fences(&self) -> anyhow::Result<FenceFindings> {
        let mut conn = PgConnection::connect(&self.database.url()).await?;
        let rows = sqlx::query("SELECT token, owner FROM lease_fences ORDER BY id")
            .fetch_all(&mut conn)
            .await?;
        conn.close().await?;
        let entries: Vec<(i64, String)> = rows
            .iter()
            .map(|r| (r.get("token"), r.get("owner")))
            .collect();
        if entries.is_empty() {
            bail!("the fence log is empty: the bot sent no order in the failover rounds");
        }
        Ok(check_fences(&entries))
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
    fn one_token_held_by_two_processes_is_a_violation() {
        let found = check_fences(&log(&[(3, "a#1"), (3, "b#1")]));
        assert_eq!(found.violations, 1);
    }
}
