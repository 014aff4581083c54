//! Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA-1, 6 digits,
//! 30-second steps, one step of tolerance each way. Secrets are 20 random bytes, written in
//! base32 (no padding) as authenticator apps read them; recovery codes are 80 random bits.

use data_encoding::BASE32_NOPAD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha1::Sha1;

use crate::auth::secrets;

/// Seconds per step.
pub const STEP_SECS: i64 = 30;
pub const DIGITS: u32 = 6;
/// Steps accepted either side of the current one (clock drift, a code typed at the edge).
pub const TOLERANCE_STEPS: i64 = 1;
/// The issuer authenticator apps show.
pub const ISSUER: &str = "Signal Desk";
/// Recovery codes made when 2FA is turned on.
pub const RECOVERY_CODES: usize = 10;

/// A new secret: 20 random bytes (RFC 4226's recommended length), base32.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    BASE32_NOPAD.encode(&bytes)
}

/// The time step of a Unix time in seconds.
pub fn step_at(unix_secs: i64) -> i64 {
    unix_secs.div_euclid(STEP_SECS)
}

/// The code of `step` for a base32 secret; `None` for a secret that is not base32.
pub fn code_at(secret: &str, step: i64) -> Option<String> {
    let key = BASE32_NOPAD.decode(secret.as_bytes()).ok()?;
    let mut mac = Hmac::<Sha1>::new_from_slice(&key).ok()?;
    mac.update(&step.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = usize::from(digest[19] & 0x0f);
    let binary = u32::from_be_bytes([
        digest[offset] & 0x7f,
        digest[offset + 1],
        digest[offset + 2],
        digest[offset + 3],
    ]);
    Some(format!(
        "{:0width$}",
        binary % 10u32.pow(DIGITS),
        width = DIGITS as usize
    ))
}

/// A code as typed: its digits, spaces and dashes removed; `None` unless exactly six digits.
pub fn normalise_code(typed: &str) -> Option<String> {
    let digits: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    (digits.len() == DIGITS as usize && digits.chars().all(|c| c.is_ascii_digit()))
        .then_some(digits)
}

/// The steps around `now_step` whose code is `code`, newest first (usually none or one).
pub fn matching_steps(secret: &str, code: &str, now_step: i64) -> Vec<i64> {
    (-TOLERANCE_STEPS..=TOLERANCE_STEPS)
        .rev()
        .map(|d| now_step + d)
        .filter(|step| {
            code_at(secret, *step)
                .is_some_and(|c| secrets::constant_time_eq(c.as_bytes(), code.as_bytes()))
        })
        .collect()
}

/// The `otpauth://` URL of Google Authenticator's key-URI format, which the QR code carries.
pub fn otpauth_url(username: &str, secret: &str) -> String {
    let label = format!("{}:{}", percent_encode(ISSUER), percent_encode(username));
    format!(
        "otpauth://totp/{label}?secret={secret}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECS}",
        percent_encode(ISSUER)
    )
}

/// Every byte but RFC 3986's unreserved characters, percent-encoded.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A new recovery code: 16 base32 characters (80 random bits) in four groups,
/// `abcd-efgh-ijkl-mnop`.
pub fn new_recovery_code() -> String {
    let mut bytes = [0u8; 10];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let text = BASE32_NOPAD.encode(&bytes).to_ascii_lowercase();
    text.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

/// A recovery code as typed, in the form it is digested: lower case, without spaces or
/// dashes; `None` unless 16 base32 characters.
pub fn normalise_recovery_code(typed: &str) -> Option<String> {
    let text: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (text.len() == 16 && text.chars().all(|c| matches!(c, 'a'..='z' | '2'..='7'))).then_some(text)
}

/// The stored form of a recovery code: SHA-256 of the normalised code, bound to its user
/// (the code has 80 random bits, so a fast digest does not make a leaked table guessable).
pub fn recovery_code_digest(user_id: i64, normalised: &str) -> String {
    secrets::digest(&format!("recovery:{user_id}:{normalised}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890", and the
    /// codes are the last six of the eight digits listed there.
    #[test]
    fn the_rfc_6238_test_vectors() {
        let secret = BASE32_NOPAD.encode(b"12345678901234567890");
        for (time, code) in [
            (59, "287082"),
            (1111111109, "081804"),
            (1111111111, "050471"),
            (1234567890, "005924"),
            (2000000000, "279037"),
            (20000000000, "353130"),
        ] {
            assert_eq!(code_at(&secret, step_at(time)).unwrap(), code, "at {time}");
        }
    }

    #[test]
    fn a_code_matches_one_step_either_side_and_no_further() {
        let secret = new_secret();
        assert_eq!(secret.len(), 32);
        let now = 1_000_000;
        for d in -1..=1 {
            let code = code_at(&secret, now + d).unwrap();
            assert!(matching_steps(&secret, &code, now).contains(&(now + d)));
        }
        for d in [-3, -2, 2, 3] {
            let code = code_at(&secret, now + d).unwrap();
            let steps = matching_steps(&secret, &code, now);
            assert!(!steps.contains(&(now + d)), "{d}");
        }
        assert!(matching_steps("not base32!", "123456", now).is_empty());
    }

    #[test]
    fn codes_are_read_as_six_digits() {
        assert_eq!(normalise_code(" 123 456 ").as_deref(), Some("123456"));
        assert_eq!(normalise_code("123-456").as_deref(), Some("123456"));
        assert_eq!(normalise_code("12345"), None);
        assert_eq!(normalise_code("1234567"), None);
        assert_eq!(normalise_code("12345a"), None);
        assert_eq!(normalise_code("１２３４５６"), None);
    }

    #[test]
    fn recovery_codes_round_trip_through_their_typed_forms() {
        let code = new_recovery_code();
        assert_eq!(code.len(), 19);
        assert_eq!(code.matches('-').count(), 3);
        let normal = normalise_recovery_code(&code).unwrap();
        assert_eq!(
            normalise_recovery_code(&code.to_uppercase().replace('-', " ")).unwrap(),
            normal
        );
        assert_eq!(normalise_recovery_code("123456"), None);
        assert_ne!(
            recovery_code_digest(1, &normal),
            recovery_code_digest(2, &normal)
        );
        assert_ne!(new_recovery_code(), new_recovery_code());
    }

    #[test]
    fn the_otpauth_url_names_the_issuer_and_the_user() {
        let url = otpauth_url("alice@x y", "JBSWY3DPEHPK3PXP");
        assert_eq!(
            url,
            "otpauth://totp/Signal%20Desk:alice%40x%20y?secret=JBSWY3DPEHPK3PXP\
             &issuer=Signal%20Desk&algorithm=SHA1&digits=6&period=30"
        );
    }
}
