//! This process's instance id, registered in the database for as long as it runs (leased
//! ownership, `store::repo::instances`). Only the registered process of an id may take or
//! renew bot leases, so a second process started with an id in use is refused at start
//! instead of taking the first one's bots, and one that lost its registration (away past the
//! lease time while another started under its id) stops acting at its next round.

use std::path::Path;
use std::time::{Duration, Instant};

use signaldesk_store::{LeaseHolder, ProcessPlace, Registered, Store};

use crate::ownership::LeaseTiming;
use crate::EngineError;

/// This process: the host with its process namespace (two containers may share a host name
/// and process ids), and the process id.
pub fn this_process() -> ProcessPlace {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let namespace = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    ProcessPlace {
        host: format!("{host} {namespace}"),
        pid: i64::from(std::process::id()),
    }
}

/// Whether the registered process is known to be gone: on this host and namespace, with no
/// live process of its id (a killed child its parent has not reaped yet is a zombie, gone
/// too). Elsewhere nothing is known and its registration must run out.
fn is_gone(found: &Registered, here: &ProcessPlace) -> bool {
    if found.place.host != here.host || !Path::new("/proc/self/stat").exists() {
        return false;
    }
    let stat = Path::new("/proc")
        .join(found.place.pid.to_string())
        .join("stat");
    match std::fs::read_to_string(stat) {
        // `pid (comm) state …`: the state follows the last parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
        Err(_) => true,
    }
}

/// Registers `holder` for its instance id. A registration left by a dead process of the same
/// id on this host is taken at once; one from elsewhere is waited for until it runs out (a
/// lease time at most). An id still renewed by a live process is refused with a sentence
/// saying which process holds it and what to do.
pub async fn register(
    store: &Store,
    holder: &LeaseHolder,
    timing: &LeaseTiming,
) -> Result<(), EngineError> {
    let here = this_process();
    let give_up_at = Instant::now() + timing.ttl + timing.poll_every;
    loop {
        let Some(found) = store
            .register_instance(holder, &here, timing.ttl_ms())
            .await?
        else {
            return Ok(());
        };
        if is_gone(&found, &here) {
            if store
                .take_over_instance(holder, &here, &found.process, timing.ttl_ms())
                .await?
            {
                tracing::info!(
                    instance = %holder.instance,
                    previous_pid = found.place.pid,
                    "took over the instance id of a process that is gone"
                );
                return Ok(());
            }
            continue;
        }
        if Instant::now() >= give_up_at {
            return Err(EngineError::Config(in_use(&holder.instance, &found)));
        }
        tracing::info!(
            instance = %holder.instance,
            pid = found.place.pid,
            "the instance id is registered by another process: waiting for it to run out"
        );
        let wait = u64::try_from(found.expires_in_ms.clamp(100, 1000)).unwrap_or(1000);
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
}

/// Renews `holder`'s registration, or registers it again when it ran out and nobody took the
/// id; false while another process holds it (this one must not act: its lease renewals and
/// takes are refused by the database meanwhile).
pub async fn renew(store: &Store, holder: &LeaseHolder, timing: &LeaseTiming) -> bool {
    match store.renew_instance(holder, timing.ttl_ms()).await {
        Ok(true) => true,
        Ok(false) => match store
            .register_instance(holder, &this_process(), timing.ttl_ms())
            .await
        {
            Ok(None) => true,
            Ok(Some(found)) => {
                tracing::error!(
                    "{}; this process runs no bot until it is free",
                    in_use(&holder.instance, &found)
                );
                false
            }
            Err(_) => false,
        },
        Err(_) => false,
    }
}

fn in_use(instance: &str, found: &Registered) -> String {
    format!(
        "instance id \"{instance}\" is in use by another running process (pid {} on {}, seen {:.1} s ago): \
         give each process its own instance id (--instance-id, SIGNALDESK_INSTANCE_ID or instance_id in the config file)",
        found.place.pid,
        found.place.host.split(' ').next().unwrap_or_default(),
        found.seen_ms_ago as f64 / 1000.0
    )
}
