//! `tenon bench`: the join strategies side by side on the synthetic
//! workloads, against what the planner chooses by default and under each
//! workload's hint (regret = chosen / fastest); `--json` for machines,
//! `--svg` for people, `--against` (another binary, runs interleaved) and
//! `--baseline` (an earlier JSON file) for CI (exit 1 past the threshold).
//! The report, the comparisons and the chart are [`tenon::bench`]'s.

mod against;
mod baseline;
mod query;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use clap::Args;
use tenon::bench::{BenchReport, Choice, Settings, StrategyTiming, WorkloadReport, svg};
use tenon::datasets::{Tables, Workload, generate};
use tenon::kernels::{JoinKernel, MemoryBudget, Strategy};
use tenon::measure::JoinSummary;
use tenon::suite;
use tenon::suite::expansion::{self, Expansion, UNNEST};

use super::{CliError, write_text_atomically};

/// Options of `tenon bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Workload to run (repeatable): fk_small, fk_medium, fk_large, zipf,
    /// low_match, m2n, band, nlj, interval, asof (joins), unnest,
    /// unnest_left (expansions). Default: all twelve.
    #[arg(long = "workload", value_name = "NAME")]
    workloads: Vec<String>,
    /// Strategies: `all` (every strategy that can run the workload, except
    /// the nested loop on the 10M-row equi-joins) or a comma-separated list
    /// of BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP (joins) and
    /// UNNEST (the expansion kernel, the one way to run unnest and
    /// unnest_left).
    #[arg(long, default_value = "all")]
    strategies: String,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Timed runs per strategy (the median is reported; default 5), or
    /// with --against the pairs of runs per strategy (default 10).
    #[arg(long)]
    runs: Option<usize>,
    /// Fraction of the full workload size (1.0 = 10M probe rows; default
    /// 1.0, or 0.01 with --measure instructions); with --query, the scale
    /// of the built-in TPC-H tables (default 0.01).
    #[arg(long)]
    scale: Option<f64>,
    /// What to measure besides wall time: `instructions` also counts each
    /// strategy's (or query variant's) instructions with valgrind's callgrind
    /// on one thread (repeatable to 0.01%, a query's to 0.5%, for CI
    /// baselines; about 50x slower per run).
    #[arg(long, value_enum, default_value_t = Measure::Time)]
    measure: Measure,
    /// Seed of the data generator.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Read each join workload from DIR/<workload>/probe.* and build.* (as
    /// written by `tenon gen synth <workload> --out DIR/<workload>`)
    /// instead of generating it (--scale and --seed then do not apply);
    /// the expansion workloads are always generated, so they run only when
    /// named with --workload.
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Rows per input batch (the probe side is fed as batches of this size).
    #[arg(long, default_value_t = 8192)]
    batch_size: usize,
    /// A planner setting KEY=VALUE for the default choice (repeatable),
    /// e.g. broadcast_threshold=16MB or disabled_strategies=BROADCAST.
    /// With memory_limit=X every join runs through the executor, as
    /// `tenon query` runs it, under that limit (spilling where it must;
    /// the table's spilled_MiB), and the time includes the scan of the
    /// in-memory inputs and the final aggregate; without it the kernels
    /// run alone.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Write the results as JSON (schema in `tenon::bench::report`).
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Write a chart of the results as SVG.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
    /// Compare with an earlier `--json` file; exit 1 when a median grew by
    /// more than --max-regression percent and by more than the baseline's
    /// own spread of runs. For history: two medians taken minutes apart
    /// differ by what the machine did in between (10-20% on a busy
    /// runner), which a few runs' spread does not bound; gate on
    /// --against (wall time, one sitting) or with --measure instructions
    /// in both files (low noise).
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,
    /// Compare this binary with another tenon binary in one sitting: for
    /// each workload and strategy both run, --runs pairs of turns, a turn
    /// being one child process of a binary (its fastest of 3 runs),
    /// interleaved (which goes first alternates); exit 1 when the whole
    /// ~95% confidence interval of the median ratio this/other (sign
    /// test) lies above 1 + --max-regression/100. --json and --svg then
    /// hold this binary's turns.
    #[arg(long, value_name = "TENON", conflicts_with = "baseline")]
    against: Option<PathBuf>,
    /// The threshold of --baseline and --against, in percent.
    #[arg(long, default_value_t = 10.0, value_name = "PCT")]
    max_regression: f64,
    /// Bench a query of your own instead of the workloads (repeatable):
    /// a .sql file holding one query (and any DDL it needs around it), or
    /// a directory whose *.sql files run in name order (without --table
    /// and --memory-table, on the built-in TPC-H tables). Each join runs
    /// under every strategy that can run it (a hint block inserted), one
    /// join at a time, and every combination when the query has at most 3
    /// joins; --workload then narrows to `FILE#joinN` or `FILE#all`.
    #[arg(long = "query", value_name = "FILE|DIR")]
    queries: Vec<PathBuf>,
    /// A table the queries read, NAME=PATH (repeatable), as `tenon query
    /// --table` registers it.
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// A table held in memory, NAME=PATH (repeatable), as `tenon query
    /// --memory-table`: read once, so the times leave reading it out.
    #[arg(long = "memory-table", value_name = "NAME=PATH")]
    memory_tables: Vec<String>,
    /// A script of DDL (CREATE TABLE ... WITH, CREATE VIEW) run before
    /// the queries are planned.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Option<PathBuf>,
}

/// What `tenon bench` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Measure {
    /// Wall time only.
    Time,
    /// Wall time, and instructions counted by callgrind.
    Instructions,
}

/// The strategies asked for: `None` for `all`.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    /// The join strategies.
    joins: Vec<Strategy>,
    /// Whether UNNEST (the expansion kernel) was named.
    unnest: bool,
}

/// Parses `--strategies`.
fn strategies(spec: &str) -> Result<Option<Asked>, CliError> {
    if spec.trim().eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let mut asked = Asked {
        joins: Vec::new(),
        unnest: false,
    };
    for s in spec.split(',') {
        if s.trim().eq_ignore_ascii_case(UNNEST) {
            asked.unnest = true;
            continue;
        }
        asked.joins.push(Strategy::from_name(s).ok_or_else(|| {
            CliError::usage(format!(
                "--strategies: unknown strategy `{}`; use `all` or a comma-separated list of \
                 BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP, {UNNEST}",
                s.trim()
            ))
        })?);
    }
    Ok(Some(asked))
}

/// One workload of `tenon bench`: a join of two tables or an expansion.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Join(Workload),
    Expansion(Expansion),
}

/// The workload called `name`, or a usage error listing every name.
fn target(name: &str) -> Result<Target, CliError> {
    if let Some(w) = Workload::from_name(name) {
        return Ok(Target::Join(w));
    }
    if let Some(e) = Expansion::from_name(name) {
        return Ok(Target::Expansion(e));
    }
    let names: Vec<&str> = Workload::ALL
        .iter()
        .map(|w| w.name())
        .chain(Expansion::ALL.iter().map(|e| e.name()))
        .collect();
    Err(CliError::usage(format!(
        "--workload: unknown workload {name:?}; valid workloads are: {}",
        names.join(", ")
    )))
}

/// What `tenon bench` was asked to do, checked.
struct Job {
    workloads: Vec<Target>,
    /// `None`: every strategy that can run a workload, and the planner's.
    asked: Option<Asked>,
    scale: f64,
    /// The planner's settings (`--set`).
    config: tenon::Config,
    baseline: Option<BenchReport>,
    pool: rayon::ThreadPool,
    threads: usize,
    /// Timed runs per strategy (pairs with --against).
    runs: usize,
    /// The testing aid of [`against::InjectedSlowdown`].
    slowdown: Option<against::InjectedSlowdown>,
}

pub(crate) fn run(args: BenchArgs) -> Result<(), CliError> {
    let job = check_args(&args)?;
    if !args.queries.is_empty() {
        return query::run(&args, &job);
    }
    if let Some(other) = &args.against {
        let names: Vec<String> = job
            .workloads
            .iter()
            .map(|t| match t {
                Target::Join(w) => w.name().to_string(),
                Target::Expansion(e) => e.name().to_string(),
            })
            .collect();
        return against::run(&args, &job, other, &names);
    }
    let (progress, mut report) = start(&args, &job, job.workloads.len());
    for &target in &job.workloads {
        let measured = match target {
            Target::Join(w) => measure_workload(&args, &job, w, &progress)?,
            Target::Expansion(e) => measure_expansion(&args, &job, e, &progress)?,
        };
        if let Some(measured) = measured {
            progress.inc(1);
            report.workloads.push(measured);
        }
    }
    finish(&args, progress, &report)?;
    match &job.baseline {
        Some(base) => baseline::compare_with_baseline(&args, base, &report),
        None => Ok(()),
    }
}

/// Checks the options (before anything runs) and reads the baseline: a bad
/// file is reported before minutes of runs.
fn check_args(args: &BenchArgs) -> Result<Job, CliError> {
    // --query names its own workloads and rows (query.rs checks them)
    let queries = !args.queries.is_empty();
    if queries {
        query::check(args)?;
    } else if !args.tables.is_empty() || !args.memory_tables.is_empty() || args.file.is_some() {
        return Err(CliError::usage(
            "--table, --memory-table and -f are the tables of --query: name the query files \
             with --query FILE|DIR",
        ));
    }
    let workloads: Vec<Target> = if queries {
        Vec::new()
    } else if args.workloads.is_empty() {
        let joins = Workload::ALL.into_iter().map(Target::Join);
        // with --data, only what is read from it (--data's help)
        let expansions = Expansion::ALL
            .into_iter()
            .map(Target::Expansion)
            .filter(|_| args.data.is_none());
        joins.chain(expansions).collect()
    } else {
        args.workloads
            .iter()
            .map(|w| target(w))
            .collect::<Result<_, _>>()?
    };
    let asked = if queries {
        None
    } else {
        strategies(&args.strategies)?
    };
    let runs = args
        .runs
        .unwrap_or(if args.against.is_some() { 10 } else { 5 });
    if runs == 0 {
        return Err(CliError::usage("--runs must be at least 1"));
    }
    if args.against.is_some() && args.measure == Measure::Instructions {
        return Err(CliError::usage(
            "--against compares wall time; instruction counts need no pairing: compare them \
             with --measure instructions --baseline FILE",
        ));
    }
    let scale = args.scale.unwrap_or(match args.measure {
        Measure::Time => 1.0,
        Measure::Instructions => 0.01,
    });
    if !(scale > 0.0 && scale <= 10.0) {
        return Err(CliError::usage(format!(
            "--scale must be in (0, 10], got {scale}"
        )));
    }
    if args.measure == Measure::Instructions {
        super::callgrind::check()?;
    }
    // The same bounds as `tenon query` and `Config` (threads at most
    // MAX_THREADS, batch sizes 1 to MAX_BATCH_SIZE).
    let mut bounds = tenon::Config::default();
    bounds
        .set("batch_size", &args.batch_size.to_string())
        .map_err(|e| CliError::usage(format!("--batch-size {}: {e}", args.batch_size)))?;
    if let Some(t) = args.threads {
        if t == 0 {
            return Err(CliError::usage("--threads must be at least 1"));
        }
        bounds
            .set("threads", &t.to_string())
            .map_err(|e| CliError::usage(format!("--threads {t}: {e}")))?;
    }
    if !(args.max_regression.is_finite() && args.max_regression >= 0.0) {
        return Err(CliError::usage(format!(
            "--max-regression must be a percentage of at least 0, got {}",
            args.max_regression
        )));
    }
    let mut config = tenon::Config::default();
    for pair in &args.settings {
        config
            .set_pair(pair)
            .map_err(|e| CliError::usage(format!("--set: {e}")))?;
    }
    if config.memory_limit.is_some() && args.measure == Measure::Instructions {
        return Err(CliError::usage(
            "--measure instructions counts the kernels alone, which do not spill; \
             drop --set memory_limit (or measure time)",
        ));
    }
    let baseline = match &args.baseline {
        None => None,
        Some(path) => Some(baseline::read_baseline(path)?),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::exec(format!("cannot start {threads} worker threads: {e}")))?;
    Ok(Job {
        workloads,
        asked,
        scale,
        config,
        baseline,
        pool,
        threads,
        runs,
        slowdown: against::InjectedSlowdown::from_env()?,
    })
}

/// Workload `w`: the planner's choices, then every strategy measured
/// (`None` when none of the strategies asked for can run it).
fn measure_workload(
    args: &BenchArgs,
    job: &Job,
    w: Workload,
    progress: &indicatif::ProgressBar,
) -> Result<Option<WorkloadReport>, CliError> {
    let tables = match &args.data {
        Some(dir) => load_workload(dir, w)?,
        None => generate(w, job.scale, args.seed),
    };
    let inputs = suite::inputs(w, tables, args.batch_size);
    let plan = |hint: Option<&str>| -> Result<Choice, CliError> {
        let planned = suite::planner_choice(w, &inputs, hint, &job.config)
            .map_err(|e| CliError::usage(format!("{w}: the planner refused its join: {e}")))?;
        Ok(Choice {
            strategy: planned.strategy.name().to_string(),
            hint: hint.map(str::to_string),
            reason: planned.reason,
        })
    };
    let default = plan(None)?;
    let hinted = plan(Some(suite::hint(w)))?;
    let valid = suite::strategies(w, false);
    let mut chosen: Vec<Strategy> = match &job.asked {
        None => suite::strategies(w, true),
        Some(asked) => asked
            .joins
            .iter()
            .copied()
            .filter(|s| valid.contains(s))
            .collect(),
    };
    if job.asked.is_none() {
        // The planner's choices are measured too, so that regret is known.
        for c in [&default, &hinted] {
            if let Some(s) = Strategy::from_name(&c.strategy)
                && !chosen.contains(&s)
            {
                chosen.push(s);
            }
        }
    }
    if chosen.is_empty() {
        eprintln!(
            "note: {w}: none of the strategies asked for can run it (it takes {})",
            valid
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(None);
    }
    // Under a memory limit the joins run through the executor, which
    // spills (suite::executed); otherwise the kernels run alone.
    let session = match job.config.memory_limit {
        None => None,
        Some(_) => {
            let mut config = job.config.clone();
            config.threads = job.threads;
            config.batch_size = args.batch_size;
            Some(
                suite::executed::session(&inputs, &config)
                    .map_err(|e| CliError::exec(format!("{w}: {e}")))?,
            )
        }
    };
    let mut timings = Vec::new();
    let mut answer: Option<(Strategy, JoinSummary)> = None;
    for strategy in chosen {
        let timed = match &session {
            Some(session) => time_executed(job, session, w, strategy, progress)?,
            None => time_strategy(args, job, w, strategy, &inputs, progress)?,
        };
        let Some((timing, summary)) = timed else {
            continue;
        };
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
        timings.push(timing);
    }
    Ok(Some(WorkloadReport {
        workload: w.name().to_string(),
        probe_rows: inputs.probe.num_rows() as u64,
        build_rows: inputs.build.num_rows() as u64,
        output_rows: answer.map_or(0, |(_, s)| s.rows),
        strategies: timings,
        default,
        hinted,
    }))
}

/// Expansion `e`: one warm-up run and `--runs` timed runs of the
/// expansion kernel (and its instruction count with `--measure
/// instructions`); `None` when `--strategies` does not name UNNEST. There
/// is no choice to make, so the default and the hinted choice are UNNEST.
fn measure_expansion(
    args: &BenchArgs,
    job: &Job,
    e: Expansion,
    progress: &indicatif::ProgressBar,
) -> Result<Option<WorkloadReport>, CliError> {
    if job.asked.as_ref().is_some_and(|a| !a.unnest) {
        eprintln!(
            "note: {}: an expansion, not a join: only {UNNEST} runs it",
            e.name()
        );
        return Ok(None);
    }
    if job.config.memory_limit.is_some() {
        eprintln!(
            "note: {}: the expansion kernel holds no data of its own: it runs alone, \
             as without memory_limit",
            e.name()
        );
    }
    let inputs = expansion::expansion_inputs(e, job.scale, args.seed, args.batch_size);
    let mut runs_s = Vec::with_capacity(job.runs);
    let mut summary = None;
    for run in 0..=job.runs {
        progress.set_message(format!("{} {UNNEST} run {run}/{}", e.name(), job.runs));
        let start = Instant::now();
        let s = job
            .pool
            .install(|| expansion::callgrind_measured_region_of_expansion(&inputs))
            .map_err(|err| CliError::exec(format!("{}: {err}", e.name())))?;
        against::InjectedSlowdown::pad(job.slowdown.as_ref(), e.name(), start.elapsed());
        if run > 0 {
            runs_s.push(start.elapsed().as_secs_f64());
        }
        summary = Some(s);
    }
    let instructions = match args.measure {
        Measure::Time => None,
        Measure::Instructions => {
            progress.set_message(format!("{}: callgrind", e.name()));
            Some(super::callgrind::count(&super::callgrind::Child {
                workload: e.name(),
                strategy: UNNEST,
                scale: job.scale,
                seed: args.seed,
                batch_size: args.batch_size,
                data: None,
                settings: &args.settings,
            })?)
        }
    };
    let choice = Choice {
        strategy: UNNEST.to_string(),
        hint: None,
        reason: "an expansion has one kernel: no strategy to choose".to_string(),
    };
    Ok(Some(WorkloadReport {
        workload: e.name().to_string(),
        probe_rows: inputs.num_rows() as u64,
        build_rows: 0,
        output_rows: summary.map_or(0, |s| s.rows),
        strategies: vec![StrategyTiming {
            strategy: UNNEST.to_string(),
            runs_s,
            // the kernel reserves nothing of its own: its index vectors
            // are per output batch (charged by the executor, not here)
            peak_memory_bytes: 0,
            spilled_bytes: 0,
            instructions,
        }],
        default: choice.clone(),
        hinted: choice,
    }))
}

/// One warm-up run and `--runs` timed runs of `strategy` on `w` (and its
/// instruction count with `--measure instructions`), with its answer;
/// `None` when the suite has no such join.
fn time_strategy(
    args: &BenchArgs,
    job: &Job,
    w: Workload,
    strategy: Strategy,
    inputs: &suite::Inputs,
    progress: &indicatif::ProgressBar,
) -> Result<Option<(StrategyTiming, JoinSummary)>, CliError> {
    let Some(join) = suite::join(w, strategy, args.batch_size) else {
        return Ok(None);
    };
    let mut runs_s = Vec::with_capacity(job.runs);
    let mut peak = 0usize;
    let mut summary = None;
    for run in 0..=job.runs {
        progress.set_message(format!("{w} {strategy} run {run}/{}", job.runs));
        let budget = MemoryBudget::unlimited();
        let measured = join.clone().memory(budget.clone());
        let start = Instant::now();
        let s = job
            .pool
            .install(|| suite::callgrind_measured_region(&measured, inputs))
            .map_err(|e| CliError::exec(format!("{w} {strategy}: {e}")))?;
        against::InjectedSlowdown::pad(job.slowdown.as_ref(), w.name(), start.elapsed());
        if run > 0 {
            runs_s.push(start.elapsed().as_secs_f64());
        }
        peak = peak.max(budget.peak());
        summary = Some(s);
    }
    let Some(summary) = summary else {
        return Ok(None);
    };
    let instructions = match args.measure {
        Measure::Time => None,
        Measure::Instructions => {
            progress.set_message(format!("{w} {strategy}: callgrind"));
            Some(super::callgrind::count(&super::callgrind::Child {
                workload: w.name(),
                strategy: strategy.name(),
                scale: job.scale,
                seed: args.seed,
                batch_size: args.batch_size,
                data: args.data.as_deref(),
                settings: &args.settings,
            })?)
        }
    };
    let timing = StrategyTiming {
        strategy: strategy.name().to_string(),
        runs_s,
        peak_memory_bytes: peak as u64,
        spilled_bytes: 0,
        instructions,
    };
    Ok(Some((timing, summary)))
}

/// One warm-up run and `--runs` timed runs of `strategy` on `w` through
/// the executor under `--set memory_limit` (suite::executed), with the
/// bytes it spilled; `None` when the suite has no such join.
fn time_executed(
    job: &Job,
    session: &tenon::Session,
    w: Workload,
    strategy: Strategy,
    progress: &indicatif::ProgressBar,
) -> Result<Option<(StrategyTiming, JoinSummary)>, CliError> {
    if !suite::strategies(w, false).contains(&strategy) {
        return Ok(None);
    }
    let mut runs_s = Vec::with_capacity(job.runs);
    let (mut peak, mut spilled) = (0u64, 0u64);
    let mut summary = None;
    for run in 0..=job.runs {
        progress.set_message(format!("{w} {strategy} run {run}/{}", job.runs));
        let e = suite::executed::run(session, w, strategy)
            .map_err(|e| CliError::exec(format!("{w} {strategy}: {e}")))?;
        // the executor times itself: the injected spinning is timed here
        let start = Instant::now();
        let measured = Duration::from_secs_f64(e.seconds.max(0.0));
        against::InjectedSlowdown::pad(job.slowdown.as_ref(), w.name(), measured);
        if run > 0 {
            runs_s.push(e.seconds + start.elapsed().as_secs_f64());
        }
        peak = peak.max(e.peak_memory);
        spilled = spilled.max(e.spilled_bytes);
        summary = Some(e.summary);
    }
    let timing = StrategyTiming {
        strategy: strategy.name().to_string(),
        runs_s,
        peak_memory_bytes: peak,
        spilled_bytes: spilled,
        instructions: None,
    };
    Ok(summary.map(|s| (timing, s)))
}

/// Workload `w`'s two tables from `dir/<w>/probe.*` and `build.*`, each as
/// one batch, with the columns `tenon gen synth` writes.
fn load_workload(dir: &std::path::Path, w: Workload) -> Result<Tables, CliError> {
    let expected = generate(w, 1e-9, 0);
    let side = |name: &str, want: &RecordBatch| -> Result<RecordBatch, CliError> {
        let folder = dir.join(w.name());
        let path = ["parquet", "arrow", "csv"]
            .iter()
            .map(|ext| folder.join(format!("{name}.{ext}")))
            .find(|p| p.exists())
            .ok_or_else(|| {
                CliError::usage(format!(
                    "--data: no {name}.parquet, {name}.arrow or {name}.csv in {}; write it with \
                     `tenon gen synth {w} --out {}`",
                    folder.display(),
                    folder.display()
                ))
            })?;
        let table = tenon::io::read_table(&path, 1 << 16)
            .map_err(|e| CliError::usage(format!("--data: {e}")))?;
        let shape = |s: &arrow_schema::Schema| -> Vec<(String, arrow_schema::DataType)> {
            s.fields()
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect()
        };
        if shape(&table.schema) != shape(&want.schema()) {
            return Err(CliError::usage(format!(
                "--data: {} has the columns {:?}, but {w} needs {:?}; write it with \
                 `tenon gen synth {w}`",
                path.display(),
                shape(&table.schema),
                shape(&want.schema())
            )));
        }
        arrow_select::concat::concat_batches(&want.schema(), &table.batches)
            .map_err(|e| CliError::usage(format!("--data: {}: {e}", path.display())))
    };
    Ok(Tables {
        probe: side("probe", &expected.probe)?,
        build: side("build", &expected.build)?,
    })
}

/// The terminal table: one line per strategy, then the planner's choices.
fn print_table(report: &BenchReport) {
    println!(
        "{:<11} {:<13} {:>10} {:>10} {:>10} {:>12} {:>13} {:>9} {:>11} {:>7}  chosen",
        "workload",
        "strategy",
        "median_s",
        "min_s",
        "max_s",
        "out_rows",
        "probe_Mrows/s",
        "peak_MiB",
        "spilled_MiB",
        "vs_best"
    );
    for w in &report.workloads {
        let best = w.fastest().map_or(0.0, StrategyTiming::median_s);
        for t in &w.strategies {
            let median = t.median_s();
            let mut marks: Vec<String> = Vec::new();
            if t.strategy == w.default.strategy {
                marks.push("default".into());
            }
            if t.strategy == w.hinted.strategy {
                marks.push("hint".into());
            }
            if let Some(n) = t.instructions {
                marks.push(format!("instructions={n}"));
            }
            println!(
                "{:<11} {:<13} {:>10.4} {:>10.4} {:>10.4} {:>12} {:>13.1} {:>9.1} {:>11.1} {:>7.2}  {}",
                w.workload,
                t.strategy,
                median,
                t.min_s(),
                t.max_s(),
                w.output_rows,
                w.probe_rows as f64 / median.max(1e-12) / 1e6,
                t.peak_memory_bytes as f64 / (1 << 20) as f64,
                t.spilled_bytes as f64 / (1 << 20) as f64,
                if best > 0.0 { median / best } else { 0.0 },
                marks.join(",")
            );
        }
    }
    println!();
    for w in &report.workloads {
        let regret = |c: &Choice| w.regret(c).map_or("n/a".to_string(), |r| format!("{r:.2}"));
        if w.hinted.hint.is_none() {
            println!(
                "{:<11} {} (no strategy to choose)",
                w.workload, w.default.strategy
            );
            continue;
        }
        println!(
            "{:<11} default {} (regret {}); hint {} -> {} (regret {})",
            w.workload,
            w.default.strategy,
            regret(&w.default),
            w.hinted.hint.as_deref().unwrap_or(""),
            w.hinted.strategy,
            regret(&w.hinted)
        );
    }
}

/// Clears the bar, prints the report's table and writes its `--json` and
/// `--svg` files.
fn finish(
    args: &BenchArgs,
    progress: indicatif::ProgressBar,
    report: &BenchReport,
) -> Result<(), CliError> {
    progress.finish_and_clear();
    print_table(report);
    if let Some(path) = &args.json {
        write_text_atomically(path, &report.to_json())?;
    }
    if let Some(path) = &args.svg {
        write_text_atomically(path, &svg::chart(report))?;
    }
    Ok(())
}

/// A bar of `workloads` workloads on stderr (indicatif draws nothing when
/// stderr is not a terminal) and an empty report of `job`'s settings.
fn start(args: &BenchArgs, job: &Job, workloads: usize) -> (indicatif::ProgressBar, BenchReport) {
    let progress = indicatif::ProgressBar::new(workloads as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:24} {pos}/{len} workloads  {msg}")
    {
        progress.set_style(style);
    }
    let report = BenchReport {
        tenon_version: env!("CARGO_PKG_VERSION").to_string(),
        settings: Settings {
            threads: job.threads,
            runs: job.runs,
            scale: job.scale,
            seed: args.seed,
            batch_size: args.batch_size,
        },
        workloads: Vec::new(),
    };
    (progress, report)
}
