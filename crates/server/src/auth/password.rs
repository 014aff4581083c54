//! Password hashing with argon2id, off the async threads (one hash takes tens of ms).

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

pub async fn hash(password: String) -> Result<String, String> {
    tokio::task::spawn_blocking(move || hash_blocking(&password).map_err(|e| e.to_string()))
        .await
        .map_err(|e| e.to_string())?
}

/// Verifies a password against a stored hash. With no stored hash (unknown user) it still
/// spends the same work on a fixed hash, so timing does not reveal whether a username exists.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
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
