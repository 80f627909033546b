//! Compile-fail tests: each misuse of `#[tool]`, `#[prompt]`,
//! `#[resource]`, `embed_skills!` or `#[derive(Elicit)]`, a client's
//! sampling handler that answers with something else than a sampling
//! answer, or an OAuth client whose credentials name no authorization
//! server, must fail with a helpful error at the right place. Regenerate
//! the expected output with `TRYBUILD=overwrite cargo test --test ui`,
//! then read it.

#[test]
#[cfg_attr(
    presa_wine,
    ignore = "trybuild runs cargo, a Linux program that a test under Wine cannot start"
)]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
