//! What running a statement gives back: a query's result, a stream of
//! batches, a plan (EXPLAIN), or what a DDL statement did.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use tenon_planner::choose::{JoinPlan, PlannedJoin};
use tenon_planner::exec::{PhysicalPlan, RuntimeFilterInfo};

use crate::error::{Cause, Error};

/// A query's complete result.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    /// The result's schema (also when there are no rows).
    pub schema: SchemaRef,
    /// The result batches.
    pub batches: Vec<RecordBatch>,
    /// Execution time, planning excluded; it includes reading the files
    /// of tables not held in memory ([`QueryOutput::reads_files`]).
    pub elapsed: Duration,
    /// Whether running the query read files (a table registered with
    /// `register_file` or a scan with OPTIONS that re-read its file, or a
    /// table held in memory read for the first time), so that
    /// [`QueryOutput::elapsed`] includes reading them.
    pub reads_files: bool,
    /// The most bytes the run held at once, as charged to its memory
    /// budget (what `memory_limit` bounds).
    pub peak_memory: u64,
    /// Bytes of spill files the run wrote (0 when it fitted in memory).
    pub spilled_bytes: u64,
}

impl QueryOutput {
    /// The number of result rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// No columns, no rows: what a DDL statement gives where a query's
    /// result is expected.
    pub(crate) fn empty() -> Self {
        QueryOutput {
            schema: std::sync::Arc::new(Schema::empty()),
            batches: Vec::new(),
            elapsed: Duration::ZERO,
            reads_files: false,
            peak_memory: 0,
            spilled_bytes: 0,
        }
    }
}

/// What [`Session::execute`](super::Session::execute) did.
#[derive(Debug, Clone)]
pub enum StatementOutput {
    /// A query ran: its result.
    Rows(QueryOutput),
    /// A DDL statement ran: what it did, e.g. `created view v`.
    Done(String),
}

/// A running query's result batches, in the order the plan produces them
/// (unordered unless the query has ORDER BY).
///
/// Dropping the stream stops the run, as does [`CancelHandle::cancel`]
/// from any thread; after a cancel the stream's last item is
/// [`Error::Cancelled`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use tenon::{Config, Error, Session};
///
/// let mut session = Session::new(Config::default())?;
/// session.register_tpch(0.01)?;
/// let query = session.sql("SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_quantity < b.l_quantity")?;
/// let mut stream = query.stream()?;
/// let cancel = stream.cancel_handle();
/// // Nothing within a millisecond: the join runs on.
/// assert!(stream.next_timeout(Duration::from_millis(1)).is_none());
/// cancel.cancel();
/// let last = stream.find_map(|item| item.err());
/// assert!(matches!(last, Some(Error::Cancelled)));
/// # Ok::<_, tenon::Error>(())
/// ```
pub struct QueryStream {
    pub(crate) schema: SchemaRef,
    pub(crate) rx: Receiver<Result<RecordBatch, Error>>,
    pub(crate) handle: Option<JoinHandle<()>>,
    pub(crate) cancel: CancelHandle,
}

/// Stops a running query from any thread ([`QueryStream::cancel_handle`]):
/// a Ctrl-C handler's or a watchdog's.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle {
    pub(crate) flag: Arc<AtomicBool>,
}

impl CancelHandle {
    /// Asks the query to stop: each of its threads stops before the next
    /// batch it would pass on (a sort or an aggregate's final pass over
    /// what it holds runs to its end first). Its stream then ends with
    /// [`Error::Cancelled`]. Cancelling twice, or a finished query, does
    /// nothing.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

impl QueryStream {
    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// A handle that cancels this query from another thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// The next item, waiting at most `timeout` for it: `None` when
    /// nothing arrived in time (the query runs on), else what
    /// [`Iterator::next`] gives. For a caller that must do something else
    /// while it waits (check for Ctrl-C, a deadline).
    pub fn next_timeout(
        &mut self,
        timeout: Duration,
    ) -> Option<Option<Result<RecordBatch, Error>>> {
        match self.rx.recv_timeout(timeout) {
            Ok(item) => Some(Some(item)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(self.finish()),
        }
    }

    /// The end of the stream: the query thread's panic, if it panicked.
    fn finish(&mut self) -> Option<Result<RecordBatch, Error>> {
        if let Some(h) = self.handle.take()
            && h.join().is_err()
        {
            return Some(Err(Error::Execution(Cause::from(
                "internal: the query thread panicked",
            ))));
        }
        None
    }
}

impl Iterator for QueryStream {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.rx.recv() {
            Ok(item) => Some(item),
            Err(_) => self.finish(),
        }
    }
}

impl Drop for QueryStream {
    fn drop(&mut self) {
        // Stops the run at its next batch, not only at its next send.
        self.cancel.cancel();
    }
}

impl std::fmt::Debug for QueryStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryStream")
            .field("schema", &self.schema)
            .finish()
    }
}

/// A query's plan: every join's decision and the physical operator tree.
#[derive(Debug, Clone)]
pub struct Explain {
    /// Every join, in docs/cli.md's order, with strategy, build side and reason.
    pub joins: Vec<PlannedJoin>,
    /// Every runtime join filter: the join that makes it and the operators
    /// that test it.
    pub runtime_filters: Vec<RuntimeFilterInfo>,
    json: String,
    joins_text: String,
    tree: String,
}

impl Explain {
    pub(crate) fn new(joins: &JoinPlan, physical: &PhysicalPlan, analyze: bool) -> Self {
        // docs/cli.md's object: the joins, then the runtime filters.
        let mut json = joins.to_json();
        if json.ends_with('}') {
            json.pop();
            json.push_str(", \"runtime_filters\": ");
            json.push_str(&physical.runtime_filters_json());
            json.push('}');
        }
        Explain {
            joins: joins.joins.clone(),
            runtime_filters: physical.runtime_filter_infos(),
            json,
            joins_text: joins.to_text(),
            tree: physical.to_text(analyze),
        }
    }

    /// For people: the joins' decisions, then the operator tree (with
    /// metrics after [`Session::explain_analyze`](super::Session::explain_analyze)).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if !self.joins_text.trim().is_empty() {
            s.push_str(&self.joins_text);
            if !s.ends_with('\n') {
                s.push('\n');
            }
            s.push('\n');
        }
        s.push_str(&self.tree);
        s
    }

    /// For machines: docs/cli.md's `{"joins": [...], "runtime_filters":
    /// [...]}` object.
    pub fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The joins' decisions alone (strategy, build side and why, one join
    /// after another); empty for a query without joins.
    pub fn joins_text(&self) -> &str {
        &self.joins_text
    }

    /// The operator tree alone.
    pub fn tree(&self) -> &str {
        &self.tree
    }
}
