//! Table statistics in a session: `ANALYZE TABLE t` and
//! [`Session::analyze_table`] read a table once and keep its row count and
//! every column's null count, minimum, maximum and distinct count in the
//! catalog, where the planner's estimates read them
//! (`tenon_planner::statistics`); [`Session::table_stats`] shows what is
//! known.
//!
//! Tables held in memory get these statistics when they are registered,
//! Parquet files what their footers say (no distinct counts, which writers
//! rarely store); other files only their size until they are analyzed.

use arrow_array::RecordBatch;
use tenon_planner::sql::TableStats;
use tenon_planner::statistics::ColumnStatsBuilder;

use super::Session;
use crate::error::{Cause, Error};

impl Session {
    /// Reads table `name` once (every column, as `SELECT *` would) and
    /// keeps its row count and column statistics for the planner, replacing
    /// what was known; returns what it did (`analyzed t: 1,000 rows, 3
    /// columns`). The same as the statement `ANALYZE TABLE name`.
    ///
    /// # Errors
    ///
    /// [`Error::Plan`] for a name that is not a table (a view, a lookup
    /// table, whose rows are fetched by key, or no table at all); the
    /// errors of reading the table (`Error::Io`, `Error::Resource`).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Int64Array, RecordBatch};
    /// use tenon::{Config, Session};
    ///
    /// let mut session = Session::new(Config::default())?;
    /// let batch = RecordBatch::try_from_iter([(
    ///     "k",
    ///     Arc::new(Int64Array::from_iter_values((0..1000).map(|i| i % 10))) as _,
    /// )])
    /// .expect("one column");
    /// session.register_batch("t", batch)?;
    /// assert_eq!(session.analyze_table("t")?, "analyzed t: 1000 rows, 1 column");
    /// let stats = session.table_stats("t").expect("a table");
    /// assert_eq!(stats.columns[0].distinct_count, Some(10));
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn analyze_table(&self, name: &str) -> Result<String, Error> {
        let (schema, lookup) = {
            let registry = self.read();
            let Some(table) = registry.catalog.table(name) else {
                let what = if registry.catalog.view(name).is_some() {
                    format!("`{name}` is a view; analyze the tables it reads")
                } else {
                    format!(
                        "no table `{name}` (tables: {})",
                        registry.catalog.table_names().join(", ")
                    )
                };
                return Err(Error::Plan(Cause::from(format!("ANALYZE: {what}"))));
            };
            (table.schema.clone(), table.lookup.clone())
        };
        if let Some(source) = lookup {
            return Err(Error::Plan(Cause::from(format!(
                "ANALYZE: `{name}` is a lookup table ({source}): its rows are fetched by key \
                 as queries need them, and never read whole"
            ))));
        }
        let quoted = name.replace('"', "\"\"");
        let query = self.prepare(&format!("SELECT * FROM \"{quoted}\""))?;
        let mut builders: Vec<ColumnStatsBuilder> = schema
            .fields()
            .iter()
            .map(|f| ColumnStatsBuilder::new(f.data_type()))
            .collect();
        let mut rows = 0u64;
        for batch in query.stream()? {
            let batch: RecordBatch = batch?;
            rows += batch.num_rows() as u64;
            // On this thread: the session's workers are running the scan,
            // and may wait for this loop to take their batches.
            for (b, c) in builders.iter_mut().zip(batch.columns()) {
                b.update(c);
            }
        }
        let columns = builders.into_iter().map(|b| b.finish()).collect::<Vec<_>>();
        let count = columns.len();
        self.write().catalog.set_column_stats(name, rows, columns);
        Ok(format!(
            "analyzed {name}: {rows} rows, {count} column{}",
            if count == 1 { "" } else { "s" }
        ))
    }

    /// What the planner knows of table `name`: rows, bytes, and per column
    /// (in schema order, empty when nothing is known) null count, minimum,
    /// maximum and distinct count. `None` when there is no such table.
    pub fn table_stats(&self, name: &str) -> Option<TableStats> {
        self.read().catalog.table(name).map(|t| t.stats.clone())
    }
}
