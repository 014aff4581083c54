//! Password hashing with argon2id, off the async threads (one hash takes tens of ms), at most
//! [`hashing_limit`] at a time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

pub const MIN_PASSWORD_LEN: usize = 8;
pub const MAX_PASSWORD_LEN: usize = 256;

/// Checks a new password; returns the sentence to show when it is refused.
pub fn check_new_password(password: &str) -> Result<(), String> {
    let len = password.chars().count();
    if len < MIN_PASSWORD_LEN {
        return Err(format!(
            "Password must be at least {MIN_PASSWORD_LEN} characters."
        ));
    }
    if len > MAX_PASSWORD_LEN {
        return Err(format!(
            "Password must be at most {MAX_PASSWORD_LEN} characters."
        ));
    }
    Ok(())
}

/// Checks a new username: 1 to 150 letters, digits and `@ . + - _` (Django's rule).
pub fn check_username(username: &str) -> Result<(), String> {
    let valid_chars = username
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '@' | '.' | '+' | '-' | '_'));
    if username.is_empty() || username.chars().count() > 150 || !valid_chars {
        return Err("Username must be 1 to 150 letters, digits or @ . + - _ characters.".into());
    }
    Ok(())
}

pub fn hash_blocking(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

/// How many argon2 computations run at once: one per core, each on one of that many
/// long-lived threads (the others wait in their queue). Each takes 19 MiB (argon2's default
/// memory cost) and a core for tens of ms, so more at once only adds memory. On
/// `spawn_blocking`, every concurrent login had a thread and 19 MiB of its own (a burst could
/// ask for 512 × 19 MiB), and after the first freed block glibc raised its mmap threshold to
/// 19 MiB and served the next ones from the arenas of whichever threads came and went, never
/// returning them: 1,000 logins in 30 s left the server at 2 GB of RSS, and at 360 MB with the
/// hashes bounded but still on changing threads; on a few fixed threads, about 200 MB whatever
/// the number of logins (docs/benchmarks.md, "Many users").
pub fn hashing_limit() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

type Job = Box<dyn FnOnce() + Send>;

/// The queue of the hashing threads, started on first use.
fn hashing_queue() -> &'static std::sync::mpsc::Sender<Job> {
    static QUEUE: OnceLock<std::sync::mpsc::Sender<Job>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let receiver = std::sync::Arc::new(std::sync::Mutex::new(receiver));
        for i in 0..hashing_limit() {
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = match receiver.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    match job {
                        // A panic fails that one job (its answer is dropped), not the thread.
                        Ok(job) => {
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        }
                        Err(_) => return,
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a password hashing thread");
            }
        }
        sender
    })
}

static HASHING: AtomicUsize = AtomicUsize::new(0);
/// The most argon2 computations seen running at once (the tests read it).
static MOST_HASHING: AtomicUsize = AtomicUsize::new(0);

/// Runs `work` (an argon2 computation) on a hashing thread; `None` if it could not run.
async fn limited<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let now = HASHING.fetch_add(1, Ordering::SeqCst) + 1;
        MOST_HASHING.fetch_max(now, Ordering::SeqCst);
        let out = work();
        HASHING.fetch_sub(1, Ordering::SeqCst);
        let _ = answer.send(out);
    });
    hashing_queue().send(job).ok()?;
    answered.await.ok()
}

pub async fn hash(password: String) -> Result<String, String> {
    limited(move || hash_blocking(&password).map_err(|e| e.to_string()))
        .await
        .unwrap_or_else(|| Err("the hashing task failed".into()))
}

/// Verifies a password against a stored hash. With no stored hash (unknown user) it still
/// spends the same work on a fixed hash, so timing does not reveal whether a username exists.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    limited(move || {
        let known = stored.is_some();
        let stored = match stored {
            Some(hash) => hash,
            None => dummy_hash().to_string(),
        };
        let Ok(parsed) = PasswordHash::new(&stored) else {
            return false;
        };
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        ok && known
    })
    .await
    .unwrap_or(false)
}

/// argon2id of a random password nobody knows, made once with the default parameters.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking(&crate::auth::secrets::new_secret()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hash_then_verify() {
        let h = hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse".into(), Some(h.clone())).await);
        assert!(!verify("wrong horse".into(), Some(h)).await);
        assert!(!verify("anything".into(), None).await);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn no_more_hashes_run_at_once_than_the_limit() {
        let stored = hash("correct horse".into()).await.unwrap();
        let logins = (0..hashing_limit() * 4 + 2).map(|i| {
            let stored = stored.clone();
            tokio::spawn(async move { verify(format!("guess {i}"), Some(stored)).await })
        });
        for login in futures::future::join_all(logins).await {
            assert!(!login.unwrap());
        }
        let most = MOST_HASHING.load(Ordering::SeqCst);
        assert!(most >= 1);
        assert!(
            most <= hashing_limit(),
            "{most} hashes ran at once, the limit is {}",
            hashing_limit()
        );
    }

    #[test]
    fn dummy_hash_parses() {
        assert!(PasswordHash::new(dummy_hash()).is_ok());
    }

    #[test]
    fn password_and_username_rules() {
        assert!(check_new_password("1234567").is_err());
        assert!(check_new_password("12345678").is_ok());
        assert!(check_username("").is_err());
        assert!(check_username("bad name").is_err());
        assert!(check_username("trader.one+bot@x").is_ok());
    }
}
