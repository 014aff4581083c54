//! Password hashing with argon2id, off the async threads (one hash takes tens of ms), at most
//! [`hashing_limit`] at a time, each hashing thread reusing one argon2 memory block.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, Salt, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

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

/// The argon2 memory of one hashing thread, reused by every computation it runs.
///
/// `Argon2::hash_password` (and so `verify_password`) allocates its memory block for every
/// computation: 19 MiB with the default parameters. glibc maps the first one and unmaps it
/// when freed, and from then on raises its mmap threshold to 19 MiB, so the next blocks, and
/// every other allocation below 19 MiB, come from its heaps, which keep freed memory: 1,000
/// logins left the server at 200 to 260 MB of RSS it never gave back (docs/benchmarks.md,
/// "Many users"). A block allocated once per thread and never freed is mapped once and never
/// moves the threshold. Memory stays bounded: only the [`hashing_limit`] threads of
/// [`hashing_queue`] own one, and they live as long as the process, so at most that many
/// blocks of the default size (19 MiB each) are ever kept.
#[derive(Default)]
pub(crate) struct Memory(Vec<Block>);

impl Memory {
    /// The most blocks kept: what the default parameters (those of every hash this server
    /// makes) need.
    const MAX_KEPT: usize = Params::DEFAULT.block_count();

    /// Runs `f` on `count` blocks: the kept ones, grown on first use. A stored hash asking for
    /// more than the default (one this server did not make) gets blocks of its own, freed after,
    /// so nothing above [`Memory::MAX_KEPT`] is kept.
    fn with_blocks<R>(&mut self, count: usize, f: impl FnOnce(&mut [Block]) -> R) -> R {
        if count > Self::MAX_KEPT {
            return f(&mut vec![Block::default(); count]);
        }
        if self.0.len() < count {
            self.0.resize(count, Block::default());
        }
        // No need to clear: argon2 writes every block before it reads it.
        f(&mut self.0[..count])
    }
}

/// One argon2 computation of `out_len` bytes into `memory`: what `Argon2::hash_password` does,
/// without allocating the memory block.
fn compute(
    argon2: &Argon2<'_>,
    password: &[u8],
    salt: Salt<'_>,
    out_len: usize,
    memory: &mut Memory,
) -> argon2::password_hash::Result<Output> {
    let mut salt_buf = [0u8; Salt::MAX_LENGTH];
    let salt = salt.decode_b64(&mut salt_buf)?;
    let count = argon2.params().block_count();
    Output::init_with(out_len, |out| {
        memory.with_blocks(count, |blocks| {
            Ok(argon2.hash_password_into_with_memory(password, salt, out, blocks)?)
        })
    })
}

/// A new hash in the PHC format, `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`: exactly what
/// `Argon2::default().hash_password` makes for the same salt.
fn hash_with_salt(
    password: &str,
    salt: Salt<'_>,
    memory: &mut Memory,
) -> argon2::password_hash::Result<String> {
    let (algorithm, version, params) =
        (Algorithm::default(), Version::default(), Params::default());
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let out_len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    let hash = compute(&argon2, password.as_bytes(), salt, out_len, memory)?;
    Ok(PasswordHash {
        algorithm: algorithm.ident(),
        version: Some(version.into()),
        params: ParamsString::try_from(&params)?,
        salt: Some(salt),
        hash: Some(hash),
    }
    .to_string())
}

fn hash_blocking(
    password: &str,
    memory: &mut Memory,
) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    hash_with_salt(password, salt.as_salt(), memory)
}

/// Whether `password` matches a stored PHC hash: what `Argon2::default().verify_password`
/// does (the stored hash's algorithm, version, parameters, salt and length), without
/// allocating the memory block. The comparison is `Output`'s, in constant time.
fn verify_blocking(password: &str, stored: &PasswordHash<'_>, memory: &mut Memory) -> bool {
    let (Some(salt), Some(expected)) = (stored.salt, stored.hash.as_ref()) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(stored.algorithm) else {
        return false;
    };
    let version = match stored.version.map(Version::try_from).transpose() {
        Ok(version) => version.unwrap_or_default(),
        Err(_) => return false,
    };
    // The parameters named in the hash, and its length as the output length.
    let Ok(params) = Params::try_from(stored) else {
        return false;
    };
    let argon2 = Argon2::new(algorithm, version, params);
    match compute(&argon2, password.as_bytes(), salt, expected.len(), memory) {
        Ok(computed) => computed == *expected,
        Err(_) => false,
    }
}

/// How many argon2 computations run at once: one per core, each on one of that many
/// long-lived threads (the others wait in their queue). Each takes 19 MiB (argon2's default
/// memory cost) and a core for tens of ms, so more at once only adds memory. On
/// `spawn_blocking`, every concurrent login had a thread and 19 MiB of its own (a burst could
/// ask for 512 × 19 MiB), and after the first freed block glibc raised its mmap threshold to
/// 19 MiB and served the next ones from the arenas of whichever threads came and went, never
/// returning them: 1,000 logins in 30 s left the server at 2 GB of RSS, and at 360 MB with the
/// hashes bounded but still on changing threads; on a few fixed threads, about 200 MB whatever
/// the number of logins (docs/benchmarks.md, "Many users"). Now each of these threads keeps
/// one block for all its hashes ([`Memory`]): at most this many blocks, ever.
pub fn hashing_limit() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Work for a hashing thread, given that thread's argon2 memory.
type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// The queue of the hashing threads, started on first use. Each owns one [`Memory`].
fn hashing_queue() -> &'static std::sync::mpsc::Sender<Job> {
    static QUEUE: OnceLock<std::sync::mpsc::Sender<Job>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let receiver = std::sync::Arc::new(std::sync::Mutex::new(receiver));
        for i in 0..hashing_limit() {
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || {
                    let mut memory = Memory::default();
                    loop {
                        let job = match receiver.lock() {
                            Ok(queue) => queue.recv(),
                            Err(_) => return,
                        };
                        match job {
                            // A panic fails that one job (its answer is dropped), not the
                            // thread; the memory's content is overwritten by the next hash.
                            Ok(job) => {
                                let _ =
                                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                        job(&mut memory)
                                    }));
                            }
                            Err(_) => return,
                        }
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
async fn limited<T: Send + 'static>(
    work: impl FnOnce(&mut Memory) -> T + Send + 'static,
) -> Option<T> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move |memory| {
        let now = HASHING.fetch_add(1, Ordering::SeqCst) + 1;
        MOST_HASHING.fetch_max(now, Ordering::SeqCst);
        let out = work(memory);
        HASHING.fetch_sub(1, Ordering::SeqCst);
        let _ = answer.send(out);
    });
    hashing_queue().send(job).ok()?;
    answered.await.ok()
}

pub async fn hash(password: String) -> Result<String, String> {
    limited(move |memory| hash_blocking(&password, memory).map_err(|e| e.to_string()))
        .await
        .unwrap_or_else(|| Err("the hashing task failed".into()))
}

/// Verifies a password against a stored hash. With no stored hash (unknown user) it still
/// spends the same work on a fixed hash, so timing does not reveal whether a username exists.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    limited(move |memory| {
        let known = stored.is_some();
        let stored = match stored {
            Some(hash) => hash,
            None => dummy_hash(memory).to_string(),
        };
        let Ok(parsed) = PasswordHash::new(&stored) else {
            return false;
        };
        let ok = verify_blocking(&password, &parsed, memory);
        ok && known
    })
    .await
    .unwrap_or(false)
}

/// argon2id of a random password nobody knows, made once with the default parameters.
fn dummy_hash(memory: &mut Memory) -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_blocking(&crate::auth::secrets::new_secret(), memory).unwrap_or_default()
    })
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

    /// A hash made by the standard path, `Argon2::default().hash_password`, as the server made
    /// them before it reused its memory.
    fn standard_hash(password: &str) -> String {
        use argon2::password_hash::PasswordHasher;
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .unwrap()
            .to_string()
    }

    #[test]
    fn new_hashes_are_the_standard_ones() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let salt = SaltString::from_b64("c29tZXNhbHRzb21lc2FsdA").unwrap();
        let standard = Argon2::default()
            .hash_password(b"correct horse", &salt)
            .unwrap()
            .to_string();
        let mut memory = Memory::default();
        let ours = hash_with_salt("correct horse", salt.as_salt(), &mut memory).unwrap();
        assert_eq!(ours, standard);
        assert!(ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$"));
        // And the same again on the reused (now dirty) memory.
        assert_eq!(
            hash_with_salt("correct horse", salt.as_salt(), &mut memory).unwrap(),
            standard
        );
        let random = hash_blocking("correct horse", &mut memory).unwrap();
        let parsed = PasswordHash::new(&random).unwrap();
        assert!(Argon2::default()
            .verify_password(b"correct horse", &parsed)
            .is_ok());
    }

    #[test]
    fn hashes_made_by_the_standard_path_verify() {
        let mut memory = Memory::default();
        let stored = standard_hash("correct horse");
        let parsed = PasswordHash::new(&stored).unwrap();
        assert!(verify_blocking("correct horse", &parsed, &mut memory));
        assert!(!verify_blocking("wrong horse", &parsed, &mut memory));
        assert!(!verify_blocking("", &parsed, &mut memory));
        assert!(verify_blocking("correct horse", &parsed, &mut memory));
        // Other parameters, algorithms and lengths than ours are read from the hash, as the
        // standard verifier does; a hash asking for more memory than the default is computed
        // in memory of its own and not kept.
        for (algorithm, m, t, p, len) in [
            (Algorithm::Argon2id, 4096, 3, 2, 16),
            (Algorithm::Argon2i, 8192, 1, 1, 64),
            (Algorithm::Argon2id, 24 * 1024, 1, 1, 32),
        ] {
            use argon2::password_hash::PasswordHasher;
            let params = Params::new(m, t, p, Some(len)).unwrap();
            let salt = SaltString::generate(&mut OsRng);
            let stored = Argon2::new(algorithm, Version::V0x13, params)
                .hash_password(b"correct horse", &salt)
                .unwrap()
                .to_string();
            let parsed = PasswordHash::new(&stored).unwrap();
            assert!(
                verify_blocking("correct horse", &parsed, &mut memory),
                "{stored}"
            );
            assert!(
                !verify_blocking("wrong horse", &parsed, &mut memory),
                "{stored}"
            );
        }
        assert_eq!(memory.0.len(), Memory::MAX_KEPT);
    }

    #[tokio::test]
    async fn a_standard_hash_verifies_through_the_queue() {
        let stored = standard_hash("correct horse");
        assert!(verify("correct horse".into(), Some(stored.clone())).await);
        assert!(!verify("wrong horse".into(), Some(stored)).await);
    }

    #[test]
    fn dummy_hash_parses() {
        assert!(PasswordHash::new(dummy_hash(&mut Memory::default())).is_ok());
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
