//! CPU time of a process, for the figures that ask what a call costs the
//! machine rather than how many calls come back per second.
//!
//! Why both: on a two-core machine the HTTP driver and the server share
//! the cores, so a server's throughput there is bounded by the driver's
//! cost as much as by its own (about (driver + server) CPU per call), and
//! the scheduler's mood moves it from run to run. The CPU each process
//! spends per call is a steadier figure of the server alone.
//!
//! Read from `/proc/<pid>/stat` (user and system time of every thread,
//! in clock ticks), so Linux only: elsewhere nothing is measured and the
//! figures come out `null`.

use std::time::Duration;

/// CPU time (user and system, every thread) process `pid` has used so
/// far; `None` where that cannot be read (not Linux, or the process is
/// gone).
pub fn process_cpu(pid: u32) -> Option<Duration> {
    read_stat(&format!("/proc/{pid}/stat"))
}

/// CPU time this process has used so far, as [`process_cpu`].
pub fn own_cpu() -> Option<Duration> {
    read_stat("/proc/self/stat")
}

#[cfg(target_os = "linux")]
fn read_stat(path: &str) -> Option<Duration> {
    let stat = std::fs::read_to_string(path).ok()?;
    let ticks = cpu_ticks(&stat)?;
    // SAFETY: sysconf reads a configuration value and has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

#[cfg(not(target_os = "linux"))]
fn read_stat(_path: &str) -> Option<Duration> {
    None
}

/// utime + stime, in clock ticks, from the text of a `stat` file. The
/// command name (field 2) is in parentheses and may hold spaces or
/// parentheses itself, so the fields are counted from after its last `)`:
/// there, the state is field 3, utime field 14 and stime field 15.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn cpu_ticks(stat: &str) -> Option<u64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    let mut fields = after_name.split_whitespace().skip(14 - 3);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utime_and_stime_are_read_after_the_command_name() {
        let stat = "42 (a (weird) name) S 1 42 42 0 -1 4194304 100 0 0 0 250 31 0 0 20 0 3 0";
        assert_eq!(cpu_ticks(stat), Some(281));
    }

    #[test]
    fn a_truncated_stat_reads_as_nothing() {
        assert_eq!(cpu_ticks("42 (name) S 1 42"), None);
        assert_eq!(cpu_ticks("no parenthesis"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn busy_work_shows_in_this_process_cpu_time() {
        let before = own_cpu().expect("this process's CPU time");
        assert!(process_cpu(std::process::id()).is_some_and(|t| t >= before));
        // Busy until the clock (ticks of 10 ms, usually) moves on; the
        // deadline only keeps a broken reading from spinning for ever.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let mut spent = 0u64;
        while own_cpu().is_some_and(|t| t == before) && std::time::Instant::now() < deadline {
            spent = (0..10_000u64).fold(spent, |a, n| a.wrapping_mul(31).wrapping_add(n));
        }
        std::hint::black_box(spent);
        assert!(own_cpu().is_some_and(|t| t > before));
    }
}
