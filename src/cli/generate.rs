//! `tenon gen`: write benchmark data to files.
//!
//! `tenon gen tpch --scale SF --out DIR [--format parquet|csv|arrow]` writes
//! the eight TPC-H tables (tpchgen, generated in parallel) as
//! `DIR/<table>.<ext>`, each file complete or absent (written to a
//! temporary file and renamed).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::CliError;
use tenon::io::{OutputFormat, write_to_path};

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
    }
}

fn tpch(args: TpchArgs) -> Result<(), CliError> {
    if !(args.scale.is_finite() && args.scale > 0.0) {
        return Err(CliError::usage(format!(
            "--scale {}: the scale factor must be a number greater than 0 (e.g. 0.01, 1, 10)",
            args.scale
        )));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::exec(format!(
            "cannot create the output directory {}: {e}",
            args.out.display()
        ))
    })?;
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
