//! `tenon bench --measure instructions`: instruction counts from callgrind.
//!
//! Wall time on a shared machine moves by 10-20% from run to run; the
//! instructions a join executes repeat to within about 0.01% for the same
//! binary, data and settings (hash seeds are random per process, so probe
//! loops differ by a few instructions), so a CI baseline on them can use a tight threshold. For
//! each workload and strategy, tenon runs itself under
//! `valgrind --tool=callgrind` with one worker thread (one thread's work is
//! deterministic; several threads' division of it is not), collecting only
//! inside `tenon::suite::callgrind_measured_region` (`--toggle-collect`),
//! which runs the join once as a warm-up and once measured; the count
//! reported is half the total. Data generation, planning and start-up are
//! not counted. Callgrind runs code about 50 times slower than natively,
//! hence the smaller default scale of this mode (0.01: 100K probe rows).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::CliError;

/// The function whose instructions are counted.
const REGION: &str = "*callgrind_measured_region*";

/// What one counted run needs to know.
pub(crate) struct Child<'a> {
    pub workload: &'a str,
    pub strategy: &'a str,
    pub scale: f64,
    pub seed: u64,
    pub batch_size: usize,
    pub data: Option<&'a Path>,
    pub settings: &'a [String],
}

/// Checks that valgrind runs.
///
/// # Errors
///
/// valgrind is missing, with what to do.
pub(crate) fn check() -> Result<(), CliError> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(CliError::usage(
            "--measure instructions needs valgrind (its callgrind tool) on the PATH: install \
             it (Debian: apt-get install valgrind) or measure time (the default)",
        )),
    }
}

/// Instructions of one run of `child`'s join.
///
/// # Errors
///
/// The counted run failed, or its output file has no total.
pub(crate) fn count(child: &Child<'_>) -> Result<u64, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::exec(format!("cannot find the tenon binary to count: {e}")))?;
    let out_file = std::env::temp_dir().join(format!(
        "tenon-callgrind-{}-{}-{}.out",
        std::process::id(),
        child.workload,
        child.strategy
    ));
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect={REGION}"))
        .arg(&exe)
        .args([
            "bench",
            "--workload",
            child.workload,
            "--strategies",
            child.strategy,
        ])
        .args(["--runs", "1", "--threads", "1"])
        .args(["--scale", &child.scale.to_string()])
        .args(["--seed", &child.seed.to_string()])
        .args(["--batch-size", &child.batch_size.to_string()]);
    if let Some(dir) = child.data {
        cmd.arg("--data").arg(dir);
    }
    for s in child.settings {
        cmd.args(["--set", s]);
    }
    let result = cmd.output();
    let total = read_total(&out_file);
    let _ = std::fs::remove_file(&out_file);
    let out = result.map_err(|e| CliError::exec(format!("cannot run valgrind: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = err.lines().rev().take(5).collect();
        return Err(CliError::exec(format!(
            "counting {} {} under callgrind failed ({}): {}",
            child.workload,
            child.strategy,
            out.status,
            last.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    let total = total?;
    Ok(total / 2)
}

/// The `totals:` (or `summary:`) line of a callgrind output file: the
/// instructions collected.
fn read_total(path: &PathBuf) -> Result<u64, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::exec(format!(
            "callgrind wrote no output to {}: {e}",
            path.display()
        ))
    })?;
    parse_total(&text).ok_or_else(|| {
        CliError::exec(format!(
            "callgrind's output {} has no totals line",
            path.display()
        ))
    })
}

/// The instructions of a callgrind output's `totals:` (or `summary:`)
/// line.
pub(crate) fn parse_total(text: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with("totals:"))
        .or_else(|| text.lines().find(|l| l.starts_with("summary:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_come_from_the_totals_line() {
        let text = "version: 1\nevents: Ir\nfn=(1) x\n3 7\nsummary: 123\ntotals: 456\n";
        assert_eq!(parse_total(text), Some(456));
        assert_eq!(parse_total("summary: 9\n"), Some(9));
        assert_eq!(parse_total("events: Ir\n"), None);
    }
}
