//! Fuzz target `bot_settings`: settings validation (`BotSettings::apply`) on arbitrary JSON
//! objects, then the store's save and load and the martingale risk preview of whatever it accepted.
//! The check and the invariants it asserts are `signaldesk_fuzz_checks::bot_settings`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signaldesk_fuzz_checks::bot_settings(data));
