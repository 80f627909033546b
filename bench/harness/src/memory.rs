//! Resident memory of this process, for the memory-per-task figures.
//!
//! The figure is a difference of resident set sizes (`VmRSS` in
//! `/proc/self/status`) divided by a task count. It is what the operating
//! system charges the process for, allocator slack and fragmentation
//! included, which is the cost a deployment pays; an allocation counter
//! would report less.

/// The resident set size of this process, in bytes (0 where `/proc` is
/// missing, so a figure comes out as 0 rather than failing the run).
pub fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}
