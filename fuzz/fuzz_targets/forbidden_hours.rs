//! Fuzz target `forbidden_hours`: the forbidden-hours parser (`parse_hour_ranges`) on arbitrary
//! JSON arrays. The check and the invariants it asserts are
//! `signaldesk_fuzz_checks::forbidden_hours`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signaldesk_fuzz_checks::forbidden_hours(data));
