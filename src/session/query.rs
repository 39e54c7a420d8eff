//! A planned query: what [`Session::sql`](super::Session::sql) gives back,
//! to collect, stream, explain or explain-analyze without planning again,
//! as often as needed.

use std::sync::Arc;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tenon_kernels::KernelError;
use tenon_planner::exec::{self, ExecError};
use tenon_planner::prepare::PreparedQuery;

use super::output::{CancelHandle, Explain, QueryOutput, QueryStream};
use super::stack::{self, on_planning_stack};
use crate::error::{Cause, Error};

/// A query planned once (each join's strategy, each scan's source, the
/// physical plan), run each time it is collected or streamed. It holds
/// what it runs on: tables registered, replaced or dropped in the session
/// after planning do not change it, and it lives apart from the session.
///
/// A DDL statement given to [`Session::sql`](super::Session::sql) runs
/// there and gives a query of no columns and no rows, without a plan.
///
/// Each run reads lazily read files as they are then, and evaluates
/// `NOW()` as it was when the query was planned. Runs of one query (or of
/// its clones) at the same time share its memory budget and its
/// EXPLAIN ANALYZE counters: run them one after another for figures of one
/// run.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon::{Config, Session};
///
/// let mut session = Session::new(Config::default())?;
/// session.register_batch("t", RecordBatch::try_from_iter([
///     ("v", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
/// ])?)?;
/// let query = session.sql("SELECT v FROM t WHERE v > 1")?;
/// println!("{}", query.explain()?.to_text());
/// let rows: usize = query.collect()?.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 2);
/// // again, streamed: the same plan
/// let streamed: usize = query.stream()?.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
/// assert_eq!(streamed, 2);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Query {
    /// `None`: a statement already run (DDL, `SHOW TABLES`, ...).
    prepared: Option<Arc<PreparedQuery>>,
    /// The rows of a statement that gave them without a plan (`SHOW
    /// TABLES`, `DESCRIBE`, `SET`, `EXPLAIN`); `None` otherwise.
    given: Option<Arc<QueryOutput>>,
    pool: Arc<rayon::ThreadPool>,
    batch_size: usize,
}

impl std::fmt::Debug for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("schema", &self.schema())
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl Query {
    pub(crate) fn planned(
        prepared: PreparedQuery,
        pool: Arc<rayon::ThreadPool>,
        batch_size: usize,
    ) -> Self {
        Query {
            prepared: Some(Arc::new(prepared)),
            given: None,
            pool,
            batch_size,
        }
    }

    /// What a DDL statement gives: no plan, no columns, no rows.
    pub(crate) fn done(pool: Arc<rayon::ThreadPool>, batch_size: usize) -> Self {
        Query {
            prepared: None,
            given: None,
            pool,
            batch_size,
        }
    }

    /// What a statement that gives rows without a plan gives (`SHOW
    /// TABLES`, `DESCRIBE`, `SET`, `EXPLAIN`): those rows, each run.
    pub(crate) fn given(
        output: QueryOutput,
        pool: Arc<rayon::ThreadPool>,
        batch_size: usize,
    ) -> Self {
        Query {
            prepared: None,
            given: Some(Arc::new(output)),
            pool,
            batch_size,
        }
    }

    /// The given rows (see [`Query::given`]), or none.
    fn given_output(&self) -> QueryOutput {
        self.given
            .as_deref()
            .cloned()
            .unwrap_or_else(QueryOutput::empty)
    }

    /// The schema of the result.
    pub fn schema(&self) -> SchemaRef {
        match &self.prepared {
            Some(p) => Arc::clone(&p.physical.schema),
            None => self.given_output().schema,
        }
    }

    /// Whether this is the plan `other` holds too (a clone of this query),
    /// not a plan of the same text made again.
    pub fn same_plan(&self, other: &Query) -> bool {
        match (&self.prepared, &other.prepared) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    fn plan(&self, what: &str) -> Result<&Arc<PreparedQuery>, Error> {
        self.prepared.as_ref().ok_or_else(|| {
            Error::Plan(Cause::from(format!(
                "{what} shows the plan of a query; a DDL statement has none"
            )))
        })
    }

    /// Each join's strategy, build side and reason, and the operator tree
    /// (nothing runs, no file is read).
    ///
    /// # Errors
    ///
    /// [`Error::Plan`] for a DDL statement.
    pub fn explain(&self) -> Result<Explain, Error> {
        let p = self.plan("EXPLAIN")?;
        Ok(Explain::new(&p.joins, &p.physical, false))
    }

    /// Runs the query to completion: the schema, the batches and the
    /// execution time (reading files included, see
    /// [`QueryOutput::reads_files`]).
    ///
    /// # Errors
    ///
    /// Execution errors ([`Error::Resource`], [`Error::Execution`],
    /// [`Error::Io`] for a file a scan reads).
    pub fn run(&self) -> Result<QueryOutput, Error> {
        let Some(prepared) = &self.prepared else {
            return Ok(self.given_output());
        };
        on_planning_stack(|| {
            let start = Instant::now();
            let reads_files = prepared.reads_files();
            let batches = prepared.collect(&self.pool, self.batch_size)?;
            Ok(QueryOutput {
                schema: Arc::clone(&prepared.physical.schema),
                batches,
                elapsed: start.elapsed(),
                reads_files,
                peak_memory: prepared.physical.budget.peak() as u64,
                spilled_bytes: prepared.physical.spilled_bytes(),
            })
        })
    }

    /// Runs the query and collects its batches.
    ///
    /// # Errors
    ///
    /// As [`Query::run`].
    pub fn collect(&self) -> Result<Vec<RecordBatch>, Error> {
        Ok(self.run()?.batches)
    }

    /// Runs the query and returns the plan with actual rows, batches,
    /// bytes and time per operator of this run (and the rows skipped by
    /// `csv.ignore-parse-errors` on its scans), with the result.
    ///
    /// # Errors
    ///
    /// As [`Query::run`]; [`Error::Plan`] for a DDL statement.
    pub fn explain_analyze(&self) -> Result<(Explain, QueryOutput), Error> {
        let p = self.plan("EXPLAIN ANALYZE")?;
        let output = self.run()?;
        Ok((Explain::new(&p.joins, &p.physical, true), output))
    }

    /// Starts running the query on the session's workers; the result
    /// arrives as a stream of batches while it runs (a few batches are
    /// buffered). Dropping the stream stops the run. Execution errors
    /// arrive in the stream.
    ///
    /// # Errors
    ///
    /// [`Error::Resource`] when the query's thread cannot start, or a
    /// table held in memory does not fit `memory_limit`; [`Error::Io`]
    /// when such a table, read on first use, cannot be read.
    pub fn stream(&self) -> Result<QueryStream, Error> {
        let given = self.given_output();
        let (tx, rx) = sync_channel::<Result<RecordBatch, Error>>(4.max(given.batches.len()));
        let Some(prepared) = &self.prepared else {
            for batch in given.batches {
                let _ = tx.send(Ok(batch));
            }
            drop(tx);
            return Ok(QueryStream {
                schema: given.schema,
                rx,
                handle: None,
                cancel: CancelHandle::default(),
            });
        };
        // Opened here, as the plan's scans are given their rows: a table
        // held in memory that cannot be read is this call's error.
        let tables = on_planning_stack(|| Ok(prepared.open(self.batch_size)?))?;
        let prepared = Arc::clone(prepared);
        let schema = Arc::clone(&prepared.physical.schema);
        let pool = Arc::clone(&self.pool);
        let batch_size = self.batch_size;
        let cancel = CancelHandle::default();
        let flag = Arc::clone(&cancel.flag);
        let handle = std::thread::Builder::new()
            .name("tenon-query".into())
            .stack_size(stack::QUERY_THREAD_STACK)
            .spawn(move || {
                // `SyncSender` is `Sync`: the workers send through one
                // shared reference.
                let result = exec::execute_cancellable(
                    &prepared.physical,
                    &tables,
                    &pool,
                    batch_size,
                    &|b| tx.send(Ok(b)).map_err(|_| ExecError::Cancelled),
                    &flag,
                );
                match result {
                    Ok(()) => {}
                    // Cancelled through its handle: the stream's last item
                    // says so (nobody reads it after a drop).
                    Err(ExecError::Cancelled | ExecError::Join(KernelError::Cancelled)) => {
                        let _ = tx.send(Err(Error::Cancelled));
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.into()));
                    }
                }
            })
            .map_err(|e| Error::Resource(Cause::context("cannot start the query thread", e)))?;
        Ok(QueryStream {
            schema,
            rx,
            handle: Some(handle),
            cancel,
        })
    }
}
