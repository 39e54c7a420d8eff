//! `tenon bench`: the join strategies side by side on the synthetic
//! workloads (timing table only for now; JSON output, baselines and the
//! planner's choice come with issue 6).

use std::time::Instant;

use clap::Args;
use tenon::datasets::{Workload, generate};
use tenon::kernels::Strategy;
use tenon::measure::JoinSummary;
use tenon::suite;

use super::CliError;

/// Options of `tenon bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Workload to run (repeatable): fk_small, fk_medium, fk_large, zipf,
    /// low_match, m2n, band, nlj. Default: all eight.
    #[arg(long = "workload", value_name = "NAME")]
    workloads: Vec<String>,
    /// Strategies: `all` (every strategy that can run the workload, except
    /// the nested loop on the 10M-row equi-joins) or a comma-separated list
    /// of BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP.
    #[arg(long, default_value = "all")]
    strategies: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Timed runs per strategy (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Fraction of the full workload size (1.0 = 10M probe rows).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Seed of the data generator.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Rows per input batch (the probe side is fed as batches of this size).
    #[arg(long, default_value_t = 8192)]
    batch_size: usize,
}

/// The strategies asked for: `None` for `all`.
fn strategies(spec: &str) -> Result<Option<Vec<Strategy>>, CliError> {
    if spec.trim().eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    spec.split(',')
        .map(|s| {
            Strategy::from_name(s).ok_or_else(|| {
                CliError::usage(format!(
                    "--strategies: unknown strategy `{}`; use `all` or a comma-separated list \
                     of BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP",
                    s.trim()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

pub(crate) fn run(args: BenchArgs) -> Result<(), CliError> {
    let workloads: Vec<Workload> = if args.workloads.is_empty() {
        Workload::ALL.to_vec()
    } else {
        args.workloads
            .iter()
            .map(|w| {
                w.parse::<Workload>()
                    .map_err(|e| CliError::usage(format!("--workload: {e}")))
            })
            .collect::<Result<_, _>>()?
    };
    let asked = strategies(&args.strategies)?;
    if args.runs == 0 {
        return Err(CliError::usage("--runs must be at least 1"));
    }
    if !(args.scale > 0.0 && args.scale <= 10.0) {
        return Err(CliError::usage(format!(
            "--scale must be in (0, 10], got {}",
            args.scale
        )));
    }
    if args.batch_size == 0 {
        return Err(CliError::usage("--batch-size must be at least 1"));
    }
    if args.threads == Some(0) {
        return Err(CliError::usage("--threads must be at least 1"));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::exec(format!("cannot start {threads} worker threads: {e}")))?;
    println!(
        "{:<10} {:<13} {:>10} {:>10} {:>12} {:>13} {:>7}",
        "workload", "strategy", "median_s", "min_s", "out_rows", "probe_Mrows/s", "vs_best"
    );
    for w in workloads {
        let valid = suite::strategies(w, false);
        let chosen: Vec<Strategy> = match &asked {
            None => suite::strategies(w, true),
            Some(list) => list.iter().copied().filter(|s| valid.contains(s)).collect(),
        };
        if chosen.is_empty() {
            eprintln!(
                "note: {w}: none of the strategies asked for can run it (it takes {})",
                valid
                    .iter()
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            continue;
        }
        let inputs = suite::inputs(w, generate(w, args.scale, args.seed), args.batch_size);
        let n_probe = inputs.probe.num_rows();
        let mut results = Vec::new();
        let mut answer: Option<(Strategy, JoinSummary)> = None;
        for strategy in chosen {
            let Some(join) = suite::join(w, strategy, args.batch_size) else {
                continue;
            };
            let mut times = Vec::with_capacity(args.runs);
            let mut summary = None;
            // One warm-up run, then the timed runs.
            for run in 0..=args.runs {
                let start = Instant::now();
                let s = pool
                    .install(|| suite::measure(&join, &inputs))
                    .map_err(|e| CliError::exec(format!("{w} {strategy}: {e}")))?;
                if run > 0 {
                    times.push(start.elapsed().as_secs_f64());
                }
                summary = Some(s);
            }
            let Some(summary) = summary else { continue };
            // Every strategy must give the same answer.
            if let Some((first, want)) = &answer {
                if *want != summary {
                    return Err(CliError::exec(format!(
                        "{w}: {strategy} returned {summary:?} but {first} returned {want:?}; \
                         this is a bug in tenon, please report it"
                    )));
                }
            } else {
                answer = Some((strategy, summary));
            }
            times.sort_by(f64::total_cmp);
            results.push((strategy, times[times.len() / 2], times[0], summary.rows));
        }
        let best = results.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
        for (strategy, median, min, rows) in results {
            println!(
                "{:<10} {:<13} {:>10.4} {:>10.4} {:>12} {:>13.1} {:>7.2}",
                w.name(),
                strategy.name(),
                median,
                min,
                rows,
                n_probe as f64 / median / 1e6,
                median / best
            );
        }
    }
    Ok(())
}
