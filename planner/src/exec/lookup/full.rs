//! Lookups answered by a FULL cache: the whole table, read once through
//! the source's scan (and again after the reload interval), indexed by the
//! join's key columns the first time a join asks by them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::DataType;

use super::matching::Probe;
use super::{LookupJoin, LookupMetrics, fetch_schema};
use crate::exec::source::ScanRequest;
use crate::exec::{ExecError, Result};
use crate::lookup::{LookupCache, LookupSource};
use tenon_kernels::MemoryBudget;

fn converter(types: &[DataType]) -> Result<RowConverter> {
    RowConverter::new(types.iter().map(|t| SortField::new(t.clone())).collect())
        .map_err(|e| ExecError::arrow("a lookup cache's keys", e))
}

/// The rows of `probe`'s keys, from the cached table.
pub(super) fn lookup(
    join: &LookupJoin,
    source: &dyn LookupSource,
    probe: &Probe,
    cache: &LookupCache,
    budget: &MemoryBudget,
) -> Result<RecordBatch> {
    let table = cache.full_table(|| read_all(join, source, budget))?;
    let types: Vec<DataType> = join
        .key_columns
        .iter()
        .map(|&c| table.batch.schema().field(c).data_type().clone())
        .collect();
    let index = {
        let mut indexes = table
            .indexes
            .lock()
            .map_err(|_| ExecError::Unsupported("internal: a lookup cache was poisoned".into()))?;
        match indexes.get(&join.key_columns) {
            Some(i) => Arc::clone(i),
            None => {
                let columns: Vec<ArrayRef> = join
                    .key_columns
                    .iter()
                    .map(|&c| Arc::clone(table.batch.column(c)))
                    .collect();
                let rows = converter(&types)?
                    .convert_columns(&columns)
                    .map_err(|e| ExecError::arrow("a lookup cache's keys", e))?;
                let mut map: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
                for r in 0..table.batch.num_rows() {
                    if columns.iter().any(|c| c.is_null(r)) {
                        continue;
                    }
                    map.entry(rows.row(r).as_ref().to_vec())
                        .or_default()
                        .push(r as u32);
                }
                let map = Arc::new(map);
                indexes.insert(join.key_columns.clone(), Arc::clone(&map));
                map
            }
        }
    };
    let request = probe.request(join, None)?;
    let keys = converter(&types)?
        .convert_columns(&request.keys)
        .map_err(|e| ExecError::arrow("a lookup cache's keys", e))?;
    let mut picked = Vec::new();
    let (mut hits, mut misses) = (0u64, 0u64);
    for k in 0..request.len() {
        match index.get(keys.row(k).as_ref()) {
            Some(rows) => {
                hits += 1;
                picked.extend_from_slice(rows);
            }
            None => misses += 1,
        }
    }
    // every key is answered by the cache: a key not in the table has no row
    LookupMetrics::add(&join.metrics.cache_hits, hits + misses);
    let picked = UInt32Array::from(picked);
    let columns = join
        .fetch
        .iter()
        .map(|&c| {
            arrow_select::take::take(table.batch.column(c), &picked, None)
                .map_err(|e| ExecError::arrow("a lookup cache's rows", e))
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(fetch_schema(join, source)?, columns)
        .map_err(|e| ExecError::arrow("a lookup cache's rows", e))
}

/// Every row and column of the table, through its scan.
fn read_all(
    join: &LookupJoin,
    source: &dyn LookupSource,
    budget: &MemoryBudget,
) -> Result<RecordBatch> {
    let schema = source.schema();
    let columns: Vec<usize> = (0..schema.fields().len()).collect();
    let batches = Mutex::new(Vec::new());
    let request = ScanRequest {
        columns: &columns,
        filter: None,
        predicate: None,
        batch_size: 8192,
        budget,
    };
    source.scan(&request, &|b: RecordBatch| {
        batches
            .lock()
            .map_err(|_| ExecError::Unsupported("internal: poisoned".into()))?
            .push(b);
        Ok(())
    })?;
    LookupMetrics::add(&join.metrics.requests, 1);
    let batches = batches
        .into_inner()
        .map_err(|_| ExecError::Unsupported("internal: poisoned".into()))?;
    let fields: Vec<arrow_schema::Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    let schema = Arc::new(arrow_schema::Schema::new(fields));
    let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    LookupMetrics::add(&join.metrics.rows, rows);
    arrow_select::concat::concat_batches(&schema, &batches)
        .map_err(|e| ExecError::arrow("a lookup cache's table", e))
}
