//! Planning a statement in one call: SQL and a catalog in, a physical plan
//! with the sources of its scans out, ready to run any number of times.
//!
//! ```text
//! plan_statement(sql, &dyn CatalogProvider, &Config)
//!     choose::plan_joins ── each join's strategy (hints, defaults)
//!     per scan with OPTIONS, then per other table scanned:
//!         CatalogProvider::scan_source ── the keys checked (H41), a ScanSource
//!     exec::lower ── the physical plan
//!   ──► PreparedQuery { joins, physical, sources }
//! PreparedQuery::execute / collect: every source opened for the run, then
//!     the plan run on them
//! ```
//!
//! The program that owns the tables (the `tenon` session) implements
//! [`CatalogProvider`]: the schemas, statistics and views SQL is planned
//! against ([`Catalog`], which also holds the functions), and where each
//! scan's rows come from ([`ScanSource`]) given its dynamic OPTIONS. A
//! scan with OPTIONS reads its own entry, named
//! `table /*+ OPTIONS('k'='v', ...) */` (its `TableScan` renamed so, the
//! schema and everything above it as planned); other scans of the same
//! table read the table's own entry. Nothing is read while planning: a
//! source is opened when the plan runs ([`ScanSource::open`]), once per
//! run.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_schema::SchemaRef;

use crate::choose::{JoinPlan, PlanError, plan_joins};
use crate::config::Config;
use crate::exec::{self, ExecError, Operator, PhysicalPlan, Sink, TableData, Tables};
use crate::expr::QueryContext;
use crate::hints::Position;
use crate::sql::Catalog;
use tenon_kernels::MemoryBudget;

/// What the planner asks of the program that owns the tables.
pub trait CatalogProvider: Sync {
    /// The tables' schemas and statistics, the views, and the functions
    /// SQL is planned against.
    fn catalog(&self) -> &Catalog;

    /// Where the rows of one scan come from. `scan.options` are the scan's
    /// dynamic options (`t /*+ OPTIONS('k'='v') */`, empty for none),
    /// each key once: check them against the table (H41) here.
    ///
    /// # Errors
    ///
    /// The provider's own error (an unknown key, a bad value, a table
    /// without rows), returned by [`plan_statement`] as
    /// [`PrepareError::Source`].
    fn scan_source(&self, scan: &ScanSpec<'_>) -> Result<Arc<dyn ScanSource>, BoxError>;
}

/// A provider's error, kept whole (its type and its `source()` chain).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The scan [`CatalogProvider::scan_source`] is asked about.
#[derive(Debug, Clone, Copy)]
pub struct ScanSpec<'a> {
    /// The table scanned (as registered in the catalog).
    pub table: &'a str,
    /// Its dynamic options, in written order, each key once (H25).
    pub options: &'a [(String, String)],
    /// Where its first OPTIONS hint is in the SQL text (`None` without
    /// options).
    pub position: Option<Position>,
}

/// The rows of one entry of a plan's scans: found while planning, opened
/// for each run.
pub trait ScanSource: Send + Sync + fmt::Debug {
    /// The schema of the table's rows (every column).
    fn schema(&self) -> SchemaRef;

    /// The data for one run of the plan: rows held in memory, or a
    /// [`TableSource`](crate::exec::TableSource) that reads them while the
    /// scan runs. Rows kept for the run are charged to `budget` (the plan's
    /// memory budget).
    ///
    /// # Errors
    ///
    /// [`ExecError::Source`] when the rows cannot be read,
    /// [`ExecError::Memory`] when they do not fit the budget.
    fn open(&self, batch_size: usize, budget: &MemoryBudget) -> exec::Result<OpenedScan>;

    /// Whether opening and scanning it reads files (for timings that say
    /// whether they include reading).
    fn reads_files(&self) -> bool;

    /// For a lookup table: the source its lookup joins fetch rows from by
    /// key (planning asks it which columns it can look up by). `None`,
    /// unless overridden.
    fn lookup(&self) -> Option<Arc<dyn crate::lookup::LookupSource>> {
        None
    }
}

/// What [`ScanSource::open`] gives for one run.
#[derive(Debug, Clone)]
pub struct OpenedScan {
    /// The rows, or the source that reads them.
    pub data: Arc<TableData>,
    /// Rows skipped as unreadable while they were read, when the table's
    /// options skip such rows (shown by EXPLAIN ANALYZE on the scans).
    pub skipped_rows: Option<u64>,
}

/// Everything [`plan_statement`] can fail with.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The SQL or a hint is wrong.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The catalog refused a scan's source (its options, its table).
    #[error(transparent)]
    Source(BoxError),
    /// Lowering to operators failed (SQL tenon does not run, the memory
    /// budget).
    #[error(transparent)]
    Lower(#[from] ExecError),
}

/// A statement planned down to operators, with its scans' sources: run it
/// with [`PreparedQuery::execute`] as often as needed.
#[derive(Debug)]
pub struct PreparedQuery {
    /// Every join's decision, the planned logical query.
    pub joins: JoinPlan,
    /// The operator tree; its metrics are those of the latest run.
    pub physical: PhysicalPlan,
    /// The rows of each name its scans read.
    pub sources: Sources,
}

/// The entry name of a scan with options: `t /*+ OPTIONS('k'='v') */`.
fn entry_name(table: &str, options: &[(String, String)]) -> String {
    let pairs: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("'{}'='{}'", k.replace('\'', "''"), v.replace('\'', "''")))
        .collect();
    format!("{table} /*+ OPTIONS({}) */", pairs.join(", "))
}

/// Plans `sql` against `provider`: each join's strategy, each scan's source
/// (asked of the provider once per entry), and the physical plan. Nothing
/// is read.
///
/// # Errors
///
/// [`PrepareError::Plan`] for SQL and hints ([`plan_joins`]),
/// [`PrepareError::Source`] for what the provider refuses,
/// [`PrepareError::Lower`] for plans tenon does not run.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_planner::config::Config;
/// use tenon_planner::exec::{self, TableData};
/// use tenon_kernels::MemoryBudget;
/// use tenon_planner::prepare::{
///     BoxError, CatalogProvider, OpenedScan, ScanSource, ScanSpec, plan_statement,
/// };
/// use tenon_planner::sql::Catalog;
///
/// #[derive(Debug)]
/// struct InMemory(Arc<TableData>);
/// impl ScanSource for InMemory {
///     fn schema(&self) -> arrow_schema::SchemaRef { Arc::clone(&self.0.schema) }
///     fn open(&self, _: usize, _: &MemoryBudget) -> exec::Result<OpenedScan> {
///         Ok(OpenedScan { data: Arc::clone(&self.0), skipped_rows: None })
///     }
///     fn reads_files(&self) -> bool { false }
/// }
/// struct One(Catalog, Arc<TableData>);
/// impl CatalogProvider for One {
///     fn catalog(&self) -> &Catalog { &self.0 }
///     fn scan_source(&self, scan: &ScanSpec<'_>) -> Result<Arc<dyn ScanSource>, BoxError> {
///         if !scan.options.is_empty() {
///             return Err(format!("table {} takes no options", scan.table).into());
///         }
///         Ok(Arc::new(InMemory(Arc::clone(&self.1))))
///     }
/// }
///
/// let batch = RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
/// let mut catalog = Catalog::new();
/// catalog.register_table("t", batch.schema());
/// let provider = One(catalog, Arc::new(TableData::new(batch.schema(), vec![batch])));
///
/// let config = Config::default();
/// let query = plan_statement("SELECT sum(v) FROM t", &provider, &config)?;
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
/// let first = query.collect(&pool, 8192)?;
/// let again = query.collect(&pool, 8192)?; // the same plan, run again
/// assert_eq!(first, again);
/// assert!(plan_statement("SELECT * FROM t /*+ OPTIONS('a'='b') */", &provider, &config).is_err());
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn plan_statement(
    sql: &str,
    provider: &dyn CatalogProvider,
    config: &Config,
) -> Result<PreparedQuery, PrepareError> {
    let (joins, sources) = resolve(sql, provider, config)?;
    // Lowering reads the schemas only (and a lookup table's source, for
    // the columns it can look up by).
    let schemas: Tables = sources
        .iter()
        .map(|(k, s)| {
            let mut data = TableData::new(s.schema(), Vec::new());
            data.lookup = s.lookup();
            (k.clone(), Arc::new(data))
        })
        .collect();
    let physical = exec::lower(&joins, &schemas, config, &QueryContext::new())?;
    Ok(PreparedQuery {
        joins,
        physical,
        sources,
    })
}

/// Plans `sql` as [`plan_statement`] does, up to its scans' sources, and
/// lowers nothing: whether the statement's SQL, hints and scan options are
/// valid (a view's body when the view is created, which is lowered where
/// it is used).
///
/// # Errors
///
/// As [`plan_statement`], except [`PrepareError::Lower`].
pub fn check_statement(
    sql: &str,
    provider: &dyn CatalogProvider,
    config: &Config,
) -> Result<(), PrepareError> {
    resolve(sql, provider, config).map(drop)
}

/// The scan entries of a planned query: each name its scans read, and
/// where its rows come from.
pub type Sources = Vec<(String, Arc<dyn ScanSource>)>;

/// Each join's decision, and each scan's source (scans with OPTIONS
/// renamed to their own entries).
fn resolve(
    sql: &str,
    provider: &dyn CatalogProvider,
    config: &Config,
) -> Result<(JoinPlan, Sources), PrepareError> {
    let mut joins = plan_joins(sql, provider.catalog(), config)?;
    let mut sources: Sources = Vec::new();
    for scan in joins.scan_options.clone() {
        let spec = ScanSpec {
            table: &scan.table,
            options: &scan.options,
            position: Some(scan.position),
        };
        let source = provider.scan_source(&spec).map_err(PrepareError::Source)?;
        let key = entry_name(&scan.table, &scan.options);
        joins
            .rename_scan(&scan.path, &key)
            .map_err(|e| PrepareError::Plan(e.into()))?;
        if !sources.iter().any(|(k, _)| *k == key) {
            sources.push((key, source));
        }
    }
    for table in joins.scanned_tables() {
        if sources.iter().any(|(k, _)| *k == table) {
            continue;
        }
        let spec = ScanSpec {
            table: &table,
            options: &[],
            position: None,
        };
        let source = provider.scan_source(&spec).map_err(PrepareError::Source)?;
        sources.push((table, source));
    }
    Ok((joins, sources))
}

impl PreparedQuery {
    /// Whether running the plan reads files (a source that reads them).
    pub fn reads_files(&self) -> bool {
        self.sources.iter().any(|(_, s)| s.reads_files())
    }

    /// Opens every source for one run: the tables the plan's scans read.
    /// The metrics of the previous run are cleared first, and the rows a
    /// source skipped are noted on its scans.
    ///
    /// # Errors
    ///
    /// A source's error ([`ScanSource::open`]).
    pub fn open(&self, batch_size: usize) -> exec::Result<Tables> {
        clear_metrics(&self.physical);
        self.physical.budget.reset_peak();
        let mut tables = Tables::with_capacity(self.sources.len());
        let mut skipped: HashMap<&str, u64> = HashMap::new();
        for (key, source) in &self.sources {
            let opened = source.open(batch_size, &self.physical.budget)?;
            if let Some(n) = opened.skipped_rows {
                skipped.insert(key.as_str(), n);
            }
            tables.insert(key.clone(), opened.data);
        }
        if !skipped.is_empty() {
            note_skipped(&self.physical, &skipped);
        }
        Ok(tables)
    }

    /// Runs the plan once on `pool`, pushing every result batch into
    /// `sink` (see [`exec::execute`]).
    ///
    /// # Errors
    ///
    /// A source's error, then the first error of any operator.
    pub fn execute(
        &self,
        pool: &rayon::ThreadPool,
        batch_size: usize,
        sink: &Sink<'_>,
    ) -> exec::Result<()> {
        let tables = self.open(batch_size)?;
        exec::execute(&self.physical, &tables, pool, batch_size, sink)
    }

    /// Runs the plan once and collects its batches in arrival order.
    ///
    /// # Errors
    ///
    /// As [`PreparedQuery::execute`].
    pub fn collect(
        &self,
        pool: &rayon::ThreadPool,
        batch_size: usize,
    ) -> exec::Result<Vec<arrow_array::RecordBatch>> {
        let tables = self.open(batch_size)?;
        exec::collect(&self.physical, &tables, pool, batch_size)
    }
}

/// Sets the skipped-row count of the scans of `skipped`'s entries.
fn note_skipped(plan: &PhysicalPlan, skipped: &HashMap<&str, u64>) {
    if let Operator::Scan { table, .. } = &plan.operator
        && let Some(&n) = skipped.get(table.as_str())
    {
        let _ = plan.metrics.skipped_rows.set(n);
    }
    for child in plan.children() {
        note_skipped(child, skipped);
    }
}

/// Zeroes the counters of every operator, so that a run's EXPLAIN ANALYZE
/// shows that run. (The once-set notes, such as a scan's row groups or a
/// join's adapted build side, stay from the first run: the same plan on
/// the same data sets them to the same values.)
fn clear_metrics(plan: &PhysicalPlan) {
    use std::sync::atomic::Ordering::Relaxed;
    let m = &plan.metrics;
    let s = &m.spill;
    for counter in [
        &m.rows,
        &m.batches,
        &m.bytes,
        &m.nanos,
        &s.files,
        &s.bytes,
        &s.partitions,
        &s.depth,
        &s.blocks,
    ] {
        counter.store(0, Relaxed);
    }
    m.memory.reset_peak();
    for child in plan.children() {
        clear_metrics(child);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::Ordering;

    use arrow_array::{Int64Array, RecordBatch};

    use super::*;

    /// Rows in memory, counting how often they are opened.
    #[derive(Debug)]
    struct Counted {
        data: Arc<TableData>,
        opened: Mutex<usize>,
    }

    impl ScanSource for Counted {
        fn schema(&self) -> SchemaRef {
            Arc::clone(&self.data.schema)
        }

        fn open(&self, _: usize, _: &MemoryBudget) -> exec::Result<OpenedScan> {
            *self.opened.lock().unwrap() += 1;
            Ok(OpenedScan {
                data: Arc::clone(&self.data),
                skipped_rows: Some(3),
            })
        }

        fn reads_files(&self) -> bool {
            true
        }
    }

    /// A scan the provider was asked about: its table and options.
    type Asked = (String, Vec<(String, String)>);

    /// One table `t` (`v` = 1, 2, 3); records every scan it is asked about.
    struct Provider {
        catalog: Catalog,
        source: Arc<Counted>,
        asked: Mutex<Vec<Asked>>,
    }

    fn provider() -> Provider {
        let batch =
            RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])
                .unwrap();
        let mut catalog = Catalog::new();
        catalog.register_table("t", batch.schema());
        Provider {
            catalog,
            source: Arc::new(Counted {
                data: Arc::new(TableData::new(batch.schema(), vec![batch])),
                opened: Mutex::new(0),
            }),
            asked: Mutex::new(Vec::new()),
        }
    }

    impl CatalogProvider for Provider {
        fn catalog(&self) -> &Catalog {
            &self.catalog
        }

        fn scan_source(&self, scan: &ScanSpec<'_>) -> Result<Arc<dyn ScanSource>, BoxError> {
            self.asked
                .lock()
                .unwrap()
                .push((scan.table.to_string(), scan.options.to_vec()));
            if scan.options.iter().any(|(k, _)| k == "bad") {
                return Err("the key `bad` is not an option".into());
            }
            Ok(Arc::clone(&self.source) as Arc<dyn ScanSource>)
        }
    }

    fn rows(batches: &[RecordBatch]) -> usize {
        batches.iter().map(RecordBatch::num_rows).sum()
    }

    #[test]
    fn each_entry_is_asked_once_and_a_scan_with_options_gets_its_own() {
        let p = provider();
        let q = plan_statement(
            "SELECT * FROM t /*+ OPTIONS('k'='v') */ UNION ALL SELECT * FROM t \
             UNION ALL SELECT * FROM t",
            &p,
            &Config::default(),
        )
        .unwrap();
        let names: Vec<&str> = q.sources.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["t /*+ OPTIONS('k'='v') */", "t"]);
        let asked = p.asked.lock().unwrap();
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert_eq!(asked[0].1, [("k".to_string(), "v".to_string())]);
        assert!(asked[1].1.is_empty());
        assert!(q.reads_files());
    }

    #[test]
    fn a_providers_refusal_is_its_own_error() {
        let p = provider();
        let err = plan_statement(
            "SELECT * FROM t /*+ OPTIONS('bad'='1') */",
            &p,
            &Config::default(),
        )
        .unwrap_err();
        assert!(matches!(&err, PrepareError::Source(_)), "{err:?}");
        assert_eq!(err.to_string(), "the key `bad` is not an option");
        assert!(
            check_statement(
                "SELECT * FROM t /*+ OPTIONS('bad'='1') */",
                &p,
                &Config::default()
            )
            .is_err()
        );
        assert!(check_statement("SELECT * FROM t", &p, &Config::default()).is_ok());
        // planning opens nothing
        assert_eq!(*p.source.opened.lock().unwrap(), 0);
    }

    /// A plan runs again without planning: its sources are opened once per
    /// run, its counters show the last run, and skipped rows are noted.
    #[test]
    fn a_prepared_query_runs_twice_with_one_runs_figures() {
        let p = provider();
        let q = plan_statement("SELECT v FROM t WHERE v > 1", &p, &Config::default()).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for run in 1..=2 {
            assert_eq!(rows(&q.collect(&pool, 2).unwrap()), 2);
            assert_eq!(*p.source.opened.lock().unwrap(), run);
            assert_eq!(q.physical.metrics.rows.load(Ordering::Relaxed), 2);
        }
        let text = q.physical.to_text(true);
        assert!(text.contains("skipped_rows=3"), "{text}");
        assert_eq!(p.asked.lock().unwrap().len(), 1);
    }
}
