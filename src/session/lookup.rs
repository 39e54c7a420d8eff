//! Registering an embedder's own lookup source (an HTTP service, a
//! key-value store): the table a lookup join fetches rows from by key.

use std::sync::Arc;

use tenon_planner::lookup::{CacheMode, Clock, LookupCache, LookupSource, SystemClock};

use arrow_schema::SchemaRef;
use tenon_planner::exec::TableData;
use tenon_planner::sql::TableStats;

use super::Session;
use super::sources::Registry;
use crate::error::Error;

impl Session {
    /// Registers `source` as lookup table `name` (replacing a table or
    /// view of that name): joined `FOR SYSTEM_TIME AS OF` a PROCTIME()
    /// column, each probe batch's distinct keys are fetched from it in one
    /// request; a regular join or `SELECT` reads it whole through
    /// [`LookupSource::scan`]. `rows`, when known, is its row count for
    /// the planner's estimates. SQL names fold to lower case unless
    /// quoted, so register lower-case names to use them unquoted.
    ///
    /// # Examples
    ///
    /// A source that answers every key `k` with one row `(k, k * k)`:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{cast::AsArray, types::Int64Type, Int64Array, RecordBatch};
    /// use arrow_schema::{DataType, Field, Schema, SchemaRef};
    /// use tenon::Session;
    /// use tenon_planner::config::Config;
    /// use tenon_planner::lookup::{LookupError, LookupRequest, LookupSource};
    ///
    /// #[derive(Debug)]
    /// struct Squares(SchemaRef);
    ///
    /// impl LookupSource for Squares {
    ///     fn schema(&self) -> SchemaRef { self.0.clone() }
    ///     fn describe(&self) -> String { "squares".into() }
    ///     fn can_look_up_by(&self, column: usize) -> bool { column == 0 }
    ///     fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
    ///         let keys = request.keys[0].as_primitive::<Int64Type>();
    ///         let squares: Int64Array = keys.iter().map(|k| k.map(|k| k * k)).collect();
    ///         let all = [request.keys[0].clone(), Arc::new(squares) as _];
    ///         let columns = request.columns.iter().map(|&c| all[c].clone()).collect();
    ///         Ok(RecordBatch::try_new(request.schema(&self.0)?, columns)?)
    ///     }
    /// }
    ///
    /// let session = Session::new(Config::default())?;
    /// let schema = Arc::new(Schema::new(vec![
    ///     Field::new("n", DataType::Int64, false),
    ///     Field::new("square", DataType::Int64, false),
    /// ]));
    /// session.register_lookup_table("squares", Arc::new(Squares(schema)), None)?;
    /// let dir = std::env::temp_dir().join(format!("tenon-doc-squares-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("t.csv"), "x\n3\n4\n")?;
    /// session.execute(&format!(
    ///     "CREATE TABLE t (x BIGINT, p AS PROCTIME()) WITH ('connector' = 'filesystem', \
    ///      'path' = '{}', 'format' = 'csv')",
    ///     dir.join("t.csv").display()
    /// ))?;
    /// let out = session.collect(
    ///     "SELECT t.x, s.square FROM t JOIN squares FOR SYSTEM_TIME AS OF t.p AS s \
    ///      ON t.x = s.n ORDER BY t.x",
    /// )?;
    /// let squares = out[0].column(1).as_primitive::<Int64Type>();
    /// assert_eq!(squares.values().to_vec(), vec![9, 16]);
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Ddl`] when the source's schema has no column.
    pub fn register_lookup_table(
        &self,
        name: &str,
        source: Arc<dyn LookupSource>,
        rows: Option<u64>,
    ) -> Result<(), Error> {
        self.register_lookup_table_cached(
            name,
            source,
            rows,
            CacheMode::None,
            Arc::new(SystemClock::default()),
        )
    }

    /// [`Session::register_lookup_table`] with a cache of `mode` (module
    /// [`tenon_planner::lookup`]'s `CacheMode`), which reads the time from
    /// `clock` (a [`tenon_planner::lookup::ManualClock`] in tests).
    ///
    /// # Errors
    ///
    /// As [`Session::register_lookup_table`].
    pub fn register_lookup_table_cached(
        &self,
        name: &str,
        source: Arc<dyn LookupSource>,
        rows: Option<u64>,
        mode: CacheMode,
        clock: Arc<dyn Clock>,
    ) -> Result<(), Error> {
        let schema = source.schema();
        if schema.fields().is_empty() {
            return Err(Error::Ddl(format!(
                "cannot register lookup table `{name}`: its source ({}) has no column",
                source.describe()
            )));
        }
        let table = crate::lookup::LookupTable {
            describe: source.describe(),
            lookup: source,
            rows,
            cache: LookupCache::new(mode, clock),
        };
        self.write().insert_lookup(name, &schema, table);
        Ok(())
    }
}

impl Registry {
    /// Registers a lookup table (replacing a table or view of that name):
    /// scanned through its source, looked up by key in lookup joins.
    pub(crate) fn insert_lookup(
        &mut self,
        name: &str,
        schema: &SchemaRef,
        table: crate::lookup::LookupTable,
    ) {
        self.drop_versions_of(name);
        self.catalog.drop_view(name);
        let stats = TableStats {
            row_count: table.rows,
            ..TableStats::default()
        };
        self.catalog
            .register_table_with_stats(name, Arc::clone(schema), stats);
        let lookup_only = if table.cache.is_some() {
            Some(
                "the lookup table has a cache, which keeps the rows it fetched for the \
                 session's later queries (a scan would read the table again)"
                    .to_string(),
            )
        } else if !table.lookup.can_scan() {
            Some(format!("{} cannot be read whole", table.describe))
        } else {
            None
        };
        self.catalog.set_lookup(name, table.describe, lookup_only);
        let scan = tenon_planner::lookup::LookupScan(Arc::clone(&table.lookup));
        let mut data = TableData::from_source(Arc::clone(schema), Arc::new(scan));
        data.lookup = Some(table.lookup);
        data.lookup_cache = table.cache;
        self.tables.insert(name.to_string(), Arc::new(data));
        self.files.remove(name);
    }
}
