//! Random credentials and their stored form.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// 32 random bytes as lowercase hex: an API token, a session cookie or a CSRF value.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Credentials are stored as SHA-256 digests: they are high-entropy, so a fast hash suffices,
/// and a leaked database does not leak working tokens.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The CSRF value of a browser session: HMAC-SHA256 of a fixed label keyed with the session
/// cookie (which is random, secret and HttpOnly). The value sits in the readable `csrftoken`
/// cookie and must come back in `X-CSRFToken`; one made up, or one of another session, does
/// not match this session's, and it does not reveal the session cookie.
pub fn csrf_for_session(session_cookie: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<Sha256>::new_from_slice(session_cookie.as_bytes())
        .expect("HMAC takes keys of any length");
    mac.update(b"signaldesk csrf v1");
    hex::encode(mac.finalize().into_bytes())
}

/// Compares without stopping at the first differing byte.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_hex_of_64_chars() {
        let a = new_secret();
        let b = new_secret();
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn digest_is_sha256_hex() {
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_csrf_value_is_bound_to_its_session() {
        let a = csrf_for_session("session-a");
        assert_eq!(a, csrf_for_session("session-a"));
        assert_ne!(a, csrf_for_session("session-b"));
        assert_eq!(a.len(), 64);
        assert!(!a.contains("session-a"));
    }

    #[test]
    fn constant_time_eq_compares_exactly() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
