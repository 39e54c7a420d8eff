//! [`stream_table`]: a table's files read while a query's scan runs,
//! batch by batch, only the columns it uses and, for Parquet, only the row
//! groups its filter can match.
//!
//! The units of work are a directory's files, and a Parquet file's row
//! groups; they are read in parallel (rayon, on the query's pool), and
//! each pushes its batches as the decoder yields them, so what is held at
//! once is the batches in flight, each charged to the query's memory
//! budget until the scan has handed it on. The first error (a file that
//! does not read, a batch that does not fit the budget, or the consumer's
//! own, such as a satisfied LIMIT's stop signal) ends the read: no unit is
//! started after it, and a unit under way stops at its next batch.
//!
//! Parquet row groups whose footer statistics prove that the filter above
//! the scan keeps none of their rows are not read ([`ScanFilter`]); the
//! statistics are turned into Arrow arrays by the parquet crate's
//! `StatisticsConverter`. Arrow IPC files stream batch by batch, decoding
//! only the columns used; JSON streams batch by batch as arrow-json
//! decodes it (the whole rows, cut down to the columns used); CSV files
//! are still parsed whole, file by file (a directory's files in
//! parallel), cut down to the columns used, then pushed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use arrow_array::{RecordBatch, UInt64Array};
use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use rayon::prelude::*;
use tenon_planner::exec::ExecError;
use tenon_planner::expr::{ColumnStatistics, ScanFilter};
use tenon_planner::kernels::MemoryBudget;

use super::metadata::FileStamp;
use super::read::{
    conform, corrupt, data_files, format_for, json_error, json_schema, json_values, memory_size,
    open, parquet_error, projection_mask, read_file,
};
use super::{FileFormat, IoError, ReadOptions};

/// What [`stream_table`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Rows left out as unreadable (CSV with `ignore_parse_errors`).
    pub skipped_rows: u64,
    /// Parquet row groups read (started) and in the files.
    pub row_groups: Option<(u64, u64)>,
}

/// How a stream's batches are handed on: the scan's sink.
pub type Push<'a> = dyn Fn(RecordBatch) -> Result<(), ExecError> + Sync + 'a;

/// An I/O error as the executor carries it (the session gives it back as
/// [`Error::Io`](crate::Error::Io)).
pub fn exec_error(e: IoError) -> ExecError {
    ExecError::Source(Box::new(crate::Error::Io(e)))
}

/// One unit of work.
enum Unit {
    /// One row group of a Parquet file (index into the footers).
    RowGroup { file: usize, group: usize },
    /// A whole file of another format.
    Whole(PathBuf),
}

/// A Parquet file's footer, read when the scan starts.
struct Footer {
    path: PathBuf,
    stamp: Option<FileStamp>,
    meta: ArrowReaderMetadata,
}

/// Reads the table at `path` (a file or a directory of files) as
/// [`read_table_with`](super::read_table_with) would with `options`
/// (whose [`ReadOptions::schema`] and [`ReadOptions::projection`] must be
/// set: the table's schema and the columns wanted, in order), pushing each
/// batch into `push` as it is read; Parquet row groups that `filter`
/// proves hold no row it keeps are skipped. What was read is in `report`,
/// also when the read stopped early.
///
/// # Errors
///
/// The first error: [`ExecError::Source`] wrapping the [`IoError`]
/// `read_table_with` would give, [`ExecError::Memory`] for a batch beyond
/// the `budget`, or `push`'s own.
pub fn stream_table(
    path: &Path,
    options: &ReadOptions,
    filter: Option<&ScanFilter>,
    budget: &MemoryBudget,
    push: &Push<'_>,
    report: &mut StreamReport,
) -> Result<(), ExecError> {
    let (Some(schema), Some(projection)) = (&options.schema, &options.projection) else {
        return Err(ExecError::Unsupported(
            "internal: a streamed table read needs its schema and columns".into(),
        ));
    };
    let wanted: SchemaRef = Arc::new(
        schema
            .project(projection)
            .map_err(|e| exec_error(corrupt(path, "table", e)))?,
    );
    let meta = std::fs::metadata(path).map_err(|e| exec_error(IoError::io(path, e)))?;
    let files = if meta.is_dir() {
        let files = data_files(path, options.format).map_err(exec_error)?;
        if files.is_empty() {
            return Err(exec_error(IoError::EmptyDirectory {
                path: path.to_path_buf(),
            }));
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut footers = Vec::new();
    let mut units = Vec::new();
    let mut total_groups = 0u64;
    for file in files {
        if format_for(&file, options).map_err(exec_error)? != FileFormat::Parquet {
            units.push(Unit::Whole(file));
            continue;
        }
        let stamp = FileStamp::of(&file);
        let meta = ArrowReaderMetadata::load(&open(&file).map_err(exec_error)?, reader_options())
            .map_err(|e| exec_error(corrupt(&file, "Parquet", e)))?;
        let groups = meta.metadata().num_row_groups();
        total_groups += groups as u64;
        let skip = match filter {
            Some(f) => f.skippable(groups, &|c| statistics(&meta, schema.fields().get(c)?)),
            None => vec![false; groups],
        };
        let index = footers.len();
        units.extend(
            (0..groups)
                .filter(|&g| !skip[g])
                .map(|group| Unit::RowGroup { file: index, group }),
        );
        footers.push(Footer {
            path: file,
            stamp,
            meta,
        });
    }
    let skipped = AtomicU64::new(0);
    let started = AtomicU64::new(0);
    // Batches handed on and not yet consumed, over every row group.
    let in_flight = AtomicUsize::new(0);
    let result = units.par_iter().try_for_each(|unit| match unit {
        Unit::RowGroup { file, group } => {
            started.fetch_add(1, Ordering::Relaxed);
            let footer = &footers[*file];
            read_row_group(footer, *group, options, &wanted, budget, push, &in_flight)
        }
        Unit::Whole(file) => match format_for(file, options).map_err(exec_error)? {
            FileFormat::Arrow => read_ipc(file, &wanted, budget, push),
            FileFormat::Json => read_json(file, options, &wanted, budget, push),
            _ => read_whole(file, options, budget, push, &skipped),
        },
    });

    *report = StreamReport {
        skipped_rows: skipped.into_inner(),
        row_groups: (!footers.is_empty()).then(|| (started.into_inner(), total_groups)),
    };
    result
}

/// Reads a file whole (CSV), only the columns wanted, and pushes its
/// batches; they are charged to `budget` until the last is handed on.
fn read_whole(
    file: &Path,
    options: &ReadOptions,
    budget: &MemoryBudget,
    push: &Push<'_>,
    skipped: &AtomicU64,
) -> Result<(), ExecError> {
    let (_, batches, n) = read_file(file, options).map_err(exec_error)?;
    skipped.fetch_add(n, Ordering::Relaxed);
    let _charge = budget.try_reserve(
        "the rows read from the table's files",
        memory_size(&batches) as usize,
    )?;
    batches.into_iter().try_for_each(push)
}

/// Hands on the batches `batches` yields, each cast to `wanted` (columns
/// by name) and charged to `budget` until the consumer has it.
fn push_conformed<E: std::fmt::Display>(
    file: &Path,
    batches: impl Iterator<Item = Result<RecordBatch, E>>,
    wanted: &SchemaRef,
    budget: &MemoryBudget,
    push: &Push<'_>,
    error: impl Fn(E) -> IoError,
) -> Result<(), ExecError> {
    let mut row = 0u64;
    for batch in batches {
        let batch = batch.map_err(|e| exec_error(error(e)))?;
        let n = batch.num_rows() as u64;
        for b in conform(file, vec![batch], wanted, row).map_err(exec_error)? {
            let _charge = budget.try_reserve(
                "a batch read from the table's files",
                memory_size(std::slice::from_ref(&b)) as usize,
            )?;
            if b.num_rows() > 0 {
                push(b)?;
            }
        }
        row += n;
    }
    Ok(())
}

/// The positions in `schema` of `wanted`'s columns, by name (exactly, else
/// ignoring case); a column the file lacks is left for [`conform`] to
/// report.
fn positions(schema: &Schema, wanted: &Schema) -> Vec<usize> {
    let mut out: Vec<usize> = wanted
        .fields()
        .iter()
        .filter_map(|w| {
            schema
                .fields()
                .iter()
                .position(|f| f.name() == w.name())
                .or_else(|| {
                    schema
                        .fields()
                        .iter()
                        .position(|f| f.name().eq_ignore_ascii_case(w.name()))
                })
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Streams an Arrow IPC file (or else an IPC stream), decoding only the
/// columns wanted.
fn read_ipc(
    file: &Path,
    wanted: &SchemaRef,
    budget: &MemoryBudget,
    push: &Push<'_>,
) -> Result<(), ExecError> {
    use arrow_ipc::reader::{FileReader, StreamReader};
    use std::io::BufReader;
    let ipc_error = |e: arrow_schema::ArrowError| corrupt(file, "Arrow IPC", e);
    let open_buffered = || open(file).map(BufReader::new).map_err(exec_error);
    let file_error = match FileReader::try_new(open_buffered()?, None) {
        Ok(reader) => {
            let projection = positions(&reader.schema(), wanted);
            let reader = FileReader::try_new(open_buffered()?, Some(projection))
                .map_err(|e| exec_error(ipc_error(e)))?;
            return push_conformed(file, reader, wanted, budget, push, ipc_error);
        }
        Err(e) => e,
    };
    match StreamReader::try_new(open_buffered()?, None) {
        Ok(reader) => {
            let projection = positions(&reader.schema(), wanted);
            let reader = StreamReader::try_new(open_buffered()?, Some(projection))
                .map_err(|e| exec_error(ipc_error(e)))?;
            push_conformed(file, reader, wanted, budget, push, ipc_error)
        }
        Err(stream_error) => Err(exec_error(corrupt(
            file,
            "Arrow IPC",
            format!("as an IPC file: {file_error}; as an IPC stream: {stream_error}"),
        ))),
    }
}

/// Streams a JSON file batch by batch as arrow-json decodes it (its schema
/// inferred from the first objects, as registering it did).
fn read_json(
    file: &Path,
    options: &ReadOptions,
    wanted: &SchemaRef,
    budget: &MemoryBudget,
    push: &Push<'_>,
) -> Result<(), ExecError> {
    let schema = json_schema(file).map_err(exec_error)?;
    let reader = arrow_json::ReaderBuilder::new(schema)
        .with_batch_size(options.batch_size.max(1))
        .build(json_values(file).map_err(exec_error)?)
        .map_err(|e| exec_error(json_error(file, e)))?;
    push_conformed(file, reader, wanted, budget, push, |e| json_error(file, e))
}

fn reader_options() -> ArrowReaderOptions {
    ArrowReaderOptions::new()
}

/// Reads row group `group` of a Parquet file, only `wanted`'s columns,
/// cast to their types, batch by batch into `push`.
///
/// One thread decodes; each batch is pushed on a task of its own, so the
/// operators above run on every worker even for a file of one row group,
/// with at most about one batch per worker in flight over the whole scan
/// (`in_flight`; beyond that the decoder pushes the batch itself, so it
/// never waits for a task and never runs another row group's decoding
/// inside its own). The batch being decoded is charged to `budget`
/// beforehand (the footer's uncompressed size of its columns, for the rows
/// of one batch: a group that cannot fit fails before it allocates), and
/// every decoded batch at its size until the consumer has it.
fn read_row_group(
    footer: &Footer,
    group: usize,
    options: &ReadOptions,
    wanted: &SchemaRef,
    budget: &MemoryBudget,
    push: &Push<'_>,
    in_flight: &AtomicUsize,
) -> Result<(), ExecError> {
    let path = &footer.path;
    let limit = rayon::current_num_threads().max(1);
    let file = open(path).map_err(exec_error)?;
    let batch_size = options
        .parquet_batch_size
        .unwrap_or(options.batch_size)
        .max(1);
    let mask = projection_mask(&footer.meta, wanted);
    let meta = footer.meta.metadata().row_group(group);
    let rows = meta.num_rows().max(0) as u64;
    let bytes: u64 = meta
        .columns()
        .iter()
        .enumerate()
        .filter(|(leaf, _)| mask.leaf_included(*leaf))
        .map(|(_, c)| c.uncompressed_size().max(0) as u64)
        .sum();
    let estimate = bytes
        .saturating_mul(rows.min(batch_size as u64))
        .checked_div(rows)
        .unwrap_or(0);
    let _decoding = budget.try_reserve(
        "reading a batch of the table's Parquet columns (its size from the footers)",
        estimate as usize,
    )?;
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, footer.meta.clone())
        .with_row_groups(vec![group])
        .with_batch_size(batch_size)
        .with_projection(mask)
        .build()
        .map_err(|e| exec_error(parquet_error(path, footer.stamp, e)))?;
    // The rows before this group, for errors naming a row of the file.
    let mut row: u64 = footer.meta.metadata().row_groups()[..group]
        .iter()
        .map(|g| g.num_rows().max(0) as u64)
        .sum();
    let stop = AtomicBool::new(false);
    let failed: Mutex<Option<ExecError>> = Mutex::new(None);
    let fail = |e: ExecError| {
        stop.store(true, Ordering::Relaxed);
        failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(e);
    };
    rayon::in_place_scope(|scope| {
        for batch in reader {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch = match batch {
                Ok(b) => b,
                Err(e) => {
                    fail(exec_error(parquet_error(path, footer.stamp, e)));
                    break;
                }
            };
            let n = batch.num_rows() as u64;
            let conformed = match conform(path, vec![batch], wanted, row) {
                Ok(c) => c,
                Err(e) => {
                    fail(exec_error(e));
                    break;
                }
            };
            row += n;
            for b in conformed.into_iter().filter(|b| b.num_rows() > 0) {
                let charge = match budget.try_reserve(
                    "a batch read from the table's Parquet files",
                    memory_size(std::slice::from_ref(&b)) as usize,
                ) {
                    Ok(c) => c,
                    Err(e) => {
                        fail(e.into());
                        break;
                    }
                };
                if in_flight.load(Ordering::Acquire) >= limit {
                    // Enough on their way: push this one here.
                    let pushed = push(b);
                    drop(charge);
                    if let Err(e) = pushed {
                        fail(e);
                        break;
                    }
                    continue;
                }
                in_flight.fetch_add(1, Ordering::AcqRel);
                let fail = &fail;
                scope.spawn(move |_| {
                    if let Err(e) = push(b) {
                        fail(e);
                    }
                    drop(charge);
                    in_flight.fetch_sub(1, Ordering::AcqRel);
                });
            }
        }
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The row-group statistics of the file's column named as table column
/// `field` (exactly, else ignoring case), when it has the column's type.
fn statistics(meta: &ArrowReaderMetadata, field: &arrow_schema::Field) -> Option<ColumnStatistics> {
    let schema: &Schema = meta.schema();
    let name = field.name();
    let found = schema
        .fields()
        .iter()
        .find(|f| f.name() == name)
        .or_else(|| {
            schema
                .fields()
                .iter()
                .find(|f| f.name().eq_ignore_ascii_case(name))
        })?;
    if found.data_type() != field.data_type() {
        return None;
    }
    let converter = StatisticsConverter::try_new(found.name(), schema, meta.parquet_schema())
        .ok()?
        .with_missing_null_counts_as_zero(false);
    let groups = meta.metadata().row_groups();
    let mins = converter.row_group_mins(groups).ok()?;
    let maxes = converter.row_group_maxes(groups).ok()?;
    let nulls: UInt64Array = converter.row_group_null_counts(groups).ok()?;
    Some(ColumnStatistics {
        mins,
        maxes,
        null_counts: nulls.iter().collect(),
        row_counts: groups.iter().map(|g| g.num_rows().max(0) as u64).collect(),
    })
}
