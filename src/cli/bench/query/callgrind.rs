//! `tenon bench --query ... --measure instructions`: each variant's
//! instructions, counted by valgrind's callgrind as for the built-in
//! workloads (`crate::cli::callgrind`): tenon runs itself under
//! `valgrind --tool=callgrind` with one worker thread, as `tenon bench
//! --query FILE --workload W --strategies ROW --runs 1 --threads 1` with
//! the table, `-f`, `--scale`, `--set` and `--batch-size` options given,
//! so that the child plans the same variant and runs it once as a
//! warm-up and once measured.
//!
//! A query runs on the session's worker threads, not on the thread that
//! calls it, and callgrind's `--toggle-collect` (which the workloads use)
//! switches collection for the calling thread only. So here callgrind
//! collects on every thread, zeroes the counts when
//! [`callgrind_measured_region_of_query`] is entered
//! (`--zero-before`) and writes them out when it returns
//! (`--dump-after`): the count of the last such dump is the measured run
//! (after the warm-up), every thread's instructions during it. Reading
//! and planning before, and everything outside the two runs, are not
//! counted. Threads handing work to each other make the count repeat to
//! about 0.5% (the workloads' kernels, on one thread: about 0.01%).

use std::path::{Path, PathBuf};
use std::process::Command;

use tenon::{Error, Query, QueryOutput};

use crate::cli::CliError;
use crate::cli::bench::BenchArgs;

/// The function whose instructions are counted, as callgrind's patterns
/// of `--zero-before` and `--dump-after` (two spellings: callgrind 3.19
/// applies only one of two options given the same pattern).
const REGION: [&str; 2] = [
    "*::callgrind_measured_region_of_query",
    "*callgrind_measured_region_of_query*",
];

/// Runs `query` once, under a name of its own, never inlined: `tenon
/// bench --query --measure instructions` counts the instructions executed
/// while it runs (on every thread), so it is what every run of a variant
/// calls.
///
/// # Errors
///
/// As [`Query::run`].
#[inline(never)]
pub(super) fn callgrind_measured_region_of_query(query: &Query) -> Result<QueryOutput, Error> {
    query.run()
}

/// The instructions of one measured run of the variant `row` of
/// `workload` (a `FILE#joinN` or `FILE#all` of the query file `file`).
///
/// # Errors
///
/// The counted run failed (its last lines of stderr quoted), or callgrind
/// wrote no count of the measured run (exit 3).
pub(super) fn count(
    args: &BenchArgs,
    file: &Path,
    workload: &str,
    row: &str,
) -> Result<u64, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::exec(format!("cannot find the tenon binary to count: {e}")))?;
    let stem = format!(
        "tenon-callgrind-{}-{}",
        std::process::id(),
        workload
            .chars()
            .chain("-".chars())
            .chain(row.chars())
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>()
    );
    let dir = std::env::temp_dir();
    let out_file = dir.join(format!("{stem}.out"));
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(format!("--zero-before={}", REGION[0]))
        .arg(format!("--dump-after={}", REGION[1]))
        .arg(&exe)
        .arg("bench")
        .arg("--query")
        .arg(file)
        .args(["--workload", workload, "--strategies", row])
        .args(["--runs", "1", "--threads", "1"])
        .args(["--batch-size", &args.batch_size.to_string()]);
    for t in &args.tables {
        cmd.args(["--table", t]);
    }
    for t in &args.memory_tables {
        cmd.args(["--memory-table", t]);
    }
    if let Some(f) = &args.file {
        cmd.arg("--file").arg(f);
    }
    if let Some(s) = args.scale {
        cmd.args(["--scale", &s.to_string()]);
    }
    for s in &args.settings {
        cmd.args(["--set", s]);
    }
    let result = cmd.output();
    let dumps = dumps_of(&dir, &stem);
    let total = last_measured(&dumps);
    for d in &dumps {
        let _ = std::fs::remove_file(d);
    }
    let out = result.map_err(|e| CliError::exec(format!("cannot run valgrind: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = err.lines().rev().take(5).collect();
        return Err(CliError::exec(format!(
            "counting {workload} {row} under callgrind failed ({}): {}",
            out.status,
            last.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    total.ok_or_else(|| {
        CliError::exec(format!(
            "counting {workload} {row} under callgrind: the counted run measured no variant \
             (its output: {})",
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.starts_with("note:"))
                .collect::<Vec<_>>()
                .join(" | ")
        ))
    })
}

/// The files callgrind wrote for `stem` (`stem.out`, `stem.out.1`, ...).
fn dumps_of(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{stem}.out")))
        })
        .collect()
}

/// The count of the last dump written when the region returned: the
/// measured run (dumps are numbered in order, `stem.out.N`).
fn last_measured(dumps: &[PathBuf]) -> Option<u64> {
    dumps
        .iter()
        .filter_map(|p| {
            let n: u64 = p.extension()?.to_str()?.parse().ok()?;
            let text = std::fs::read_to_string(p).ok()?;
            let after = text
                .lines()
                .any(|l| l.starts_with("desc: Trigger:") && l.contains("dump-after"));
            after
                .then(|| crate::cli::callgrind::parse_total(&text))
                .flatten()
                .map(|t| (n, t))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_the_last_dump_after_the_region() {
        let dir = std::env::temp_dir().join(format!("tenon-qcg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, trigger: &str, total: u64| {
            let p = dir.join(name);
            std::fs::write(
                &p,
                format!("version: 1\ndesc: Trigger: {trigger}\nevents: Ir\nsummary: {total}\ntotals: {total}\n"),
            )
            .unwrap();
        };
        write(
            "s.out.1",
            "--dump-after=x::callgrind_measured_region_of_query",
            10,
        );
        write(
            "s.out.2",
            "--dump-after=x::callgrind_measured_region_of_query",
            12,
        );
        write("s.out", "Program termination", 99);
        write("other.out.3", "--dump-after=x", 7);
        let dumps = dumps_of(&dir, "s");
        assert_eq!(dumps.len(), 3);
        assert_eq!(last_measured(&dumps), Some(12));
        assert_eq!(last_measured(&[]), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
