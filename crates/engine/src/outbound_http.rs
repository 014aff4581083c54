//! What every outbound HTTP client of the engine (Telegram, the notification channels) needs
//! alike: a doubling back-off, an error described without its URL (which may hold a token or
//! a webhook's credential), and Telegram's message length.

use std::error::Error;
use std::time::Duration;

/// Telegram's limit on a message's text, in characters (Bot API, sendMessage: "1-4096
/// characters after entities parsing").
pub const TELEGRAM_MAX_TEXT_CHARS: usize = 4096;

/// `first`, twice that, four times, … up to `max`, for the `failures`-th failure in a row.
pub fn doubling_backoff(failures: u32, first: Duration, max: Duration) -> Duration {
    let factor = 1u32 << failures.saturating_sub(1).min(16);
    first.saturating_mul(factor).min(max)
}

/// A request error as text without its URL, with its causes.
pub fn describe_request_error(error: &reqwest::Error) -> String {
    let mut text = match error.url() {
        Some(url) => error.to_string().replace(url.as_str(), "<url>"),
        None => error.to_string(),
    };
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `text` cut to Telegram's length limit.
pub fn telegram_text(text: &str) -> String {
    text.chars().take(TELEGRAM_MAX_TEXT_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_cap() {
        let one = Duration::from_secs(1);
        let secs: Vec<u64> = (1..=7)
            .map(|n| doubling_backoff(n, one, Duration::from_secs(30)).as_secs())
            .collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(
            doubling_backoff(u32::MAX, one, Duration::from_secs(60)),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn a_text_is_cut_to_telegrams_limit() {
        let long = "é".repeat(TELEGRAM_MAX_TEXT_CHARS + 10);
        assert_eq!(
            telegram_text(&long).chars().count(),
            TELEGRAM_MAX_TEXT_CHARS
        );
        assert_eq!(telegram_text("short"), "short");
    }
}
