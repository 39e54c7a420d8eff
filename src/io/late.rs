//! Late materialization of a Parquet row group: the columns the filter
//! above the scan reads are decoded first, the filter (tenon's own
//! compiled [`PhysicalExpr`], the very expression the filter operator
//! runs) is evaluated on them, and the other columns are decoded only for
//! the rows it keeps (the parquet crate's `RowFilter`: its reader turns
//! the filter's results into a row selection, and skips the pages of the
//! other columns no kept row lies in).
//!
//! The rows kept are exactly those the filter keeps: `true` (NULL and
//! `false` dropped, as a WHERE does). The filter columns are cast to the
//! table's types first, as every batch the scan pushes is, so the filter
//! sees the values it would see above the scan, and a value that does not
//! fit is the same error naming the same row. The filter above the scan
//! still runs on the rows pushed (it keeps them all): the scan needs no
//! promise from its source.
//!
//! It is used only when the filter reads fewer columns than the scan (the
//! filter columns of the kept rows are decoded twice, once for the filter
//! and once for the output; when the filter reads every column the scan
//! reads, nothing would be saved), and only while it pays: the row groups
//! of a scan are decoded late until the filter has been seen to keep more
//! than half of the rows it was evaluated on ([`LateTally`]); from then
//! on the scan's other row groups are decoded whole (the second decoding
//! of the filter columns and the filter's second evaluation above the
//! scan would cost more than the rows left out save).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_schema::{ArrowError, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, RowFilter, RowSelection,
};
use tenon_planner::exec::ExecError;
use tenon_planner::expr::PhysicalExpr;

use super::IoError;
use super::pages::selected_row;
use super::read::{conform, projection_mask};
use super::scan::exec_error;

/// The predicate's columns (positions among the scan's `wanted` columns)
/// when late materialization pays: at least one, and fewer than the scan
/// reads.
pub(super) fn late_columns(predicate: &PhysicalExpr, wanted: usize) -> Option<Vec<usize>> {
    let columns = predicate.columns();
    (!columns.is_empty() && columns.len() < wanted && columns.iter().all(|&c| c < wanted))
        .then_some(columns)
}

/// What the filter of one row group did: its first error, and its results
/// (for naming the file row of a later error).
#[derive(Debug, Default)]
pub(super) struct Evaluated {
    error: Mutex<Option<ExecError>>,
    kept: Mutex<Vec<BooleanArray>>,
}

impl Evaluated {
    /// The filter's first error, if it failed.
    pub(super) fn take_error(&self) -> Option<ExecError> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// The rows the filter was evaluated on, and those it kept.
    fn counts(&self) -> (u64, u64) {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.iter().fold((0, 0), |(e, k), m| {
            (e + m.len() as u64, k + m.true_count() as u64)
        })
    }

    /// The rows of the row group (from its first, 0) the scan decodes for
    /// the output: those `pages` selects that the filter kept (`None` if
    /// the filter's results do not cover the rows `pages` selects).
    pub(super) fn selection(&self, pages: Option<&RowSelection>) -> Option<RowSelection> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let by_filter = RowSelection::from_filters(&kept);
        let evaluated: usize = kept.iter().map(|k| k.len()).sum();
        match pages {
            // `and_then` needs one result per selected row.
            Some(p) if p.row_count() == evaluated => Some(p.and_then(&by_filter)),
            Some(_) => None,
            None => Some(by_filter),
        }
    }
}

/// What the filter kept over the row groups of one scan decoded late.
#[derive(Debug, Default)]
pub(super) struct LateTally {
    evaluated: AtomicU64,
    kept: AtomicU64,
}

impl LateTally {
    /// Whether to decode the next row group late: until a row group has
    /// been, and then while the filter has kept at most half the rows.
    pub(super) fn pays(&self) -> bool {
        let evaluated = self.evaluated.load(Ordering::Relaxed);
        evaluated == 0 || self.kept.load(Ordering::Relaxed).saturating_mul(2) <= evaluated
    }

    /// Counts what the filter of one row group did.
    pub(super) fn add(&self, evaluated: &Evaluated) {
        let (e, k) = evaluated.counts();
        self.kept.fetch_add(k, Ordering::Relaxed);
        self.evaluated.fetch_add(e, Ordering::Relaxed);
    }

    /// The rows kept and evaluated, when any row group was decoded late.
    pub(super) fn figures(&self) -> Option<(u64, u64)> {
        let evaluated = self.evaluated.load(Ordering::Relaxed);
        (evaluated > 0).then(|| (self.kept.load(Ordering::Relaxed), evaluated))
    }
}

/// A row error's row (counted from 1 in a batch of selected rows, the
/// `k`-th such row being row `row_of(k)` of the file, from 0) made the
/// file's row.
pub(super) fn at_file_row(e: IoError, row_of: impl Fn(u64) -> u64) -> IoError {
    match e {
        IoError::BadValue {
            path,
            row,
            column,
            message,
        } => IoError::BadValue {
            path,
            row: row_of(row.saturating_sub(1)) + 1,
            column,
            message,
        },
        other => other,
    }
}

/// Row group `group`'s filter: `predicate` (over the scan's `wanted`
/// columns) evaluated on its `columns` (positions among `wanted`, from
/// [`late_columns`]), decoded for the rows `pages` selects; the rows
/// before the group are `first_row`. What it did is in `evaluated`.
#[allow(clippy::too_many_arguments)]
pub(super) fn row_filter(
    path: &Path,
    meta: &ArrowReaderMetadata,
    predicate: &PhysicalExpr,
    columns: &[usize],
    wanted: &SchemaRef,
    pages: Option<&RowSelection>,
    first_row: u64,
    evaluated: &Arc<Evaluated>,
) -> Result<RowFilter, ExecError> {
    let schema: SchemaRef = Arc::new(
        wanted
            .project(columns)
            .map_err(|e| ExecError::arrow("the scan's filter columns", e))?,
    );
    let mask = projection_mask(meta, &schema);
    let expr = predicate.remap_columns(&|i| columns.iter().position(|&c| c == i).unwrap_or(0));
    let path: PathBuf = path.to_path_buf();
    let pages = pages.cloned();
    let evaluated = Arc::clone(evaluated);
    // Rows the filter has seen so far (the selected rows, in order).
    let mut seen = 0u64;
    let filter = move |batch: RecordBatch| -> Result<BooleanArray, ArrowError> {
        let n = batch.num_rows() as u64;
        let result = conform(&path, vec![batch], &schema, 0)
            .map_err(|e| {
                exec_error(at_file_row(e, |k| {
                    first_row + selected_row(pages.as_ref(), seen + k)
                }))
            })
            .and_then(|mut b| {
                let b = b.pop().ok_or_else(|| {
                    ExecError::Unsupported("internal: a filter batch went missing".into())
                })?;
                Ok(expr.evaluate_predicate(&b)?)
            });
        seen += n;
        match result {
            Ok(kept) => {
                // NULL: not kept (the reader reads it so too).
                let kept = if kept.null_count() > 0 {
                    arrow_select::filter::prep_null_mask_filter(&kept)
                } else {
                    kept
                };
                evaluated
                    .kept
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(kept.clone());
                Ok(kept)
            }
            Err(e) => {
                evaluated
                    .error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                Err(ArrowError::ComputeError("the scan's filter failed".into()))
            }
        }
    };
    Ok(RowFilter::new(vec![Box::new(ArrowPredicateFn::new(
        mask, filter,
    ))]))
}
