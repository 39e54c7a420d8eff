//! The embedding API: a [`Session`] (tables, views, settings, workers)
//! and what it gives back: planned queries, joins built in Rust, plans and
//! their reports.

mod builder;
mod ddl;
mod explain;
mod held_bytes;
mod learned_stats;
mod listing;
mod lookup;
mod output;
mod query;
mod settings;
mod sources;
mod stack;
mod statistics;

use std::path::Path;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tenon_planner::config::Config;
use tenon_planner::exec::{TableData, held_form};
use tenon_planner::prepare::plan_statement;
use tenon_planner::table_function::TableFunction;

use crate::error::{Cause, Error};
use crate::io::{FileFormat, read_table};

pub use builder::{JoinBuilder, TableRef};
pub use explain::{JoinReport, PlanReport, RuntimeFilterReport};
pub use output::{CancelHandle, Explain, QueryOutput, QueryStream, StatementOutput};
pub use query::Query;
use sources::{FileTable, Loaded, Registry};
use stack::on_planning_stack;

/// A query engine instance: settings, tables and views, and workers.
///
/// The embedding API: register tables, run SQL with join hints, get Arrow
/// record batches back.
///
/// A [`Session`] holds a [`Config`], its tables and views, and a worker
/// pool. [`Session::sql`] plans a statement in one call down into the
/// planner ([`tenon_planner::prepare::plan_statement`], with the session as
/// its [`CatalogProvider`](tenon_planner::prepare::CatalogProvider): the
/// schemas, statistics and views, and each scan's source given its
/// OPTIONS) and returns the planned [`Query`], which collects, streams,
/// explains and explain-analyzes without planning again;
/// [`Session::collect`], [`Session::query`], [`Session::explain`] and
/// [`Session::explain_analyze`] are that call and one of these.
/// [`Session::table`] builds a join in Rust ([`JoinBuilder`]). Settings are
/// [`Session::set`] strings or typed methods (`set_memory_limit`, ...).
///
/// Tables come from [`Session::register_batch`] (rows in memory),
/// [`Session::register_file`] (a file read lazily, by each query's scans),
/// [`Session::register_file_in_memory`] (read once and kept),
/// [`Session::register_tpch`], or a Flink-style `CREATE TABLE t (...) WITH
/// ('connector' = 'filesystem', 'path' = ..., 'format' = ...)` statement,
/// whose file is read when a query first needs it (see
/// [`crate::options`] for the options). `CREATE [TEMPORARY] VIEW v AS ...`
/// names a query, planned where it is used as its own query block (H31).
/// [`Session::execute`] runs any one statement, [`Session::execute_script`]
/// several separated by `;`; [`Session::collect`] and the other query
/// methods also take DDL (and return no rows). Everything lives as long as
/// the session (`TEMPORARY` is accepted and changes nothing).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon::{Config, Session};
///
/// let orders = RecordBatch::try_from_iter([
///     ("cust", Arc::new(Int64Array::from(vec![1, 1, 2, 3])) as _),
///     ("amount", Arc::new(Int64Array::from(vec![10, 20, 30, 40])) as _),
/// ])?;
/// let customers = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int64Array::from(vec![1, 2])) as _),
/// ])?;
/// let mut session = Session::new(Config::default())?;
/// session.register_batch("orders", orders)?;
/// session.register_batch("customers", customers)?;
///
/// let sql = "SELECT /*+ BROADCAST(c) */ count(*) AS n, sum(o.amount) AS total \
///            FROM orders o JOIN customers c ON o.cust = c.id";
/// let explain = session.explain(sql)?;
/// assert_eq!(explain.joins[0].strategy.name(), "BROADCAST");
/// assert_eq!(explain.joins[0].build.as_deref(), Some("c"));
///
/// let batches = session.collect(sql)?;
/// let row = &batches[0];
/// let n = row.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
/// let total = row.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
/// assert_eq!((n.value(0), total.value(0)), (3, 60));
///
/// // a view, its own query block; the outer hint names it
/// session.execute("CREATE VIEW big AS SELECT cust, amount FROM orders WHERE amount > 15")?;
/// let explain = session.explain(
///     "SELECT /*+ SHUFFLE_HASH(big) */ count(*) FROM big JOIN customers c ON big.cust = c.id",
/// )?;
/// assert_eq!(explain.joins[0].build.as_deref(), Some("big"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub struct Session {
    config: Config,
    registry: RwLock<Registry>,
    pool: Arc<rayon::ThreadPool>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("config", &self.config)
            .field("tables", &self.table_names())
            .field("views", &self.view_names())
            .finish()
    }
}

fn build_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, Error> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(stack::WORKER_STACK);
    if threads > 0 {
        builder = builder.num_threads(threads);
    }
    builder
        .build()
        .map(Arc::new)
        .map_err(|e| Error::Resource(Cause::context("cannot start worker threads", e)))
}

impl Session {
    /// A session with these settings and no tables.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when a setting is out of range (more than
    /// [`MAX_THREADS`](tenon_planner::config::MAX_THREADS) threads, a batch
    /// size outside 1 to
    /// [`MAX_BATCH_SIZE`](tenon_planner::config::MAX_BATCH_SIZE));
    /// [`Error::Resource`] when the worker threads cannot be started.
    pub fn new(config: Config) -> Result<Self, Error> {
        config.validate()?;
        let pool = build_pool(config.threads)?;
        Ok(Session {
            config,
            registry: RwLock::new(Registry::default()),
            pool,
        })
    }

    fn read(&self) -> RwLockReadGuard<'_, Registry> {
        self.registry.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Registry> {
        self.registry.write().unwrap_or_else(|e| e.into_inner())
    }

    fn registry_mut(&mut self) -> &mut Registry {
        self.registry.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Registers `batches` (all of `schema`) as table `name`, replacing a
    /// table or view of that name. SQL names fold to lower case unless
    /// quoted, so register lower-case names to use them unquoted.
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
        self.register_held(name, schema, batches, true)
    }

    /// Registers `batches` as table `name` as they are: the table shares
    /// their buffers, so registering copies no column and the result of
    /// `SELECT col FROM name` is slices of them. [`Session::register_batches`]
    /// instead keeps integer, decimal and date columns in the narrowest
    /// type that holds their values, a copy that makes scans read fewer
    /// bytes. Statistics are computed either way (one pass over the
    /// values).
    ///
    /// # Errors
    ///
    /// As [`Session::register_batches`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Array, Int64Array, RecordBatch};
    /// use tenon::{Config, Session};
    ///
    /// let mut session = Session::new(Config::default())?;
    /// let column = Int64Array::from_iter_values(0..10_000);
    /// let start = column.values().as_ptr();
    /// let batch = RecordBatch::try_from_iter([("k", Arc::new(column) as _)]).expect("one column");
    /// session.register_batches_as_given("t", batch.schema(), vec![batch])?;
    /// for out in session.collect("SELECT k FROM t")? {
    ///     let k = out.column(0).as_any().downcast_ref::<Int64Array>().expect("BIGINT");
    ///     let at = k.values().as_ptr();
    ///     // Every output batch is a slice of the registered buffer.
    ///     assert!(at >= start && at < start.wrapping_add(10_000));
    /// }
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn register_batches_as_given(
        &mut self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    ) -> Result<(), Error> {
        self.register_held(name, schema, batches, false)
    }

    fn register_held(
        &mut self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        compact: bool,
    ) -> Result<(), Error> {
        if let Some(i) = batches
            .iter()
            .position(|b| b.schema().fields() != schema.fields())
        {
            return Err(Error::Plan(Cause::from(format!(
                "table `{name}`: batch {i} has schema {:?}, not the table's {:?}",
                batches[i].schema(),
                schema
            ))));
        }
        let data = TableData::new(schema, batches);
        let stats = self.pool.install(|| statistics::stats_of(&data));
        if compact {
            self.registry_mut().insert_data(name, data, stats);
        } else {
            self.registry_mut().insert_data_as_given(name, data, stats);
        }
        Ok(())
    }

    /// Registers a table function, called from SQL as `LATERAL
    /// TABLE(name(...))` joined with the rows before it in FROM (module
    /// [`tenon_planner::table_function`]; it replaces one of the same
    /// name, a built-in included).
    ///
    /// # Examples
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{ArrayRef, Int64Array, UInt32Array, cast::AsArray, types::Int64Type};
    /// use arrow_schema::{DataType, Field, FieldRef};
    /// use tenon::planner::table_function::{TableFunction, TableFunctionRows, TableFunctionSink};
    /// use tenon::{Config, Session};
    ///
    /// /// `digits(n)`: the decimal digits of `n`, one row each.
    /// #[derive(Debug)]
    /// struct Digits;
    ///
    /// impl TableFunction for Digits {
    ///     fn name(&self) -> &str {
    ///         "digits"
    ///     }
    ///     fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String> {
    ///         match args {
    ///             [DataType::Int64] => Ok(vec![Arc::new(Field::new("d", DataType::Int64, false))]),
    ///             other => Err(format!("digits takes one BIGINT, not {other:?}")),
    ///         }
    ///     }
    ///     fn call(
    ///         &self,
    ///         args: &[ArrayRef],
    ///         _max_rows: usize,
    ///         sink: &mut TableFunctionSink<'_>,
    ///     ) -> Result<(), String> {
    ///         // one pass over the batch, not one call per row
    ///         let n = args[0].as_primitive::<Int64Type>();
    ///         let (mut rows, mut digits) = (Vec::new(), Vec::new());
    ///         for (row, v) in n.iter().enumerate() {
    ///             for c in v.map(|v| v.unsigned_abs().to_string()).unwrap_or_default().bytes() {
    ///                 rows.push(row as u32);
    ///                 digits.push(i64::from(c - b'0'));
    ///             }
    ///         }
    ///         sink(TableFunctionRows {
    ///             rows: UInt32Array::from(rows),
    ///             columns: vec![Arc::new(Int64Array::from(digits)) as ArrayRef],
    ///         })
    ///     }
    /// }
    ///
    /// let session = Session::new(Config::default())?;
    /// session.register_table_function(Arc::new(Digits));
    /// let out = session.collect(
    ///     "SELECT n, d FROM (VALUES (CAST(42 AS BIGINT)), (7)) AS t(n), \
    ///      LATERAL TABLE(digits(n)) AS x(d)",
    /// )?;
    /// assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn register_table_function(&self, f: Arc<dyn TableFunction>) {
        self.write().catalog.register_table_function(f);
    }

    /// Registers one batch as table `name`.
    ///
    /// # Errors
    ///
    /// As [`Session::register_batches`].
    pub fn register_batch(&mut self, name: &str, batch: RecordBatch) -> Result<(), Error> {
        self.register_batches(name, batch.schema(), vec![batch])
    }

    /// Registers a Parquet, CSV, Arrow IPC or JSON file (or a directory of
    /// them) as table `name`, read lazily: registering reads only the
    /// schema (Parquet footers, IPC headers; CSV and JSON: inferred from
    /// their first rows) and the statistics (rows, column sizes, null
    /// counts, bounds and, when stored, distinct counts from Parquet
    /// footers, else the size on disk; the first query that reads the
    /// table whole learns the rest of the columns it reads, and
    /// [`Session::analyze_table`] computes them all); each query that
    /// scans the table reads only the columns it uses while its scans run, batch by
    /// batch (the batches in flight charged to its `memory_limit`), and
    /// for Parquet only the row groups whose statistics do not rule out
    /// the filter above the scan. Scans of it with
    /// `/*+ OPTIONS(...) */` read the file with those options, into the
    /// schema found now. [`Session::register_file_in_memory`] reads it
    /// once and keeps it instead.
    ///
    /// # Errors
    ///
    /// [`Error::Io`]: a missing, unreadable or corrupt file, an unknown
    /// extension, files of different schemas in one directory, a directory
    /// with subdirectories, two columns of one name.
    pub fn register_file(&mut self, name: &str, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let schema = crate::io::table_schema(path)?;
        let on_disk = crate::io::file_stats(path, None)?;
        let crate::io::ParquetFooters {
            column_bytes,
            columns,
        } = crate::io::parquet_footers(path, &schema)?.unwrap_or_default();
        let stats = tenon_planner::sql::TableStats {
            columns,
            row_count: on_disk.rows,
            byte_size: Some(if column_bytes.is_empty() {
                on_disk.bytes
            } else {
                column_bytes.iter().sum()
            }),
            column_bytes,
            ..Default::default()
        };
        let file = FileTable::lazy(path.to_path_buf(), single_format(path), schema);
        self.registry_mut().insert_lazy_file(name, file, stats);
        Ok(())
    }

    /// Reads a file (or a directory of files) into memory once, as table
    /// `name`, and keeps it (see [`crate::io::read_table`]): every query
    /// reuses the rows read (benchmarks that should not time reading
    /// files), and charges them to its `memory_limit` while it runs.
    ///
    /// # Errors
    ///
    /// As [`Session::register_file`].
    pub fn register_file_in_memory(
        &mut self,
        name: &str,
        path: impl AsRef<Path>,
    ) -> Result<(), Error> {
        let path = path.as_ref();
        crate::io::table_schema(path)?;
        let loaded = read_table(path, self.config.batch_size)?;
        let mut data = TableData::new(loaded.schema, loaded.batches);
        let stats = self.pool.install(|| statistics::stats_of(&data));
        data.batches = held_form::compact(std::mem::take(&mut data.batches));
        let file = FileTable::read_already(
            path.to_path_buf(),
            single_format(path),
            Loaded {
                data: Arc::new(data),
                skipped: 0,
            },
        );
        self.registry_mut().insert_lazy_file(name, file, stats);
        Ok(())
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

    /// The tables' names, sorted.
    pub fn table_names(&self) -> Vec<String> {
        self.read().catalog.table_names()
    }

    /// The views' names, sorted.
    pub fn view_names(&self) -> Vec<String> {
        self.read().catalog.view_names()
    }

    /// Plans `sql` in one call down into the planner (the session its
    /// catalog): each join's strategy, each scan's source, the physical
    /// plan.
    fn prepare(&self, sql: &str) -> Result<Query, Error> {
        self.publish_learned();
        let prepared = plan_statement(sql, &*self.read(), &self.config)?;
        Ok(Query::planned(
            prepared,
            Arc::clone(&self.pool),
            self.config.batch_size,
        ))
    }

    /// Each join's strategy, build side and reason, and the physical plan,
    /// without running the query (nor reading files).
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], except execution errors; [`Error::Plan`] for a
    /// DDL statement (there is no plan to show).
    pub fn explain(&self, sql: &str) -> Result<Explain, Error> {
        on_planning_stack(|| {
            ddl::refuse_ddl(sql, "EXPLAIN")?;
            self.prepare(sql)?.explain()
        })
    }

    /// Runs `sql` and returns the plan with actual rows, batches, bytes
    /// and time per operator (and the rows skipped by
    /// `csv.ignore-parse-errors` on its scans), together with the result.
    ///
    /// # Errors
    ///
    /// As [`Session::collect`]; [`Error::Plan`] for a DDL statement.
    pub fn explain_analyze(&self, sql: &str) -> Result<(Explain, QueryOutput), Error> {
        on_planning_stack(|| {
            ddl::refuse_ddl(sql, "EXPLAIN ANALYZE")?;
            self.prepare(sql)?.explain_analyze()
        })
    }

    /// Runs `sql` to completion: the schema, the batches and the execution
    /// time (planning excluded; reading files included, see
    /// [`QueryOutput::reads_files`]). A DDL statement
    /// runs and gives no columns and no rows.
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], and execution errors.
    pub fn query(&self, sql: &str) -> Result<QueryOutput, Error> {
        on_planning_stack(|| self.sql(sql)?.run())
    }

    /// Runs `sql` and collects its result batches (none for a DDL
    /// statement).
    ///
    /// # Errors
    ///
    /// As [`Session::sql`], and execution errors.
    pub fn collect(&self, sql: &str) -> Result<Vec<RecordBatch>, Error> {
        Ok(self.query(sql)?.batches)
    }

    /// Plans `sql` once and returns the planned [`Query`]: collect it,
    /// stream it, explain it, explain-analyze it, as often as needed,
    /// without planning again. A DDL statement runs at once and gives a
    /// query of no rows.
    ///
    /// # Errors
    ///
    /// [`Error::Sql`] (syntax with line and column, unknown tables and
    /// columns), [`Error::Hint`] (malformed, unknown or misplaced hints,
    /// hints naming tables that are not inputs of their block, strict-mode
    /// violations), [`Error::Options`] (unknown OPTIONS keys, bad values),
    /// [`Error::Plan`] (SQL tenon does not run), [`Error::Ddl`].
    pub fn sql(&self, sql: &str) -> Result<Query, Error> {
        on_planning_stack(|| {
            match self.run_if_ddl(sql)? {
                Some(StatementOutput::Done(_)) => {
                    return Ok(Query::done(Arc::clone(&self.pool), self.config.batch_size));
                }
                Some(StatementOutput::Rows(out)) => {
                    return Ok(Query::given(
                        out,
                        Arc::clone(&self.pool),
                        self.config.batch_size,
                    ));
                }
                None => {}
            }
            self.prepare(sql)
        })
    }
}

/// The one format of a file, or of a directory's data files (`None` when
/// they are of several formats).
fn single_format(path: &Path) -> Option<FileFormat> {
    if !path.is_dir() {
        return crate::io::format_of(path);
    }
    let mut found = None;
    for entry in std::fs::read_dir(path).ok()?.flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if let Some(f) = crate::io::format_of(&entry.path()) {
            match found {
                None => found = Some(f),
                Some(g) if g != f => return None,
                _ => {}
            }
        }
    }
    found
}
