//! Fuzz target `bybit_ws`: Bybit's public and private websocket frames, read as the market data
//! stream and the venue read them. The check and the invariants it asserts are
//! `signaldesk_fuzz_checks::bybit_ws`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signaldesk_fuzz_checks::bybit_ws(data));
