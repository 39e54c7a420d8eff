//! The embedding API: register tables, run SQL with join hints, get Arrow
//! record batches back.
//!
//! A [`Session`] holds a [`Config`], the registered tables (in memory) and
//! a worker pool. [`Session::sql`] plans a query (hints resolved per query
//! block, HINTS.md), lowers it to a physical plan whose joins run on the
//! kernels, and streams the result; [`Session::collect`] gathers it;
//! [`Session::explain`] shows each join's strategy and why.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use tenon::{Config, Session};
//!
//! let orders = RecordBatch::try_from_iter([
//!     ("cust", Arc::new(Int64Array::from(vec![1, 1, 2, 3])) as _),
//!     ("amount", Arc::new(Int64Array::from(vec![10, 20, 30, 40])) as _),
//! ])?;
//! let customers = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2])) as _),
//! ])?;
//! let mut session = Session::new(Config::default())?;
//! session.register_batch("orders", orders)?;
//! session.register_batch("customers", customers)?;
//!
//! let sql = "SELECT /*+ BROADCAST(c) */ count(*) AS n, sum(o.amount) AS total \
//!            FROM orders o JOIN customers c ON o.cust = c.id";
//! let explain = session.explain(sql)?;
//! assert_eq!(explain.joins[0].strategy.name(), "BROADCAST");
//! assert_eq!(explain.joins[0].build.as_deref(), Some("c"));
//!
//! let batches = session.collect(sql)?;
//! let row = &batches[0];
//! let n = row.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
//! let total = row.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
//! assert_eq!((n.value(0), total.value(0)), (3, 60));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tenon_planner::choose::{JoinPlan, PlanError, PlannedJoin, plan_joins};
use tenon_planner::config::Config;
use tenon_planner::exec::{self, ExecError, PhysicalPlan, TableData, Tables};
use tenon_planner::expr::QueryContext;
use tenon_planner::sql::{Catalog, TableStats};

use crate::error::Error;
use crate::io::read_table;

/// A query engine instance: settings, registered tables and workers.
pub struct Session {
    config: Config,
    catalog: Catalog,
    tables: Tables,
    pool: Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("config", &self.config)
            .field("tables", &self.catalog.table_names())
            .finish()
    }
}

fn build_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if threads > 0 {
        builder = builder.num_threads(threads);
    }
    builder
        .build()
        .map(Arc::new)
        .map_err(|e| Error::Resource(format!("cannot start worker threads: {e}")))
}

impl Session {
    /// A session with these settings and no tables.
    ///
    /// # Errors
    ///
    /// [`Error::Resource`] when the worker threads cannot be started.
    pub fn new(config: Config) -> Result<Self, Error> {
        let pool = build_pool(config.threads)?;
        Ok(Session {
            config,
            catalog: Catalog::new(),
            tables: Tables::new(),
            pool,
        })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Changes one setting, as `--set KEY=VALUE` does (`threads`,
    /// `batch_size`, `broadcast_threshold`, `hint_mode`,
    /// `disabled_strategies`, `memory_limit`).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for an unknown key or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let threads = self.config.threads;
        self.config.set(key, value)?;
        if self.config.threads != threads {
            self.pool = build_pool(self.config.threads)?;
        }
        Ok(())
    }

    /// Registers `batches` (all of `schema`) as table `name`, replacing a
    /// table of that name. SQL names fold to lower case unless quoted, so
    /// register lower-case names to use them unquoted.
    ///
    /// # Errors
    ///
    /// [`Error::Plan`] when a batch's schema differs from `schema`.
    pub fn register_batches(
        &mut self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    ) -> Result<(), Error> {
        if let Some(i) = batches
            .iter()
            .position(|b| b.schema().fields() != schema.fields())
        {
            return Err(Error::Plan(format!(
                "table `{name}`: batch {i} has schema {:?}, not the table's {:?}",
                batches[i].schema(),
                schema
            )));
        }
        let data = TableData { schema, batches };
        let stats = TableStats {
            row_count: Some(data.num_rows() as u64),
            byte_size: Some(data.num_bytes() as u64),
            sorted_on: Vec::new(),
        };
        self.catalog
            .register_table_with_stats(name, data.schema.clone(), stats);
        self.tables.insert(name.to_string(), Arc::new(data));
        Ok(())
    }

    /// Registers one batch as table `name`.
    ///
    /// # Errors
    ///
    /// As [`Session::register_batches`].
    pub fn register_batch(&mut self, name: &str, batch: RecordBatch) -> Result<(), Error> {
        self.register_batches(name, batch.schema(), vec![batch])
    }

    /// Loads a Parquet, CSV or Arrow IPC file (or a directory of them) into
    /// memory as table `name` (see [`crate::io::read_table`]).
    ///
    /// # Errors
    ///
    /// [`Error::Io`]: a missing, unreadable or corrupt file, an unknown
    /// extension, files of different schemas in one directory.
    pub fn register_file(&mut self, name: &str, path: impl AsRef<Path>) -> Result<(), Error> {
        let loaded = read_table(path.as_ref(), self.config.batch_size)?;
        self.register_batches(name, loaded.schema, loaded.batches)
    }

    /// Registers the eight TPC-H tables (region, nation, supplier,
    /// customer, part, partsupp, orders, lineitem) generated in memory at
    /// scale factor `scale`.
    ///
    /// # Errors
    ///
    /// As [`Session::register_batches`].
    pub fn register_tpch(&mut self, scale: f64) -> Result<(), Error> {
        for (name, batches) in tenon_datasets::tpch::tpch_tables_cached(scale) {
            let schema = batches[0].schema();
            self.register_batches(name, schema, batches.to_vec())?;
        }
        Ok(())
    }

    /// The registered tables' names, sorted.
    pub fn table_names(&self) -> Vec<String> {
        self.catalog.table_names()
    }

    /// Plans `sql`: each join's strategy (EXPLAIN) and the physical plan.
    fn prepare(&self, sql: &str) -> Result<Prepared, Error> {
        let ctx = QueryContext::new();
        let joins = plan_joins(sql, &self.catalog, &self.config)?;
        let physical =
            exec::lower(&joins, &self.tables, &self.config, &ctx).map_err(Error::planning)?;
        Ok(Prepared { joins, physical })
    }

    /// Each join's strategy, build side and reason, and the physical plan,
    /// without running the query.
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], except execution errors.
    pub fn explain(&self, sql: &str) -> Result<Explain, Error> {
        let prepared = self.prepare(sql)?;
        Ok(Explain::new(&prepared, false))
    }

    /// Runs `sql` and returns the plan with actual rows, batches, bytes
    /// and time per operator, together with the result.
    ///
    /// # Errors
    ///
    /// As [`Session::collect`].
    pub fn explain_analyze(&self, sql: &str) -> Result<(Explain, QueryOutput), Error> {
        let prepared = self.prepare(sql)?;
        let output = self.run_prepared(&prepared)?;
        Ok((Explain::new(&prepared, true), output))
    }

    /// Runs `sql` to completion: the schema, the batches and the execution
    /// time (planning excluded).
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], and execution errors.
    pub fn query(&self, sql: &str) -> Result<QueryOutput, Error> {
        let prepared = self.prepare(sql)?;
        self.run_prepared(&prepared)
    }

    fn run_prepared(&self, prepared: &Prepared) -> Result<QueryOutput, Error> {
        let start = Instant::now();
        let batches = exec::collect(
            &prepared.physical,
            &self.tables,
            &self.pool,
            self.config.batch_size,
        )?;
        Ok(QueryOutput {
            schema: prepared.physical.schema.clone(),
            batches,
            elapsed: start.elapsed(),
        })
    }

    /// Runs `sql` and collects its result batches.
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], and execution errors.
    pub fn collect(&self, sql: &str) -> Result<Vec<RecordBatch>, Error> {
        Ok(self.query(sql)?.batches)
    }

    /// Plans `sql` and starts running it on the session's workers; the
    /// result arrives as a stream of batches while the query runs (a few
    /// batches are buffered). Dropping the stream stops the query.
    ///
    /// # Errors
    ///
    /// [`Error::Sql`] (syntax with line and column, unknown tables and
    /// columns), [`Error::Hint`] (malformed, unknown or misplaced hints,
    /// hints naming tables that are not inputs of their block, strict-mode
    /// violations), [`Error::Plan`] (SQL tenon does not run). Execution
    /// errors arrive in the stream.
    pub fn sql(&self, sql: &str) -> Result<QueryStream, Error> {
        let prepared = self.prepare(sql)?;
        let schema = prepared.physical.schema.clone();
        let (tx, rx) = sync_channel::<Result<RecordBatch, Error>>(4);
        let tables = self.tables.clone();
        let pool = Arc::clone(&self.pool);
        let batch_size = self.config.batch_size;
        let physical = prepared.physical;
        let handle = std::thread::Builder::new()
            .name("tenon-query".into())
            .spawn(move || {
                // `SyncSender` is `Sync`: the workers send through one
                // shared reference.
                let result = exec::execute(&physical, &tables, &pool, batch_size, &|b| {
                    tx.send(Ok(b)).map_err(|_| ExecError::Cancelled)
                });
                if let Err(e) = result
                    && !matches!(e, ExecError::Cancelled)
                {
                    let _ = tx.send(Err(e.into()));
                }
            })
            .map_err(|e| Error::Resource(format!("cannot start the query thread: {e}")))?;
        Ok(QueryStream {
            schema,
            rx,
            handle: Some(handle),
        })
    }
}

struct Prepared {
    joins: JoinPlan,
    physical: PhysicalPlan,
}

/// A query's complete result.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    /// The result's schema (also when there are no rows).
    pub schema: SchemaRef,
    /// The result batches.
    pub batches: Vec<RecordBatch>,
    /// Execution time, planning excluded.
    pub elapsed: Duration,
}

impl QueryOutput {
    /// The number of result rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// A running query's result batches, in the order the plan produces them
/// (unordered unless the query has ORDER BY).
pub struct QueryStream {
    schema: SchemaRef,
    rx: Receiver<Result<RecordBatch, Error>>,
    handle: Option<JoinHandle<()>>,
}

impl QueryStream {
    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

impl Iterator for QueryStream {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.rx.recv() {
            Ok(item) => Some(item),
            Err(_) => {
                if let Some(h) = self.handle.take()
                    && h.join().is_err()
                {
                    return Some(Err(Error::Execution(
                        "internal: the query thread panicked".into(),
                    )));
                }
                None
            }
        }
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
    /// Every join, in CLI.md's order, with strategy, build side and reason.
    pub joins: Vec<PlannedJoin>,
    json: String,
    joins_text: String,
    tree: String,
}

impl Explain {
    fn new(prepared: &Prepared, analyze: bool) -> Self {
        Explain {
            joins: prepared.joins.joins.clone(),
            json: prepared.joins.to_json(),
            joins_text: prepared.joins.to_text(),
            tree: prepared.physical.to_text(analyze),
        }
    }

    /// For people: the joins' decisions, then the operator tree (with
    /// metrics after [`Session::explain_analyze`]).
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

    /// For machines: CLI.md's `{"joins": [...]}` object.
    pub fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The operator tree alone.
    pub fn tree(&self) -> &str {
        &self.tree
    }
}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::Sql(e) => Error::Sql(e),
            PlanError::Hint(e) => Error::Hint(e),
        }
    }
}
