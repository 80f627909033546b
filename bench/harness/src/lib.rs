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
pub mod presa_process;
pub mod presa_server;
pub mod rmcp_server;
pub mod stats;
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "tower-mcp")]
pub mod tower_mcp_server;
pub mod wire;

use wire::{Era, Workload};

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
    /// `turbomcp` 4.0.0-alpha.5 (bench/peers/turbomcp). Measured by the
    /// neutral driver only.
    Turbomcp,
    /// `pmcp` 2.23 (bench/peers/pmcp). Measured by the neutral driver
    /// only.
    Pmcp,
    /// `rust-mcp-sdk` 2.0 (bench/peers/rust-mcp-sdk). Measured by the
    /// neutral driver only.
    RustMcpSdk,
}

impl Framework {
    /// presa and rmcp, in measuring order: the in-process sections, which
    /// connect each framework's own client, measure these two.
    pub const BOTH: [Framework; 2] = [Framework::Presa, Framework::Rmcp];

    /// Every framework the neutral driver serves, in measuring order.
    pub const SERVED: [Framework; 6] = [
        Framework::Presa,
        Framework::Rmcp,
        Framework::TowerMcp,
        Framework::Turbomcp,
        Framework::Pmcp,
        Framework::RustMcpSdk,
    ];

    /// The lower-case name used in figure keys and on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Framework::Presa => "presa",
            Framework::Rmcp => "rmcp",
            Framework::TowerMcp => "tower_mcp",
            Framework::Turbomcp => "turbomcp",
            Framework::Pmcp => "pmcp",
            Framework::RustMcpSdk => "rust_mcp_sdk",
        }
    }

    /// The framework named `name` (`presa`, `rmcp`, `tower_mcp`, …).
    pub fn parse(name: &str) -> Option<Framework> {
        Framework::SERVED.into_iter().find(|f| f.name() == name)
    }

    /// The path of this framework's server binary, which cargo builds next
    /// to the program that asks.
    pub fn server_binary(self) -> std::path::PathBuf {
        sibling_binary(&format!("{}-server", self.name().replace('_', "-")))
    }

    /// The protocol revision its benchmark server speaks: the newest its
    /// framework serves.
    pub fn era(self) -> Era {
        match self {
            Framework::Presa | Framework::Rmcp | Framework::TowerMcp => Era::Stateless,
            Framework::Turbomcp | Framework::Pmcp | Framework::RustMcpSdk => Era::Stateless,
        }
    }

    /// Whether its server is a package of its own under `bench/peers/`,
    /// which only `scripts/bench.sh`'s full builds make. The driver skips
    /// such a server when it was not built (CI's small round builds none).
    pub fn built_apart(self) -> bool {
        matches!(
            self,
            Framework::Turbomcp | Framework::Pmcp | Framework::RustMcpSdk
        )
    }

    /// Why its server cannot serve `workload` over stdio, if it cannot:
    /// one sentence, with the source that shows it. The figure keys of
    /// that workload hold this text instead of a number.
    pub fn cannot(self, workload: Workload) -> Option<&'static str> {
        match (self, workload) {
            (Framework::Pmcp, Workload::Mrtr) => Some(
                "pmcp 2.23.0 reads `requestState` and `inputResponses` only over Streamable \
                 HTTP (src/server/streamable_http_server.rs, `attach_v2_mrtr_params`); over \
                 stdio its retry asks the question again",
            ),
            _ => None,
        }
    }
}

/// presa's benchmark server with one of presa's optional costs switched
/// on. The neutral driver measures each next to the plain server, in the
/// same rounds, so that the gap between them is what that cost adds to a
/// call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresaVariant {
    /// One empty tower layer on the server (`tower::layer::util::Identity`
    /// through `ServerBuilder::layer`): every handler runs through the
    /// tower path, and the layer itself does nothing.
    Layered,
    /// Telemetry switched on as a user sets it up, with exporters that
    /// discard what they get ([`telemetry`]).
    Otel,
}

impl PresaVariant {
    /// Every variant, in measuring order.
    pub const ALL: [PresaVariant; 2] = [PresaVariant::Layered, PresaVariant::Otel];

    /// The name on `presa-server`'s command line (`--variant NAME`).
    pub fn name(self) -> &'static str {
        match self {
            PresaVariant::Layered => "layered",
            PresaVariant::Otel => "otel",
        }
    }

    /// The variant named `name` (`layered` or `otel`).
    pub fn parse(name: &str) -> Option<PresaVariant> {
        PresaVariant::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// A server process the neutral driver starts: a framework's benchmark
/// server, or presa's with a cost switched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// The framework's own benchmark server.
    Framework(Framework),
    /// presa's benchmark server with this cost switched on.
    Presa(PresaVariant),
}

impl Served {
    /// Every server the neutral driver measures, in measuring order:
    /// presa first, its variants next to it, then the peers.
    pub const ALL: [Served; 8] = [
        Served::Framework(Framework::Presa),
        Served::Presa(PresaVariant::Layered),
        Served::Presa(PresaVariant::Otel),
        Served::Framework(Framework::Rmcp),
        Served::Framework(Framework::TowerMcp),
        Served::Framework(Framework::Turbomcp),
        Served::Framework(Framework::Pmcp),
        Served::Framework(Framework::RustMcpSdk),
    ];

    /// The servers of [`Served::ALL`] this run can start: a peer built
    /// apart ([`Framework::built_apart`]) whose binary is missing is left
    /// out, with a line on stderr that says so. Any other missing binary
    /// is an error when the driver starts it.
    pub fn available() -> Vec<Served> {
        Served::ALL
            .into_iter()
            .filter(|served| {
                let framework = served.framework();
                let missing = framework.built_apart() && !framework.server_binary().exists();
                if missing {
                    eprintln!(
                        "{} not built: skipped (scripts/bench.sh builds it in a full run)",
                        framework.server_binary().display()
                    );
                }
                !missing
            })
            .collect()
    }

    /// The framework whose server this is.
    pub fn framework(self) -> Framework {
        match self {
            Served::Framework(framework) => framework,
            Served::Presa(_) => Framework::Presa,
        }
    }

    /// The name that starts its figure keys: the framework's
    /// (`presa`, `rmcp`, `tower_mcp`), or `presa_` and the variant's
    /// (`presa_layered`, `presa_otel`).
    pub fn name(self) -> &'static str {
        match self {
            Served::Framework(framework) => framework.name(),
            Served::Presa(PresaVariant::Layered) => "presa_layered",
            Served::Presa(PresaVariant::Otel) => "presa_otel",
        }
    }

    /// The path of its server binary: the framework's, or for telemetry
    /// `presa-otel-server`, presa's server built with telemetry compiled
    /// in (the harness's `otel` feature).
    pub fn binary(self) -> std::path::PathBuf {
        match self {
            Served::Presa(PresaVariant::Otel) => sibling_binary("presa-otel-server"),
            _ => self.framework().server_binary(),
        }
    }

    /// The command that starts this server on `transport` (`stdio` or
    /// `http`).
    pub fn command(self, transport: &str) -> std::process::Command {
        let mut command = std::process::Command::new(self.binary());
        command.arg(transport);
        if let Served::Presa(variant) = self {
            command.args(["--variant", variant.name()]);
        }
        command
    }
}

/// Why the harness binary `program` did not start, with how to build it:
/// the usual cause is a binary not built, and `tower-mcp-server` is not
/// built by a plain `cargo build --bins` (it needs the `tower-mcp`
/// feature), nor are the peers under `bench/peers/` (each is a package of
/// its own).
pub fn not_started(program: &std::ffi::OsStr, error: std::io::Error) -> std::io::Error {
    let program = std::path::Path::new(program).display();
    std::io::Error::new(
        error.kind(),
        format!(
            "cannot start {program}: {error}; build the harness with scripts/bench.sh, \
             or `cargo build --release --manifest-path bench/Cargo.toml --bins` and, for \
             tower-mcp-server, the same with `--bin tower-mcp-server --features tower-mcp` \
             (presa-otel-server: `--bin presa-otel-server --features otel`); a peer's \
             server with `-p bench-PEER`"
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

    #[test]
    fn a_variant_is_presa_s_server_with_its_name_on_the_command_line() {
        for variant in PresaVariant::ALL {
            assert_eq!(PresaVariant::parse(variant.name()), Some(variant));
            let served = Served::Presa(variant);
            assert_eq!(served.name(), format!("presa_{}", variant.name()));
            let command = served.command("http");
            let program = match variant {
                PresaVariant::Otel => sibling_binary("presa-otel-server"),
                PresaVariant::Layered => Framework::Presa.server_binary(),
            };
            assert_eq!(command.get_program(), program);
            let args: Vec<_> = command.get_args().collect();
            assert_eq!(args, ["http", "--variant", variant.name()]);
        }
        assert_eq!(PresaVariant::parse("presa"), None);
        let plain = Served::Framework(Framework::Presa).command("stdio");
        assert_eq!(plain.get_args().collect::<Vec<_>>(), ["stdio"]);
    }
}
