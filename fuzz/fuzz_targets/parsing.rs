//! The parsers of peer-controlled input, picked by the first byte: see
//! `presa_fuzz::parsing`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| presa_fuzz::parsing::run(data));
