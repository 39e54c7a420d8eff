//! The data a plan's scans read: registered tables' batches, held in
//! memory for the session or read for one query, or a [`TableSource`] that
//! reads them while the scan runs.
//!
//! A table whose [`TableData::source`] is set (a file table the session
//! reads lazily) has no batches: its scan asks the source for the columns
//! it uses, with what its filter says about the rows it keeps
//! ([`ScanFilter`]), and the source pushes batches as it decodes them, so
//! a query holds the batches in flight, not the whole table; a sink's
//! error (a satisfied LIMIT's stop signal included) ends the read.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::exec::Result;
use crate::exec::run::Sink;
use crate::expr::{PhysicalExpr, ScanFilter};
use tenon_kernels::{MemoryBudget, MemoryReservation};

/// What a scan asks of a [`TableSource`].
#[derive(Debug)]
pub struct ScanRequest<'a> {
    /// The table columns to read, in the order the batches must hold them
    /// (at least one: a scan of no columns asks for the first, whose
    /// length gives the row count).
    pub columns: &'a [usize],
    /// What the filter right above the scan keeps, over table columns: a
    /// source may leave out parts of its data (Parquet row groups) whose
    /// statistics prove no row passes it. The filter itself still runs on
    /// every row pushed, so this is an optimisation only.
    pub filter: Option<&'a ScanFilter>,
    /// The filter right above the scan itself, over the requested columns
    /// (its column `i` is table column `columns[i]`), when there is one.
    /// A source may evaluate it while it decodes, to decode the other
    /// columns only for the rows it keeps (Parquet late materialization);
    /// one that does keeps exactly the rows the filter keeps (`true`;
    /// NULL and `false` dropped) and passes on the filter's errors. The
    /// filter still runs on every row pushed, so pushing rows it drops is
    /// never wrong, only slower.
    pub predicate: Option<&'a PhysicalExpr>,
    /// Rows per batch the scan wants (a source may push smaller batches;
    /// larger ones are sliced).
    pub batch_size: usize,
    /// The query's memory budget: batches decoded and not yet handed on
    /// are charged to it.
    pub budget: &'a MemoryBudget,
}

/// What a [`TableSource`] read for one scan (EXPLAIN ANALYZE).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanReport {
    /// Rows left out as unreadable (`csv.ignore-parse-errors`), when the
    /// table's options skip such rows.
    pub skipped_rows: Option<u64>,
    /// Parquet row groups: how many were read (started) of how many the
    /// files hold, when the table has any Parquet files.
    pub row_groups: Option<(u64, u64)>,
    /// Parquet data pages of the columns read: how many the scan decoded
    /// (or may have: pages of the row groups read whose rows the page
    /// index did not rule out) of how many the files hold, when the
    /// table's Parquet files have a page index.
    pub pages: Option<(u64, u64)>,
    /// Rows decoded late (late materialization: the filter's columns
    /// first, the others only for the rows it keeps): how many the filter
    /// kept of how many it was evaluated on, when any was.
    pub late_rows: Option<(u64, u64)>,
}

/// Rows read while a scan runs (a file table read lazily).
pub trait TableSource: Send + Sync + fmt::Debug {
    /// Reads the columns `request` asks for, pushing batches into `sink`
    /// (from any thread of the current rayon pool) as they are decoded,
    /// and stops at the first error, the sink's included. What it read is
    /// in `report`, also when it stopped early.
    ///
    /// # Errors
    ///
    /// The sink's first error, [`ExecError::Memory`](crate::exec::ExecError)
    /// when a batch does not fit the budget, or
    /// [`ExecError::Source`](crate::exec::ExecError) for a file that cannot
    /// be read.
    fn scan(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
        report: &mut ScanReport,
    ) -> Result<()>;
}

/// One registered table's data: its schema and batches.
///
/// A table read from files for one query holds only the columns its scans
/// use ([`TableData::columns`]), and the bytes it holds are charged to the
/// query's memory budget ([`TableData::charge`]) until it is dropped.
#[derive(Debug, Clone)]
pub struct TableData {
    /// The table's schema (every column, read or not).
    pub schema: SchemaRef,
    /// The rows. A table held in memory may keep a column in a narrower
    /// integer type than the schema's ([`held_form`](crate::exec::held_form)):
    /// its scans widen it, so read the rows through a scan, or widen them
    /// with [`held_form::widen`](crate::exec::held_form::widen).
    pub batches: Vec<RecordBatch>,
    /// The table columns the batches hold, in their order (`None`: all of
    /// them, in the schema's order).
    pub columns: Option<Vec<usize>>,
    /// The memory budget's reservation for the batches, given back when
    /// the last copy of this data is dropped.
    pub charge: Option<Arc<MemoryReservation>>,
    /// Where the rows come from when they are read while the query runs
    /// (then `batches` is empty and every column can be read).
    pub source: Option<Arc<dyn TableSource>>,
    /// For a lookup table: the source its rows are fetched from by key
    /// (a lookup join; its scans read `source`).
    pub lookup: Option<Arc<dyn crate::lookup::LookupSource>>,
    /// For a lookup table with a cache: the cache, shared by every query
    /// of the session.
    pub lookup_cache: Option<Arc<crate::lookup::LookupCache>>,
}

impl TableData {
    /// Every column of `schema`, in `batches`.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        TableData {
            schema,
            batches,
            columns: None,
            charge: None,
            source: None,
            lookup: None,
            lookup_cache: None,
        }
    }

    /// A table of `schema` whose rows `source` reads while a scan runs.
    pub fn from_source(schema: SchemaRef, source: Arc<dyn TableSource>) -> Self {
        TableData {
            source: Some(source),
            ..TableData::new(schema, Vec::new())
        }
    }

    /// The table's row count.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The bytes of the table's buffers in memory.
    pub fn num_bytes(&self) -> usize {
        self.batches
            .iter()
            .map(RecordBatch::get_array_memory_size)
            .sum()
    }

    /// Where table column `column` is in the batches, if they hold it.
    pub fn position(&self, column: usize) -> Option<usize> {
        match &self.columns {
            None => (column < self.schema.fields().len()).then_some(column),
            Some(held) => held.iter().position(|&c| c == column),
        }
    }

    /// Where each of the table columns `columns` is in the batches (`None`
    /// if one is not held): one pass over the held columns, not one per
    /// column (a scan of a 40,000-column table reads them all).
    pub fn positions(&self, columns: &[usize]) -> Option<Vec<usize>> {
        let Some(held) = &self.columns else {
            return columns.iter().map(|&c| self.position(c)).collect();
        };
        let mut at = HashMap::with_capacity(held.len());
        for (i, &c) in held.iter().enumerate() {
            at.entry(c).or_insert(i);
        }
        columns.iter().map(|c| at.get(c).copied()).collect()
    }
}

/// Registered tables by name.
pub type Tables = HashMap<String, Arc<TableData>>;
