//! Bounded waiting: every wait in the harness has a deadline and names what it waited for.

use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::bail;

/// How often a condition is polled.
const POLL: Duration = Duration::from_millis(100);

/// Polls `check` until it gives `Some`, for at most `timeout`; the error says `what` never
/// happened (and the last error `check` gave, if any).
pub async fn until<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<Option<T>>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        let last_error = match check().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => None,
            Err(e) => Some(e),
        };
        if Instant::now() >= deadline {
            match last_error {
                Some(e) => bail!("{what} did not happen within {timeout:?}: {e:#}"),
                None => bail!("{what} did not happen within {timeout:?}"),
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
