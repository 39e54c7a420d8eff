//! Lookup joins: a table whose rows are fetched by key from an external
//! store while the query runs, instead of being scanned (Flink's lookup
//! join, `JOIN Customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON
//! o.customer_id = c.id`).
//!
//! A store plugs in by implementing [`LookupSource`]: given the distinct
//! keys of one probe batch, it returns the rows whose key columns equal
//! one of them, in one request. The executor (`exec/lookup/`) matches the
//! fetched rows back to the probe rows, tests the rest of the ON condition
//! on each pair, and pads unmatched probe rows of a LEFT join; the
//! [`LookupOptions`] (the `LOOKUP` hint and the session's settings) say
//! how requests run: inline (sync) or up to `capacity` in flight (async),
//! ordered or not, with a timeout and a delayed retry of missing keys.
//!
//! The same table can also be scanned whole (its registered
//! [`TableSource`](crate::exec::TableSource)), so a regular join against
//! it reads every row and hash joins.
//!
//! # Examples
//!
//! A source holding its rows in memory, looked up by its first column:
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema, SchemaRef};
//! use tenon_planner::lookup::{LookupError, LookupRequest, LookupSource};
//!
//! #[derive(Debug)]
//! struct Colours(RecordBatch);
//!
//! impl LookupSource for Colours {
//!     fn schema(&self) -> SchemaRef {
//!         self.0.schema()
//!     }
//!     fn describe(&self) -> String {
//!         "colours in memory".into()
//!     }
//!     fn can_look_up_by(&self, column: usize) -> bool {
//!         column == 0
//!     }
//!     fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
//!         let ids = self.0.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
//!         let wanted = request.keys[0].as_any().downcast_ref::<Int64Array>().unwrap();
//!         let rows: Vec<u32> = (0..ids.len() as u32)
//!             .filter(|&r| wanted.values().contains(&ids.value(r as usize)))
//!             .collect();
//!         let rows = arrow_array::UInt32Array::from(rows);
//!         let columns = request
//!             .columns
//!             .iter()
//!             .map(|&c| arrow_select::take::take(self.0.column(c), &rows, None))
//!             .collect::<Result<Vec<_>, _>>()?;
//!         Ok(RecordBatch::try_new(request.schema(&self.schema())?, columns)?)
//!     }
//! }
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("id", DataType::Int64, false),
//!     Field::new("name", DataType::Utf8, false),
//! ]));
//! let rows = RecordBatch::try_new(schema, vec![
//!     Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef,
//!     Arc::new(StringArray::from(vec!["red", "green", "blue"])),
//! ])?;
//! let source = Colours(rows);
//! let request = LookupRequest {
//!     key_columns: vec![0],
//!     keys: vec![Arc::new(Int64Array::from(vec![3, 1, 9]))],
//!     columns: vec![0, 1],
//! };
//! let fetched = source.lookup(&request)?;
//! assert_eq!(fetched.num_rows(), 2); // 9 is missing
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

mod cache;
mod keys;
mod options;

pub(crate) use cache::EncodedRows;
pub use cache::{CacheMode, Clock, LookupCache, ManualClock, SystemClock};

pub(crate) use keys::{KeyValue, lookup_keys};

pub use options::{
    LOOKUP_HINT_KEYS, LookupDefaults, LookupOptions, OutputMode, RetryOnMiss, parse_duration,
};

use std::fmt;
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, Schema, SchemaRef};

use crate::exec::{ScanReport, ScanRequest, Sink, TableSource};

/// What a lookup source fails with: its own error, which should say what
/// went wrong and where (the store's address, the table).
pub type LookupError = Box<dyn std::error::Error + Send + Sync>;

/// What [`LookupSource::lookup_async`] calls when its request completes.
pub type LookupDone = Box<dyn FnOnce(Result<RecordBatch, LookupError>) + Send>;

/// One request to a [`LookupSource`]: the rows whose `key_columns` equal
/// one of the key tuples, with the table columns `columns`.
///
/// The key tuples are distinct and hold no NULL (a NULL key never
/// matches, so it is never asked for). Each key array has the type of its
/// table column.
#[derive(Debug, Clone)]
pub struct LookupRequest {
    /// The table columns looked up by (indices into the source's schema).
    pub key_columns: Vec<usize>,
    /// The key tuples: one array per key column, all of one length.
    pub keys: Vec<ArrayRef>,
    /// The table columns to return, in this order (the key columns among
    /// them).
    pub columns: Vec<usize>,
}

impl LookupRequest {
    /// How many key tuples the request holds.
    pub fn len(&self) -> usize {
        self.keys.first().map_or(0, |k| k.len())
    }

    /// Whether the request holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The schema of the batch a source returns for this request: the
    /// fields `columns` of `table` (the source's schema), in order.
    ///
    /// # Errors
    /// A column index past the table's schema.
    pub fn schema(&self, table: &Schema) -> Result<SchemaRef, ArrowError> {
        let fields = self
            .columns
            .iter()
            .map(|&c| {
                table.fields().get(c).cloned().ok_or_else(|| {
                    ArrowError::InvalidArgumentError(format!(
                        "a lookup asked for column {c} of a table of {} columns",
                        table.fields().len()
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Arc::new(Schema::new(fields)))
    }
}

/// A store that returns a table's rows by key: what a lookup join fetches
/// from (see the module docs for an example).
///
/// Implementations are called from several threads at once.
pub trait LookupSource: Send + Sync + fmt::Debug + 'static {
    /// The table's schema (every column a request may ask for).
    fn schema(&self) -> SchemaRef;

    /// Where the rows come from, for EXPLAIN and messages (`SQLite file
    /// shop.db, table customers`).
    fn describe(&self) -> String;

    /// Whether the source can look rows up by table column `column` (an
    /// equality on a column it cannot look up by stays in the condition
    /// that filters the fetched rows). Every column, unless overridden.
    fn can_look_up_by(&self, column: usize) -> bool {
        let _ = column;
        true
    }

    /// The rows of the request's keys, in any order, with the request's
    /// columns ([`LookupRequest::schema`]); a key with no row is left out.
    ///
    /// # Errors
    /// The store's error (unreachable, refused, a value that does not fit
    /// its column's type); the join retries it `lookup.max-retries` times
    /// before the query fails with it.
    fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError>;

    /// Whether [`LookupSource::scan`] reads the table whole. When it does,
    /// the planner may run a lookup join over this source as a scan and a
    /// hash join, when that costs less (docs/lookup.md); `false` (the
    /// default, as is `scan`'s) keeps every lookup join a lookup.
    fn can_scan(&self) -> bool {
        false
    }

    /// Reads the whole table (a regular join against it, `SELECT * FROM`
    /// it): the columns `request` asks for, pushed into `sink` in batches
    /// of about `request.batch_size` rows. The default refuses: a store
    /// that can only be looked up by key.
    ///
    /// # Errors
    /// The sink's first error, or the store's.
    fn scan(&self, request: &ScanRequest<'_>, sink: &Sink<'_>) -> crate::exec::Result<()> {
        let _ = (request, sink);
        Err(crate::exec::ExecError::Source(
            format!(
                "{} can only be looked up by key, not read whole: join it `FOR SYSTEM_TIME AS \
                 OF` a PROCTIME() column with an equality on its key",
                self.describe()
            )
            .into(),
        ))
    }

    /// Starts the request and returns at once; `done` is called with its
    /// result from any thread. The default runs [`LookupSource::lookup`]
    /// on a thread of its own, so a source whose client has no async API
    /// still serves several requests in flight; a source with one (a
    /// connection pool, an HTTP client) overrides it.
    fn lookup_async(self: Arc<Self>, request: LookupRequest, done: LookupDone) {
        // `done` stays reachable if the thread cannot start
        let slot = Arc::new(Mutex::new(Some(done)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .name("tenon-lookup".into())
            .spawn(move || {
                let result = self.lookup(&request);
                if let Some(done) = theirs.lock().ok().and_then(|mut d| d.take()) {
                    done(result);
                }
            });
        if let Err(e) = spawned
            && let Some(done) = slot.lock().ok().and_then(|mut d| d.take())
        {
            done(Err(format!(
                "cannot start a thread for an async lookup: {e}"
            )
            .into()));
        }
    }
}

/// A lookup source read whole: the [`TableSource`] of a lookup table's
/// scans ([`LookupSource::scan`]).
#[derive(Debug, Clone)]
pub struct LookupScan(pub Arc<dyn LookupSource>);

impl TableSource for LookupScan {
    fn scan(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
        _report: &mut ScanReport,
    ) -> crate::exec::Result<()> {
        self.0.scan(request, sink)
    }
}
