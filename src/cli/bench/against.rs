//! `tenon bench --against OTHER`: this binary and another tenon binary
//! timed in one sitting, their runs interleaved, judged on the ratios of
//! paired runs ([`tenon::bench::paired`] has the statistics and why).
//!
//! Both sides run the same way: each turn is a child process,
//! `<binary> bench --workload W --strategies S --runs 3 --json FILE` plus
//! the data options given (--scale, --seed, --batch-size, --threads,
//! --data, --set; with `--query`, the query, table and `-f` options and
//! `--workload FILE#joinN`), this side being [`std::env::current_exe`]. So both pay
//! the same start-up and data generation, which the child leaves out of
//! the figures it writes anyway: only join times are read from its JSON,
//! never the process's wall time. A side's figure in a pair is the fastest
//! of the child's [`RUNS_PER_TURN`] timed runs (after its own warm-up
//! run): load from other processes only ever adds time, and on a busy
//! 2-core machine one run in a fresh process is often 2x off, so the
//! fastest of a few is the least disturbed figure of that moment. Any
//! tenon that writes `tenon-bench/1` JSON can be the other side.
//!
//! First each binary runs every workload once with the `--strategies`
//! asked for (which strategies each runs, the planner's choices, the
//! answer's rows, and an early failure of the other binary before minutes
//! of pairs); then for each workload and strategy both run, `--runs`
//! pairs (default 10), each pair one run of each binary: the other first
//! in even pairs (0, 2, ...), this binary first in odd ones, so that a
//! drift within the sitting or an advantage of going first or second
//! cancels.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tenon::bench::paired::{self, PairedFigure, PairedVerdict, TARGET_CONFIDENCE};
use tenon::bench::{BenchReport, StrategyTiming, WorkloadReport};

use super::{BenchArgs, Job};
use crate::cli::CliError;

/// Timed runs of a child process per turn; its fastest is the turn's figure.
const RUNS_PER_TURN: usize = 3;

/// The environment variable of [`InjectedSlowdown`].
pub(crate) const INJECT_SLOWDOWN: &str = "TENON_BENCH_INJECT_SLOWDOWN";

/// A testing aid: `TENON_BENCH_INJECT_SLOWDOWN=WORKLOAD:FACTOR` makes
/// every timed run of that workload take FACTOR times as long by spinning
/// inside the timed region for (FACTOR - 1) times the join's time, so that
/// a test can stand in for a slower build without building one (the
/// measuring path, the child processes and the verdict all run as they do
/// for a real slowdown).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InjectedSlowdown {
    workload: String,
    factor: f64,
}

impl InjectedSlowdown {
    /// The slowdown the environment asks for, if any.
    ///
    /// # Errors
    ///
    /// The variable is set but not `WORKLOAD:FACTOR` with FACTOR >= 1 (a
    /// usage error).
    pub(crate) fn from_env() -> Result<Option<InjectedSlowdown>, CliError> {
        let Some(value) = std::env::var_os(INJECT_SLOWDOWN) else {
            return Ok(None);
        };
        let bad = || {
            CliError::usage(format!(
                "{INJECT_SLOWDOWN}={}: expected WORKLOAD:FACTOR with a FACTOR of at least 1, \
                 e.g. fk_small:1.3 (a testing aid; unset it to measure tenon as it is)",
                value.to_string_lossy()
            ))
        };
        let text = value.to_str().ok_or_else(bad)?;
        let (workload, factor) = text.split_once(':').ok_or_else(bad)?;
        let factor: f64 = factor.trim().parse().map_err(|_| bad())?;
        if !(factor.is_finite() && factor >= 1.0) || workload.trim().is_empty() {
            return Err(bad());
        }
        Ok(Some(InjectedSlowdown {
            workload: workload.trim().to_string(),
            factor,
        }))
    }

    /// Spins for (factor - 1) times `measured` when `workload` is the one
    /// slowed down (called inside the timed region, after the join).
    pub(crate) fn pad(slowdown: Option<&InjectedSlowdown>, workload: &str, measured: Duration) {
        let Some(s) = slowdown.filter(|s| s.workload == workload) else {
            return;
        };
        let extra = measured.mul_f64(s.factor - 1.0);
        let start = Instant::now();
        while start.elapsed() < extra {
            std::hint::spin_loop();
        }
    }
}

/// Which binary a run is of.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    This,
    Other,
}

/// The two binaries and where their JSON files go.
struct Sitting<'a> {
    this: PathBuf,
    other: &'a Path,
    /// The options every child gets (the data's and the planner's).
    common: Vec<String>,
    scratch: Scratch,
}

/// A directory for the children's JSON files, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `tenon bench --against other`.
/// `names` are the workloads to compare: the built-in ones asked for, or
/// `--query`'s (`q05.sql#join1`, ...), which each turn selects with
/// `--workload` among the query options passed through.
pub(super) fn run(
    args: &BenchArgs,
    job: &Job,
    other: &Path,
    names: &[String],
) -> Result<(), CliError> {
    if !other.is_file() {
        return Err(CliError::usage(format!(
            "--against {}: no such file; give the path of another tenon binary, e.g. \
             ../base/target/release/tenon",
            other.display()
        )));
    }
    let this = std::env::current_exe()
        .map_err(|e| CliError::exec(format!("cannot find this tenon binary to run it: {e}")))?;
    let dir = std::env::temp_dir().join(format!(
        "tenon-bench-against-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).map_err(|e| {
        CliError::exec(format!(
            "cannot create a directory for the runs' JSON files, {}: {e}",
            dir.display()
        ))
    })?;
    let sitting = Sitting {
        this,
        other,
        common: common_options(args, job),
        scratch: Scratch(dir),
    };
    let (progress, mut report) = super::start(args, job, names.len());
    let (mut verdicts, mut unmatched) = (Vec::new(), Vec::new());
    for name in names {
        let name = name.as_str();
        progress.set_message(format!("{name}: one run of each binary"));
        let Some(mine) = sitting.workload(Side::This, name, &args.strategies, 1)? else {
            progress.inc(1);
            continue;
        };
        let Some(theirs) = sitting.workload(Side::Other, name, &args.strategies, 1)? else {
            unmatched.push(format!("{name} (not run by {})", other.display()));
            progress.inc(1);
            continue;
        };
        if mine.output_rows != theirs.output_rows {
            eprintln!(
                "note: {name}: this binary's join gives {} rows, {}'s {}: they do not run the \
                 same data or one of them is wrong",
                mine.output_rows,
                other.display(),
                theirs.output_rows
            );
        }
        let mut timings = Vec::new();
        for mine_s in &mine.strategies {
            let strategy = mine_s.strategy.as_str();
            if theirs.timing(strategy).is_none() {
                unmatched.push(format!(
                    "{name}/{strategy} (not run by {})",
                    other.display()
                ));
                continue;
            }
            let mut figure = PairedFigure {
                workload: name.to_string(),
                strategy: strategy.to_string(),
                this_s: Vec::with_capacity(job.runs),
                other_s: Vec::with_capacity(job.runs),
            };
            let mut peak = 0;
            for pair in 0..job.runs {
                progress.set_message(format!("{name} {strategy} pair {}/{}", pair + 1, job.runs));
                let order = if pair % 2 == 0 {
                    [Side::Other, Side::This]
                } else {
                    [Side::This, Side::Other]
                };
                for side in order {
                    let t = sitting.turn(side, name, strategy)?;
                    match side {
                        Side::This => {
                            figure.this_s.push(t.min_s());
                            peak = t.peak_memory_bytes.max(peak);
                        }
                        Side::Other => figure.other_s.push(t.min_s()),
                    }
                }
            }
            timings.push(StrategyTiming {
                strategy: strategy.to_string(),
                runs_s: figure.this_s.clone(),
                peak_memory_bytes: peak,
                spilled_bytes: mine_s.spilled_bytes,
                instructions: None,
            });
            verdicts.extend(paired::judge(&figure, args.max_regression));
        }
        for theirs_s in &theirs.strategies {
            if mine.timing(&theirs_s.strategy).is_none() {
                unmatched.push(format!(
                    "{name}/{} (not run by this binary)",
                    theirs_s.strategy
                ));
            }
        }
        progress.inc(1);
        if !timings.is_empty() {
            report.workloads.push(WorkloadReport {
                strategies: timings,
                ..mine
            });
        }
    }
    super::finish(args, progress, &report)?;
    print_verdicts(args, job, other, &verdicts, &unmatched)
}

/// The options of every child run besides the workload, strategy and runs:
/// those given that choose the data and the planner's settings (options
/// left at their default are not passed, so an older binary that lacks
/// one still runs).
fn common_options(args: &BenchArgs, job: &Job) -> Vec<String> {
    let mut o = vec![
        "--seed".to_string(),
        args.seed.to_string(),
        "--batch-size".to_string(),
        args.batch_size.to_string(),
    ];
    if let Some(t) = args.threads {
        o.extend(["--threads".to_string(), t.to_string()]);
    }
    if args.scale.is_some() {
        o.extend(["--scale".to_string(), job.scale.to_string()]);
    }
    if let Some(d) = &args.data {
        o.extend(["--data".to_string(), d.display().to_string()]);
    }
    for s in &args.settings {
        o.extend(["--set".to_string(), s.clone()]);
    }
    // --query's files and tables, so that each turn plans the same queries
    for q in &args.queries {
        o.extend(["--query".to_string(), q.display().to_string()]);
    }
    for t in &args.tables {
        o.extend(["--table".to_string(), t.clone()]);
    }
    for t in &args.memory_tables {
        o.extend(["--memory-table".to_string(), t.clone()]);
    }
    if let Some(f) = &args.file {
        o.extend(["--file".to_string(), f.display().to_string()]);
    }
    o
}

impl Sitting<'_> {
    fn binary(&self, side: Side) -> &Path {
        match side {
            Side::This => &self.this,
            Side::Other => self.other,
        }
    }

    /// One child run of `side` with `--runs runs`: its report of
    /// `workload` (`None` when it ran none of the strategies, or when the
    /// other binary does not know the workload).
    fn workload(
        &self,
        side: Side,
        workload: &str,
        strategies: &str,
        runs: usize,
    ) -> Result<Option<WorkloadReport>, CliError> {
        let json = self.scratch.0.join(match side {
            Side::This => "this.json",
            Side::Other => "other.json",
        });
        // a file left by an earlier run must not be read as this one's
        let _ = std::fs::remove_file(&json);
        let bin = self.binary(side);
        let mut cmd = Command::new(bin);
        cmd.arg("bench")
            .args(["--workload", workload, "--strategies", strategies])
            .args(["--runs", &runs.to_string(), "--json"])
            .arg(&json)
            .args(&self.common)
            .stdin(Stdio::null());
        let shown = format!(
            "{} bench --workload {workload} --strategies {strategies} --runs {runs} --json {} {}",
            bin.display(),
            json.display(),
            self.common.join(" ")
        );
        let out = cmd.output().map_err(|e| match side {
            Side::Other => CliError::usage(format!(
                "--against {}: cannot run it: {e}; give the path of an executable tenon binary",
                bin.display()
            )),
            Side::This => CliError::exec(format!("cannot run {shown}: {e}")),
        })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            let code = out
                .status
                .code()
                .map(|c| u8::try_from(c).unwrap_or(u8::MAX));
            if side == Side::Other
                && code == Some(2)
                && stderr.contains("unknown workload")
                && stderr.contains(workload)
            {
                eprintln!(
                    "note: {workload}: {} does not know this workload; it is not compared",
                    bin.display()
                );
                return Ok(None);
            }
            return Err(child_failed(side, &shown, code, &stderr));
        }
        let text = std::fs::read_to_string(&json).map_err(|e| {
            unreadable(
                side,
                &shown,
                &format!("it wrote no JSON file ({e})"),
                &stderr,
            )
        })?;
        let report =
            BenchReport::from_json(&text).map_err(|e| unreadable(side, &shown, &e, &stderr))?;
        Ok(report
            .workloads
            .into_iter()
            .find(|w| w.workload == workload))
    }

    /// One turn of `side`: [`RUNS_PER_TURN`] timed runs of `strategy` on
    /// `workload` in one child process.
    fn turn(&self, side: Side, workload: &str, strategy: &str) -> Result<StrategyTiming, CliError> {
        let w = self.workload(side, workload, strategy, RUNS_PER_TURN)?;
        let shown = format!(
            "{} bench --workload {workload} --strategies {strategy}",
            self.binary(side).display()
        );
        w.and_then(|w| w.strategies.into_iter().find(|s| s.strategy == strategy))
            .filter(|s| !s.runs_s.is_empty())
            .ok_or_else(|| {
                let why = format!("its report has no timed run of {workload} {strategy}");
                unreadable(side, &shown, &why, "")
            })
    }
}

/// A child run that exited with an error: its own code when it refused the
/// arguments (2) or was cancelled (130, 143), otherwise an execution
/// failure (3); its stderr is quoted.
fn child_failed(side: Side, shown: &str, code: Option<u8>, stderr: &str) -> CliError {
    let quoted: Vec<String> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("  {l}"))
        .collect();
    let how = code.map_or("was killed by a signal".to_string(), |c| {
        format!("exited with {c}")
    });
    let advice = match (side, code) {
        (Side::Other, Some(2)) => {
            "; an older tenon may lack a workload, strategy or option of this run: narrow it \
             with --workload and --strategies"
        }
        _ => "",
    };
    CliError {
        code: code.filter(|c| matches!(c, 2 | 130 | 143)).unwrap_or(3),
        message: format!("{shown} {how}{advice}; its stderr:\n{}", quoted.join("\n")),
    }
}

/// A child run whose JSON cannot be read: for the other binary a usage
/// error (it is not a tenon that writes `tenon-bench/1`), for this one a bug.
fn unreadable(side: Side, shown: &str, why: &str, stderr: &str) -> CliError {
    let tail = if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; its stderr:\n  {}", stderr.trim().replace('\n', "\n  "))
    };
    match side {
        Side::Other => CliError::usage(format!(
            "--against: {shown}: {why}; --against needs a tenon binary whose `bench --json` \
             writes the {} format{tail}",
            tenon::bench::SCHEMA
        )),
        Side::This => CliError::exec(format!(
            "{shown}: {why}; this is a bug in tenon, please report it{tail}"
        )),
    }
}

/// Prints each figure's median ratio and interval; exit 1 naming the
/// figures that regressed.
fn print_verdicts(
    args: &BenchArgs,
    job: &Job,
    other: &Path,
    verdicts: &[PairedVerdict],
    unmatched: &[String],
) -> Result<(), CliError> {
    let limit = 1.0 + args.max_regression / 100.0;
    println!();
    println!(
        "against {} in one sitting: {} interleaved pairs per figure (which binary goes first \
         alternates), ratio = this / other, each side's fastest of {RUNS_PER_TURN} runs per turn;",
        other.display(),
        job.runs
    );
    println!(
        "regression: the whole confidence interval of the median ratio above {limit:.3} \
         (--max-regression {}%)",
        args.max_regression
    );
    if job.runs < paired::pairs_needed(TARGET_CONFIDENCE) {
        println!(
            "note: {} pairs are too few for a {:.0}% interval of the median; the widest (the \
             smallest to the largest ratio) is used, with the confidence shown; give --runs {} \
             or more",
            job.runs,
            TARGET_CONFIDENCE * 100.0,
            paired::pairs_needed(TARGET_CONFIDENCE)
        );
    }
    println!(
        "  {:<11} {:<13} {:>9} {:>9} {:>7}  interval (confidence)",
        "workload", "strategy", "this_s", "other_s", "ratio"
    );
    for v in verdicts {
        let mark = if v.regressed { "  REGRESSED" } else { "" };
        println!(
            "  {:<11} {:<13} {:>9.4} {:>9.4} {:>7.3}  [{:.3}, {:.3}] ({:.1}%){mark}",
            v.workload,
            v.strategy,
            v.this_median_s,
            v.other_median_s,
            v.interval.median,
            v.interval.low,
            v.interval.high,
            v.interval.confidence * 100.0,
        );
    }
    for u in unmatched {
        println!("  {u}");
    }
    let regressed: Vec<String> = verdicts
        .iter()
        .filter(|v| v.regressed)
        .map(|v| {
            format!(
                "{} {} (median ratio {:.3}, {:.1}% interval [{:.3}, {:.3}])",
                v.workload,
                v.strategy,
                v.interval.median,
                v.interval.confidence * 100.0,
                v.interval.low,
                v.interval.high
            )
        })
        .collect();
    if !regressed.is_empty() {
        return Err(CliError {
            code: 1,
            message: format!(
                "{} figure(s) regressed by more than {}% against {}: {}",
                regressed.len(),
                args.max_regression,
                other.display(),
                regressed.join("; ")
            ),
        });
    }
    println!("no regression");
    Ok(())
}
