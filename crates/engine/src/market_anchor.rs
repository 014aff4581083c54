//! The simulated market's anchor on disk (`market.json` in the data dir): read at start so
//! the market continues its path across restarts, written when a new path or speed starts.

use std::path::{Path, PathBuf};

use signaldesk_venue::market::sim::SimAnchor;

use crate::EngineError;

/// The anchor file in `data_dir`.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join("market.json")
}

/// The recorded anchor; `None` when there is none or it cannot be read (a warning says why:
/// the market then starts a new path, which is what a first start does).
pub fn load(path: &Path) -> Option<SimAnchor> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the simulated market's anchor: starting a new market");
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(anchor) => Some(anchor),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "the simulated market's anchor is unreadable: starting a new market");
            None
        }
    }
}

/// Writes `anchor` to `path` atomically (a temporary file renamed over it), so a crash
/// leaves either the old anchor or the new one.
pub fn save(path: &Path, anchor: &SimAnchor) -> Result<(), EngineError> {
    let fail = |e: std::io::Error| {
        EngineError::Config(format!(
            "cannot record the simulated market's anchor in {}: {e}",
            path.display()
        ))
    };
    let json = serde_json::to_string_pretty(anchor)
        .map_err(|e| EngineError::Config(format!("cannot encode the market anchor: {e}")))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, json).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use signaldesk_venue::market::sim::SimConfig;

    #[test]
    fn an_anchor_survives_the_round_trip() {
        let dir = std::env::temp_dir().join(format!("signaldesk-anchor-{}", std::process::id()));
        let path = path_in(&dir);
        assert_eq!(load(&path), None);
        let anchor = SimAnchor::fresh(&SimConfig::default(), 1_750_000_000_123);
        save(&path, &anchor).unwrap();
        assert_eq!(load(&path), Some(anchor));
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(load(&path), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
