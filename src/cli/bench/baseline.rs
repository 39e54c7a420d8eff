//! `tenon bench --baseline PATH`: an earlier `--json` report read before
//! any run, and this run's figures compared with it ([`tenon::bench::compare`]).

use tenon::bench::{BenchReport, compare};

use super::BenchArgs;
use crate::cli::CliError;

/// The report of an earlier `--json` run.
pub(super) fn read_baseline(path: &std::path::Path) -> Result<BenchReport, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::usage(format!(
            "--baseline {}: cannot read it: {e}",
            path.display()
        ))
    })?;
    BenchReport::from_json(&text).map_err(|e| {
        CliError::usage(format!(
            "--baseline {}: not a `tenon bench --json` file: {e}",
            path.display()
        ))
    })
}

/// Prints each figure's change against `base`; exit 1 when one regressed.
pub(super) fn compare_with_baseline(
    args: &BenchArgs,
    base: &BenchReport,
    report: &BenchReport,
) -> Result<(), CliError> {
    let c = compare(base, report, args.max_regression);
    println!();
    println!(
        "against the baseline (regression: median +{}% and more than the baseline's spread):",
        args.max_regression
    );
    for ch in &c.changes {
        let mark = if ch.regressed { "  REGRESSED" } else { "" };
        if ch.measure == "instructions" {
            println!(
                "  {:<10} {:<13} {:>12} -> {:>12} instructions  {:>+7.2}%{mark}",
                ch.workload, ch.strategy, ch.baseline_s, ch.current_s, ch.change_pct,
            );
        } else {
            println!(
                "  {:<10} {:<13} {:>9.4} s -> {:>9.4} s  {:>+7.1}%  (baseline spread {:.4} s){mark}",
                ch.workload,
                ch.strategy,
                ch.baseline_s,
                ch.current_s,
                ch.change_pct,
                ch.baseline_spread_s,
            );
        }
    }
    for u in &c.unmatched {
        println!("  {u}");
    }
    let n = c.regressions().count();
    if n > 0 {
        return Err(CliError {
            code: 1,
            message: format!(
                "{n} figure(s) regressed by more than {}% against {}",
                args.max_regression,
                args.baseline
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            ),
        });
    }
    println!("no regression");
    Ok(())
}
