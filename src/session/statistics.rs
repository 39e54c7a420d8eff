//! Table statistics in a session: `ANALYZE TABLE t` and
//! [`Session::analyze_table`] read a table once and keep its row count and
//! every column's null count, minimum, maximum and distinct count in the
//! catalog, where the planner's estimates read them
//! (`tenon_planner::statistics`); [`Session::table_stats`] shows what is
//! known.
//!
//! Tables held in memory get these statistics when they are registered,
//! Parquet files what their footers say (no distinct counts, which writers
//! rarely store), other files their size; files read lazily learn the
//! rest from the first query that reads them whole
//! (`super::learned_stats`), or from `ANALYZE`.

use arrow_array::RecordBatch;
use tenon_planner::exec::TableData;
use tenon_planner::sql::TableStats;
use tenon_planner::statistics::ColumnStatsBuilder;

use super::Session;
use super::held_bytes::value_bytes;
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
        // A file table's own learning pauses: this read sums up every
        // column anyway.
        let file = self.read().files.get(name).cloned();
        let stamp = file.as_ref().and_then(|f| f.stamp());
        let paused = file.as_ref().map(|f| f.learned.pause());
        let analyzed = self.analyze_rows(name, &schema);
        if let (Some(f), Some(wanted)) = (&file, paused) {
            f.learned.resume(wanted);
        }
        let (rows, columns) = analyzed?;
        let count = columns.len();
        let mut registry = self.write();
        registry.catalog.set_column_stats(name, rows, columns);
        if let (Some(f), Some(t)) = (&file, registry.catalog.table(name)) {
            f.learned.analyzed(&t.stats, stamp);
        }
        Ok(format!(
            "analyzed {name}: {rows} rows, {count} column{}",
            if count == 1 { "" } else { "s" }
        ))
    }

    /// Reads table `name` (of `schema`) whole: its row count and column
    /// statistics.
    fn analyze_rows(
        &self,
        name: &str,
        schema: &arrow_schema::SchemaRef,
    ) -> Result<(u64, Vec<tenon_planner::statistics::ColumnStats>), Error> {
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
        Ok((rows, builders.into_iter().map(|b| b.finish()).collect()))
    }

    /// What the planner knows of table `name`: rows, bytes, and per column
    /// (in schema order, empty when nothing is known) null count, minimum,
    /// maximum and distinct count. `None` when there is no such table.
    pub fn table_stats(&self, name: &str) -> Option<TableStats> {
        self.publish_learned();
        self.read().catalog.table(name).map(|t| t.stats.clone())
    }

    /// Puts what full reads of file tables learned into the catalog, when
    /// they learned anything since (`super::learned_stats`).
    pub(super) fn publish_learned(&self) {
        let pending = self.read().files.values().any(|f| f.learned.is_pending());
        if pending {
            self.write().publish_learned();
        }
    }
}

/// The statistics of rows in memory: their count, bytes per column and
/// each column's values ([`tenon_planner::statistics`]), summed up on the
/// current rayon pool (the caller's session's, inside `install`).
pub(crate) fn stats_of(data: &TableData) -> TableStats {
    let column_bytes: Vec<u64> = (0..data.schema.fields().len())
        .map(|c| data.batches.iter().map(|b| value_bytes(b.column(c))).sum())
        .collect();
    TableStats {
        row_count: Some(data.num_rows() as u64),
        byte_size: Some(column_bytes.iter().sum()),
        sorted_on: Vec::new(),
        column_bytes,
        columns: tenon_planner::statistics::compute_column_stats(&data.batches),
    }
}
