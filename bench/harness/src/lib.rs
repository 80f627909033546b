//! The benchmark harness: the same MCP servers written
//! with presa, rmcp and tower-mcp, a framework-free floor server, and the
//! shared pieces of the programs that measure them (docs/benchmarks.md says
//! what each figure means).
//!
//! Why a crate of its own: rmcp must never enter presa's dependency tree,
//! so the harness lives in the `bench/` workspace and uses presa by path.
//! The same holds for tower-mcp, which is also built apart from the other
//! two (the `tower-mcp` feature, Cargo.toml says why).
//!
//! Why the servers live in the library: each is used twice, served over a
//! byte stream by the `presa-server` and `rmcp-server` binaries (which the
//! neutral `driver` talks to with raw bytes), and connected in process to
//! its own framework's client by the `inprocess` binary. One definition
//! keeps the two uses measuring the same server.
//!
//! The figures are medians of rounds measured in alternation (presa, rmcp,
//! presa, rmcp, …), so that drift of the machine (frequency, a neighbour's
//! load) falls on both frameworks alike and cancels in their ratio.

pub mod cpu;
pub mod figures;
pub mod memory;
pub mod presa_server;
pub mod rmcp_server;
pub mod stats;
#[cfg(feature = "tower-mcp")]
pub mod tower_mcp_server;
pub mod wire;

/// The frameworks under comparison, in the order they are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    /// This repository's framework.
    Presa,
    /// The official Rust SDK, `rmcp` 3.11.
    Rmcp,
    /// `tower-mcp` 0.25, with its 2026-07-28 support compiled in. Measured
    /// by the neutral driver only (stdio and HTTP).
    TowerMcp,
}

impl Framework {
    /// presa and rmcp, in measuring order: the in-process sections, which
    /// connect each framework's own client, measure these two.
    pub const BOTH: [Framework; 2] = [Framework::Presa, Framework::Rmcp];

    /// Every framework the neutral driver serves, in measuring order.
    pub const SERVED: [Framework; 3] = [Framework::Presa, Framework::Rmcp, Framework::TowerMcp];

    /// The lower-case name used in figure keys and on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Framework::Presa => "presa",
            Framework::Rmcp => "rmcp",
            Framework::TowerMcp => "tower_mcp",
        }
    }

    /// The framework named `name` (`presa`, `rmcp` or `tower_mcp`).
    pub fn parse(name: &str) -> Option<Framework> {
        Framework::SERVED.into_iter().find(|f| f.name() == name)
    }

    /// The path of this framework's server binary, which cargo builds next
    /// to the program that asks.
    pub fn server_binary(self) -> std::path::PathBuf {
        sibling_binary(&format!("{}-server", self.name().replace('_', "-")))
    }
}

/// Why the harness binary `program` did not start, with how to build it:
/// the usual cause is a binary not built, and `tower-mcp-server` is not
/// built by a plain `cargo build --bins` (it needs the `tower-mcp`
/// feature).
pub fn not_started(program: &std::ffi::OsStr, error: std::io::Error) -> std::io::Error {
    let program = std::path::Path::new(program).display();
    std::io::Error::new(
        error.kind(),
        format!(
            "cannot start {program}: {error}; build the harness with scripts/bench.sh, \
             or `cargo build --release --manifest-path bench/Cargo.toml --bins` and, for \
             tower-mcp-server, the same with `--bin tower-mcp-server --features tower-mcp`"
        ),
    )
}

/// The path of the harness binary `name`, in the directory of the running
/// executable (all harness binaries are built into the same one).
pub fn sibling_binary(name: &str) -> std::path::PathBuf {
    let me = std::env::current_exe().expect("the path of the running executable");
    me.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_that_does_not_start_is_named_with_how_to_build_it() {
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let error = not_started(std::ffi::OsStr::new("target/x/tower-mcp-server"), missing);
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        let message = error.to_string();
        assert!(
            message.starts_with("cannot start target/x/tower-mcp-server: "),
            "{message}"
        );
        assert!(message.contains("--features tower-mcp"), "{message}");
    }
}
