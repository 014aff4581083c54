//! Secrets at rest: AES-256-GCM under the master key (`SIGNALDESK_MASTER_KEY`, else a key file
//! created with mode 0600 in the data dir). Each ciphertext is bound to its owner and purpose
//! through the associated data, so a value copied to another row does not decrypt.

use std::io::Write;
use std::path::Path;

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, KeyInit, Nonce};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use rand::RngCore;

use crate::StoreError;

pub const KEY_FILE: &str = "master.key";
const NONCE_LEN: usize = 12;

pub struct SecretCipher {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for SecretCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretCipher(..)")
    }
}

impl SecretCipher {
    pub fn from_key(key: &[u8; 32]) -> SecretCipher {
        SecretCipher {
            cipher: Aes256Gcm::new(key.into()),
        }
    }

    /// A cipher under a fresh random key (tests).
    pub fn random() -> SecretCipher {
        let mut key = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut key);
        SecretCipher::from_key(&key)
    }

    /// The master key from `env_value` (64 hex characters or base64 of 32 bytes) when given,
    /// else from `data_dir/master.key`, created with mode 0600 on first use.
    pub fn load(env_value: Option<&str>, data_dir: &Path) -> Result<SecretCipher, StoreError> {
        if let Some(text) = env_value.map(str::trim).filter(|t| !t.is_empty()) {
            return decode_key(text)
                .map(|k| SecretCipher::from_key(&k))
                .ok_or_else(|| {
                    StoreError::Corrupt(
                        "SIGNALDESK_MASTER_KEY must be 32 bytes as 64 hex characters or base64"
                            .into(),
                    )
                });
        }
        let path = data_dir.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => decode_key(text.trim())
                .map(|k| SecretCipher::from_key(&k))
                .ok_or_else(|| {
                    StoreError::Corrupt(format!("{} is not a valid key", path.display()))
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(data_dir)?;
                let mut key = [0u8; 32];
                rand::rngs::OsRng.fill_bytes(&mut key);
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                let mut file = options.open(&path)?;
                file.write_all(B64.encode(key).as_bytes())?;
                file.sync_all()?;
                Ok(SecretCipher::from_key(&key))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// `base64(nonce || ciphertext)`.
    pub fn encrypt(&self, plaintext: &str, context: &str) -> Result<String, StoreError> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| StoreError::Corrupt("encryption failed".into()))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(B64.encode(out))
    }

    pub fn decrypt(&self, stored: &str, context: &str) -> Result<String, StoreError> {
        let corrupt =
            || StoreError::Corrupt("a stored secret does not decrypt under the master key".into());
        let bytes = B64.decode(stored).map_err(|_| corrupt())?;
        if bytes.len() <= NONCE_LEN {
            return Err(corrupt());
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let plain = self
            .cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| corrupt())?;
        String::from_utf8(plain).map_err(|_| corrupt())
    }
}

fn decode_key(text: &str) -> Option<[u8; 32]> {
    let bytes = if text.len() == 64 && text.chars().all(|c| c.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?
    } else {
        B64.decode(text).ok()?
    };
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_context_binding() {
        let c = SecretCipher::random();
        let sealed = c.encrypt("my-secret", "1:secret").unwrap();
        assert!(!sealed.contains("my-secret"));
        assert_eq!(c.decrypt(&sealed, "1:secret").unwrap(), "my-secret");
        assert!(
            c.decrypt(&sealed, "2:secret").is_err(),
            "bound to its owner"
        );
        assert!(SecretCipher::random().decrypt(&sealed, "1:secret").is_err());
        assert_ne!(
            sealed,
            c.encrypt("my-secret", "1:secret").unwrap(),
            "fresh nonce"
        );
    }

    #[test]
    fn key_file_is_created_once_with_mode_0600() {
        let dir = std::env::temp_dir().join(format!("sd-key-{}", rand::random::<u64>()));
        let a = SecretCipher::load(None, &dir).unwrap();
        let sealed = a.encrypt("x", "c").unwrap();
        let b = SecretCipher::load(None, &dir).unwrap();
        assert_eq!(
            b.decrypt(&sealed, "c").unwrap(),
            "x",
            "the same key is reused"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn env_key_in_hex_or_base64() {
        let hex_key = "00".repeat(32);
        let from_hex = SecretCipher::load(Some(&hex_key), Path::new("/nonexistent")).unwrap();
        let from_b64 =
            SecretCipher::load(Some(&B64.encode([0u8; 32])), Path::new("/nonexistent")).unwrap();
        let sealed = from_hex.encrypt("v", "c").unwrap();
        assert_eq!(from_b64.decrypt(&sealed, "c").unwrap(), "v");
        assert!(SecretCipher::load(Some("short"), Path::new("/nonexistent")).is_err());
    }
}
