//! `tenon bench`: the hash join strategies side by side on the synthetic
//! workloads (a first version: timing table only; JSON output, baselines
//! and the planner's choice come with the planner).

use std::time::Instant;

use clap::Args;
use tenon::datasets::{Workload, generate, split_batches};
use tenon::kernels::{HashJoin, HashJoinMode, JoinInput, JoinSide, JoinType};
use tenon::measure::count_and_sum;

use super::CliError;

/// Options of `tenon bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Workload to run (repeatable): fk_small, fk_medium, fk_large, zipf,
    /// low_match, m2n. Default: all six hash-join workloads.
    #[arg(long = "workload", value_name = "NAME")]
    workloads: Vec<String>,
    /// Strategies: `all` or a comma-separated list of BROADCAST, SHUFFLE_HASH.
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

fn strategies(spec: &str) -> Result<Vec<(&'static str, HashJoinMode)>, CliError> {
    const ALL: [(&str, HashJoinMode); 2] = [
        ("BROADCAST", HashJoinMode::Broadcast),
        ("SHUFFLE_HASH", HashJoinMode::Partitioned),
    ];
    if spec.eq_ignore_ascii_case("all") {
        return Ok(ALL.to_vec());
    }
    spec.split(',')
        .map(|s| {
            let s = s.trim();
            ALL.iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(s))
                .copied()
                .ok_or_else(|| {
                    CliError::usage(format!(
                        "--strategies: unknown strategy `{s}`; use `all` or a comma-separated \
                         list of BROADCAST, SHUFFLE_HASH"
                    ))
                })
        })
        .collect()
}

pub(crate) fn run(args: BenchArgs) -> Result<(), CliError> {
    let workloads: Vec<Workload> = if args.workloads.is_empty() {
        Workload::HASH_JOIN.to_vec()
    } else {
        args.workloads
            .iter()
            .map(|w| {
                w.parse::<Workload>()
                    .map_err(|e| CliError::usage(format!("--workload: {e}")))
            })
            .collect::<Result<_, _>>()?
    };
    let strategies = strategies(&args.strategies)?;
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
        let t = generate(w, args.scale, args.seed);
        let probe = JoinInput::new(t.probe.schema(), split_batches(&t.probe, args.batch_size));
        let build = JoinInput::from_batch(t.build);
        let n_probe = probe.num_rows();
        let mut results = Vec::new();
        let mut answer: Option<(&str, tenon::measure::JoinSummary)> = None;
        for &(name, mode) in &strategies {
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(JoinSide::Right)
                .batch_size(args.batch_size);
            let mut times = Vec::with_capacity(args.runs);
            let mut summary = None;
            // One warm-up run, then the timed runs.
            for run in 0..=args.runs {
                let start = Instant::now();
                let s = pool
                    .install(|| count_and_sum(&join, &probe, &build))
                    .map_err(|e| CliError::exec(format!("{w} {name}: {e}")))?;
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
                        "{w}: {name} returned {summary:?} but {first} returned {want:?}; \
                         this is a bug in tenon, please report it"
                    )));
                }
            } else {
                answer = Some((name, summary));
            }
            let rows = summary.rows;
            times.sort_by(f64::total_cmp);
            results.push((name, times[times.len() / 2], times[0], rows));
        }
        let best = results.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
        for (name, median, min, rows) in results {
            println!(
                "{:<10} {:<13} {:>10.4} {:>10.4} {:>12} {:>13.1} {:>7.2}",
                w.name(),
                name,
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
