//! Fuzz target `ws_client_message`: the live feed's reading of a client's text frame
//! (`read_client_message`), as `/ws/dashboard/` reads every frame. The check and the invariants it
//! asserts are `signaldesk_fuzz_checks::ws_client_message`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| signaldesk_fuzz_checks::ws_client_message(data));
