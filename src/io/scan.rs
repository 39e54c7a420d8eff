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
//! `StatisticsConverter`. With the file's page index, the pages whose
//! statistics prove the same are not decoded either (`pages`), and when
//! the filter reads fewer columns than the scan, its columns are decoded
//! first and the others only for the rows it keeps (`late`), while it
//! keeps at most half of them. Arrow IPC files stream batch by batch,
//! decoding only the columns used; JSON streams batch by batch as arrow-json
//! decodes it (the whole rows, cut down to the columns used); CSV files
//! stream batch by batch, each batch's rows cast to the table's types (all
//! of its columns, so a bad value is reported whichever columns a query
//! uses, as when the table is held in memory) and then cut down to the
//! columns used.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use arrow_array::{RecordBatch, UInt64Array};
use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelectionPolicy,
};
use parquet::file::metadata::PageIndexPolicy;
use rayon::prelude::*;
use tenon_kernels::MemoryBudget;
use tenon_planner::exec::ExecError;
use tenon_planner::expr::{ColumnStatistics, PhysicalExpr, ScanFilter};

use super::csv::for_each_csv_batch;
use super::late::{Evaluated, LateTally, at_file_row, late_columns, row_filter};
use super::metadata::FileStamp;
use super::pages::{converter, pages_in, plan_pages, selected_row};
use super::read::{
    conform, corrupt, data_files, format_for, json_error, json_schema, json_values, memory_size,
    open, parquet_error, projection_mask,
};
use super::{FileFormat, IoError, ReadOptions};

/// What [`stream_table`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamReport {
    /// Rows left out as unreadable (CSV with `ignore_parse_errors`).
    pub skipped_rows: u64,
    /// Parquet row groups read (started) and in the files.
    pub row_groups: Option<(u64, u64)>,
    /// Parquet data pages of the columns read: those holding a row the
    /// scan decodes (of the row groups read, the pages the page index did
    /// not rule out) and those in the files, over the files with a page
    /// index (`None`: none has one).
    pub pages: Option<(u64, u64)>,
    /// Rows decoded late: those the filter kept and those it was
    /// evaluated on (the filter's columns decoded first), over the row
    /// groups read so (`None`: none was).
    pub late_rows: Option<(u64, u64)>,
    /// Whether rows of the files were left out before they were pushed:
    /// Parquet row groups or pages the filter's statistics ruled out, or
    /// rows late materialization dropped. `false`: every row of the files
    /// was pushed (when the read ended without an error).
    pub pruned: bool,
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
    /// One row group of a Parquet file (index into the footers), only the
    /// rows `selection` selects (by the page index) when it is set.
    RowGroup {
        file: usize,
        group: usize,
        selection: Option<RowSelection>,
    },
    /// A whole file of another format.
    Whole(PathBuf),
}

/// A Parquet file's footer, read when the scan starts.
struct Footer {
    path: PathBuf,
    stamp: Option<FileStamp>,
    meta: ArrowReaderMetadata,
    /// The file's columns the scan reads.
    mask: ProjectionMask,
}

/// Reads the table at `path` (a file or a directory of files) as
/// [`read_table_with`](super::read_table_with) would with `options`
/// (whose [`ReadOptions::schema`] and [`ReadOptions::projection`] must be
/// set: the table's schema and the columns wanted, in order), pushing each
/// batch into `push` as it is read; Parquet row groups and, with a page
/// index, pages that `filter` proves hold no row it keeps are skipped.
/// `predicate`, the filter above the scan over the columns wanted (column
/// `i` is `projection[i]`), is evaluated on its columns first when it
/// reads fewer columns than wanted, and the others are decoded only for
/// the rows it keeps; every row it keeps is pushed (and maybe others: the
/// caller still filters). What was read is in `report`, also when the
/// read stopped early.
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
    predicate: Option<&PhysicalExpr>,
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
    let meta = super::metadata::table_metadata(path).map_err(exec_error)?;
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
    // Pages of the columns read (decoded, in the files), over the files
    // with an offset index.
    let mut pages: Option<(u64, u64)> = None;
    let page_index = filter.is_some() || predicate.is_some();
    let mut pruned = false;
    for file in files {
        if format_for(&file, options).map_err(exec_error)? != FileFormat::Parquet {
            units.push(Unit::Whole(file));
            continue;
        }
        let stamp = FileStamp::of(&file);
        let meta = ArrowReaderMetadata::load(
            &open(&file).map_err(exec_error)?,
            reader_options(page_index),
        )
        .map_err(|e| exec_error(corrupt(&file, "Parquet", e)))?;
        let groups = meta.metadata().num_row_groups();
        total_groups += groups as u64;
        let skip = match filter {
            Some(f) => f.skippable(groups, &|c| statistics(&meta, schema.fields().get(c)?)),
            None => vec![false; groups],
        };
        let mask = projection_mask(&meta, &wanted);
        let index = footers.len();
        for (group, skip) in skip.into_iter().enumerate() {
            let plan = if skip {
                None
            } else {
                plan_pages(&meta, group, filter, schema, &mask)
            };
            let in_group = match &plan {
                Some(p) => Some(p.pages),
                None => pages_in(&meta, group, &mask),
            };
            if let Some(n) = in_group {
                let (read, total) = pages.get_or_insert((0, 0));
                *total += n;
                if let Some(p) = plan.as_ref().filter(|_| !skip) {
                    *read += p.pages_read;
                }
            }
            if skip || plan.as_ref().is_some_and(|p| p.empty) {
                pruned = true;
                continue;
            }
            pruned |= plan
                .as_ref()
                .and_then(|p| p.selection.as_ref())
                .is_some_and(|s| s.skipped_row_count() > 0);
            units.push(Unit::RowGroup {
                file: index,
                group,
                selection: plan.and_then(|p| p.selection),
            });
        }
        footers.push(Footer {
            path: file,
            stamp,
            meta,
            mask,
        });
    }
    let skipped = AtomicU64::new(0);
    let started = AtomicU64::new(0);
    // Batches handed on and not yet consumed, over every row group.
    let in_flight = AtomicUsize::new(0);
    let tally = LateTally::default();
    let result = units.par_iter().try_for_each(|unit| match unit {
        Unit::RowGroup {
            file,
            group,
            selection,
        } => {
            started.fetch_add(1, Ordering::Relaxed);
            let footer = &footers[*file];
            let rows = RowsWanted {
                group: *group,
                selection: selection.as_ref(),
                predicate,
                tally: &tally,
            };
            read_row_group(footer, &rows, options, &wanted, budget, push, &in_flight)
        }
        Unit::Whole(file) => match format_for(file, options).map_err(exec_error)? {
            FileFormat::Arrow => read_ipc(file, &wanted, budget, push),
            FileFormat::Json => read_json(file, options, &wanted, budget, push),
            _ => read_csv_file(file, options, projection, budget, push, &skipped),
        },
    });

    let late_rows = tally.figures();
    *report = StreamReport {
        skipped_rows: skipped.into_inner(),
        row_groups: (!footers.is_empty()).then(|| (started.into_inner(), total_groups)),
        pages,
        late_rows,
        pruned: pruned || late_rows.is_some_and(|(kept, evaluated)| kept < evaluated),
    };
    result
}

/// Streams a CSV file: each batch of rows, once cast to the table's
/// schema, is cut down to the columns wanted, charged to `budget` and
/// handed on (the whole file is never held).
fn read_csv_file(
    file: &Path,
    options: &ReadOptions,
    projection: &[usize],
    budget: &MemoryBudget,
    push: &Push<'_>,
    skipped: &AtomicU64,
) -> Result<(), ExecError> {
    let (_, n) = for_each_csv_batch(
        file,
        &options.csv,
        options.schema.as_ref(),
        options.inferred,
        options.batch_size.max(1),
        &mut |batch| {
            let b = batch
                .project(projection)
                .map_err(|e| exec_error(corrupt(file, "CSV", e)))?;
            drop(batch);
            let _charge = budget.try_reserve(
                "a batch read from the table's files",
                memory_size(std::slice::from_ref(&b)) as usize,
            )?;
            push(b)
        },
        &exec_error,
    )?;
    skipped.fetch_add(n, Ordering::Relaxed);
    Ok(())
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

/// How footers are read: with the page index (when the file has one)
/// for a scan with a filter, which prunes pages with its column index and
/// skips pages through its offset index.
fn reader_options(page_index: bool) -> ArrowReaderOptions {
    let options = ArrowReaderOptions::new();
    if page_index {
        options.with_page_index_policy(PageIndexPolicy::Optional)
    } else {
        options
    }
}

/// The rows of one row group a scan reads.
struct RowsWanted<'a> {
    group: usize,
    /// Only these (the page index's), when set.
    selection: Option<&'a RowSelection>,
    /// The filter above the scan, over the columns wanted.
    predicate: Option<&'a PhysicalExpr>,
    /// What the filter kept in the row groups decoded late so far.
    tally: &'a LateTally,
}

/// Reads row group `rows.group` of a Parquet file, only `wanted`'s
/// columns, cast to their types, batch by batch into `push`: the rows the
/// page index selects, and of those, when the predicate reads fewer
/// columns than wanted, only the rows it keeps (late materialization).
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
///
/// On a pool of one thread every batch is pushed by the decoder itself, in
/// the file's order: a task would run only after the decoder finishes, its
/// batch after the ones decoded later. (A temporal or as-of join reads its
/// right input on such a pool, and breaks ties by that order: docs/time.md.)
fn read_row_group(
    footer: &Footer,
    rows_wanted: &RowsWanted<'_>,
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
    let group = rows_wanted.group;
    let mask = footer.mask.clone();
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
    // The rows before this group, for errors naming a row of the file.
    let first_row: u64 = footer.meta.metadata().row_groups()[..group]
        .iter()
        .map(|g| g.num_rows().max(0) as u64)
        .sum();
    let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, footer.meta.clone())
        .with_row_groups(vec![group])
        .with_batch_size(batch_size)
        .with_projection(mask);
    if let Some(selection) = rows_wanted.selection {
        // Selectors skip whole pages unread (a mask decodes them).
        builder = builder
            .with_row_selection(selection.clone())
            .with_row_selection_policy(RowSelectionPolicy::Selectors);
    }
    let late = rows_wanted
        .predicate
        .filter(|_| rows_wanted.tally.pays())
        .and_then(|p| Some((p, late_columns(p, wanted.fields().len())?)));
    let evaluated = Arc::new(Evaluated::default());
    if let Some((predicate, columns)) = &late {
        builder = builder.with_row_filter(row_filter(
            path,
            &footer.meta,
            predicate,
            columns,
            wanted,
            rows_wanted.selection,
            first_row,
            &evaluated,
        )?);
    }
    // The filter runs while the reader is built: its error first.
    let reader = builder.build().map_err(|e| {
        evaluated
            .take_error()
            .unwrap_or_else(|| exec_error(parquet_error(path, footer.stamp, e)))
    })?;
    if late.is_some() {
        rows_wanted.tally.add(&evaluated);
    }
    // The file row of the group's `k`-th row decoded, for errors.
    let final_selection = || match &late {
        Some(_) => evaluated.selection(rows_wanted.selection),
        None => rows_wanted.selection.cloned(),
    };
    let file_row = |k: u64| first_row + selected_row(final_selection().as_ref(), k);
    let mut row: u64 = 0;
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
                    fail(
                        evaluated
                            .take_error()
                            .unwrap_or_else(|| exec_error(parquet_error(path, footer.stamp, e))),
                    );
                    break;
                }
            };
            let n = batch.num_rows() as u64;
            let conformed = match conform(path, vec![batch], wanted, 0) {
                Ok(c) => c,
                Err(e) => {
                    fail(exec_error(at_file_row(e, |k| file_row(row + k))));
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
                if limit == 1 || in_flight.load(Ordering::Acquire) >= limit {
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
    let (converter, _) = converter(meta, field)?;
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
