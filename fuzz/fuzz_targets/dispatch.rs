//! Bytes a client writes, through the newline framing and the server's
//! connection loop and core: see `presa_fuzz::dispatch`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| presa_fuzz::dispatch::run(data));
