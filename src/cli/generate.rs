//! `tenon gen`: write benchmark data to files.
//!
//! `tenon gen tpch --scale SF --out DIR [--format parquet|csv|arrow]` writes
//! the eight TPC-H tables (tpchgen, generated in parallel) as
//! `DIR/<table>.<ext>`, each file complete or absent (written to a
//! temporary file and renamed).
//!
//! `tenon gen synth WORKLOAD --out DIR [--rows N] [--seed S] [--format ...]`
//! writes the two tables of a synthetic join workload (`tenon::datasets`) as
//! `DIR/probe.<ext>` and `DIR/build.<ext>`, and prints one line per file to
//! stdout. `--rows` sets the probe side's row count; the build side scales by
//! the same factor. The data is a pure function of (workload, rows, seed).

use std::io::Write;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use clap::{Args, Subcommand, ValueEnum};

use super::CliError;
use tenon::datasets::{Workload, generate, split_batches};
use tenon::io::{OutputFormat, write_to_path};

/// The largest scale (multiple of a workload's full size) `gen synth` writes.
const MAX_SYNTH_SCALE: usize = 10;

/// Rows per record batch handed to the writers (an Arrow IPC file keeps
/// these batches; Parquet row groups and CSV do not depend on them).
const SYNTH_BATCH_ROWS: usize = 65_536;

/// Arguments of `tenon gen`.
#[derive(Debug, Args)]
pub(crate) struct GenArgs {
    #[command(subcommand)]
    what: GenCommand,
}

#[derive(Debug, Subcommand)]
enum GenCommand {
    /// The eight TPC-H tables (region, nation, supplier, customer, part,
    /// partsupp, orders, lineitem) at a scale factor.
    Tpch(TpchArgs),
    /// The probe and build tables of a synthetic join workload (fk_small,
    /// fk_medium, fk_large, zipf, low_match, m2n, band, nlj, interval, asof).
    Synth(SynthArgs),
}

/// Arguments of `tenon gen tpch`.
#[derive(Debug, Args)]
struct TpchArgs {
    /// TPC-H scale factor (1 = about 1 GB as text, 6M lineitem rows).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Directory to write the tables to (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// File format.
    #[arg(long, value_enum, default_value_t = FileFormat::Parquet)]
    format: FileFormat,
}

/// Arguments of `tenon gen synth`.
#[derive(Debug, Args)]
struct SynthArgs {
    /// Workload: fk_small, fk_medium, fk_large, zipf, low_match, m2n, band,
    /// nlj, interval or asof (see datasets/README.md), or presorted: fk_medium with both
    /// sides sorted on the key (the sort-merge join's no-sort case).
    workload: String,
    /// Directory to write probe.<ext> and build.<ext> to (created if
    /// missing).
    #[arg(long)]
    out: PathBuf,
    /// Probe-side rows (at least 1, at most 10 times the full size); the
    /// build side scales by the same factor. Default: the full size (e.g.
    /// 10M probe rows for fk_small).
    #[arg(long, value_name = "N")]
    rows: Option<usize>,
    /// Seed of the generator: the same seed gives byte-identical files.
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    /// File format.
    #[arg(long, value_enum, default_value_t = FileFormat::Parquet)]
    format: FileFormat,
}

/// Formats `tenon gen` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum FileFormat {
    Parquet,
    Csv,
    Arrow,
}

impl FileFormat {
    fn output(self) -> (OutputFormat, &'static str) {
        match self {
            FileFormat::Parquet => (OutputFormat::Parquet, "parquet"),
            FileFormat::Csv => (OutputFormat::Csv, "csv"),
            FileFormat::Arrow => (OutputFormat::Arrow, "arrow"),
        }
    }
}

pub(crate) fn run(args: GenArgs) -> Result<(), CliError> {
    match args.what {
        GenCommand::Tpch(a) => tpch(a),
        GenCommand::Synth(a) => synth(a),
    }
}

fn tpch(args: TpchArgs) -> Result<(), CliError> {
    if !(args.scale.is_finite() && args.scale > 0.0) {
        return Err(CliError::usage(format!(
            "--scale {}: the scale factor must be a number greater than 0 (e.g. 0.01, 1, 10)",
            args.scale
        )));
    }
    create_out_dir(&args.out)?;
    let (format, ext) = args.format.output();
    for (name, batches) in tenon_datasets::tpch::tpch_tables(args.scale) {
        let Some(first) = batches.first() else {
            continue;
        };
        let path = args.out.join(format!("{name}.{ext}"));
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        write_to_path(&batches, &first.schema(), format, &path)
            .map_err(|e| CliError::exec(e.to_string()))?;
        eprintln!("{name}: {rows} rows -> {}", path.display());
    }
    Ok(())
}

/// The generator scale that gives `workload` `rows` probe rows, or a usage
/// error for a row count of 0 or beyond [`MAX_SYNTH_SCALE`] times the full
/// size.
fn synth_scale(workload: Workload, rows: Option<usize>) -> Result<f64, CliError> {
    let (full_probe, _) = workload.full_size();
    let Some(rows) = rows else {
        return Ok(1.0);
    };
    if rows == 0 {
        return Err(CliError::usage(
            "--rows 0: the probe side needs at least 1 row",
        ));
    }
    let max = full_probe * MAX_SYNTH_SCALE;
    if rows > max {
        return Err(CliError::usage(format!(
            "--rows {rows}: at most {max} rows for {workload} ({MAX_SYNTH_SCALE} times its \
             full size of {full_probe} probe rows); use a smaller --rows"
        )));
    }
    Ok(rows as f64 / full_probe as f64)
}

fn synth(args: SynthArgs) -> Result<(), CliError> {
    let presorted = args.workload == PRESORTED;
    let workload: Workload = if presorted {
        Workload::FkMedium
    } else {
        args.workload
            .parse()
            .map_err(|e| CliError::usage(format!("{e}; or `{PRESORTED}`")))?
    };
    let scale = synth_scale(workload, args.rows)?;
    create_out_dir(&args.out)?;
    let (format, ext) = args.format.output();
    let progress = Progress::new();
    progress.show(&format!(
        "generating {} (seed {})",
        args.workload, args.seed
    ));
    let mut tables = generate(workload, scale, args.seed);
    if presorted {
        tables.probe = sorted_on_key(&tables.probe)?;
        tables.build = sorted_on_key(&tables.build)?;
    }
    if let Some(rows) = args.rows {
        debug_assert_eq!(tables.probe.num_rows(), rows);
    }
    let probe_path = args.out.join(format!("probe.{ext}"));
    let build_path = args.out.join(format!("build.{ext}"));
    progress.show(&format!(
        "writing {} and {}",
        probe_path.display(),
        build_path.display()
    ));
    // The two files are independent: write them side by side.
    let (probe_written, build_written) = rayon::join(
        || write_table(&tables.probe, format, &probe_path),
        || write_table(&tables.build, format, &build_path),
    );
    progress.clear();
    // Report what was written even if the other file failed.
    let mut stdout = std::io::stdout().lock();
    let mut first_error = None;
    for (name, batch, path, written) in [
        ("probe", &tables.probe, &probe_path, probe_written),
        ("build", &tables.build, &build_path, build_written),
    ] {
        match written {
            Ok(()) => {
                // A closed stdout must not turn a finished write into a
                // failure: the files are complete either way.
                let _ = writeln!(
                    stdout,
                    "{name}: {} rows -> {}",
                    batch.num_rows(),
                    path.display()
                );
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The `gen synth` name of fk_medium sorted on its key.
const PRESORTED: &str = "presorted";

/// `batch` with its rows in ascending order of the key (column 0, `k`).
fn sorted_on_key(batch: &RecordBatch) -> Result<RecordBatch, CliError> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    let keys = batch.column(0).as_primitive::<Int64Type>().values();
    let mut order: Vec<u32> = (0..batch.num_rows() as u32).collect();
    order.sort_by_key(|&i| keys[i as usize]);
    let indices = arrow_array::UInt32Array::from(order);
    arrow_select::take::take_record_batch(batch, &indices)
        .map_err(|e| CliError::exec(format!("sorting the generated rows: {e}")))
}

/// Writes `batch` to `path` (complete or absent) in batches of
/// [`SYNTH_BATCH_ROWS`] rows.
fn write_table(batch: &RecordBatch, format: OutputFormat, path: &Path) -> Result<(), CliError> {
    write_to_path(
        &split_batches(batch, SYNTH_BATCH_ROWS),
        &batch.schema(),
        format,
        path,
    )
    .map_err(|e| CliError::exec(e.to_string()))
}

/// A spinner with a status on stderr (indicatif), drawn only when stderr
/// is a terminal (no output at all otherwise).
struct Progress {
    bar: indicatif::ProgressBar,
}

impl Progress {
    fn new() -> Self {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress { bar }
    }

    /// Replaces the status with `message`.
    fn show(&self, message: &str) {
        self.bar.set_message(format!("{message}..."));
    }

    /// Erases the status line.
    fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// Creates the output directory (and its parents) if missing.
fn create_out_dir(dir: &std::path::Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        CliError::exec(format!(
            "cannot create the output directory {}: {e}",
            dir.display()
        ))
    })
}
