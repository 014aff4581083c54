//! Fuzz target `webhook_alert`: the TradingView webhook's alert parser (`parse_alert`,
//! `normalise_symbol`) on arbitrary bodies. The check and the invariants it asserts are
//! `signaldesk_fuzz_checks::webhook_alert`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signaldesk_fuzz_checks::webhook_alert(data));
