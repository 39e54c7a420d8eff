//! One probe batch of a lookup join: its distinct keys (what one request
//! asks for) and, once the rows are fetched, the pairs of probe and fetched
//! rows in probe order, the residual tested on them, and the LEFT join's
//! padding.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType, SchemaRef};
use hashbrown::HashTable;

use super::LookupJoin;
use crate::exec::{ExecError, Result};
use crate::lookup::{EncodedRows, LookupCache, LookupRequest};

/// No key: the probe row's key holds a NULL.
const NO_KEY: u32 = u32::MAX;

/// A probe batch and its keys.
#[derive(Debug)]
pub(super) struct Probe {
    /// The batch.
    pub batch: RecordBatch,
    /// Per probe row: the index of its key among the distinct keys, or
    /// [`NO_KEY`].
    row_key: Vec<u32>,
    /// The distinct key tuples, one array per probe key column.
    distinct: Vec<ArrayRef>,
    /// The encoded distinct keys, to find a fetched row's key.
    index: KeyIndex,
}

/// Encoded key tuples and their numbers: every encoded key in one buffer
/// (no allocation per key), found through a table of key numbers.
#[derive(Debug)]
struct KeyIndex {
    converter: RowConverter,
    hasher: ahash::RandomState,
    /// Key numbers, hashed by their encoded key.
    table: HashTable<u32>,
    /// The encoded keys one after another (the cache's keys).
    bytes: Vec<u8>,
    /// Where each numbered key starts in `bytes` (and, one past the last,
    /// where the buffer ends).
    starts: Vec<usize>,
}

impl KeyIndex {
    fn new(types: &[DataType]) -> Result<Self> {
        let converter =
            RowConverter::new(types.iter().map(|t| SortField::new(t.clone())).collect())
                .map_err(|e| ExecError::arrow("a lookup join's keys", e))?;
        Ok(KeyIndex {
            converter,
            hasher: ahash::RandomState::new(),
            table: HashTable::new(),
            bytes: Vec::new(),
            starts: vec![0],
        })
    }

    /// Key `n`, encoded.
    fn encoded(&self, n: u32) -> &[u8] {
        &self.bytes[self.starts[n as usize]..self.starts[n as usize + 1]]
    }

    /// The key number of each row of `columns` (`NO_KEY` for a key not
    /// among the numbered ones, or holding a NULL); with `add`, unknown
    /// keys without NULLs are numbered, and their first rows returned.
    fn number(&mut self, columns: &[ArrayRef], add: bool) -> Result<(Vec<u32>, Vec<u32>)> {
        let rows = columns.first().map_or(0, |c| c.len());
        let encoded = self
            .converter
            .convert_columns(columns)
            .map_err(|e| ExecError::arrow("a lookup join's keys", e))?;
        let nulls = columns.iter().any(|c| c.null_count() > 0);
        if add {
            let (bytes, starts, hasher) = (&self.bytes, &self.starts, &self.hasher);
            self.table.reserve(rows, |&m| {
                hasher.hash_one(&bytes[starts[m as usize]..starts[m as usize + 1]])
            });
        }
        let mut out = Vec::with_capacity(rows);
        let mut firsts = Vec::new();
        for r in 0..rows {
            if nulls && columns.iter().any(|c| c.is_null(r)) {
                out.push(NO_KEY);
                continue;
            }
            let key = encoded.row(r);
            let key = key.as_ref();
            let hash = self.hasher.hash_one(key);
            let (bytes, starts) = (&self.bytes, &self.starts);
            let same = |&n: &u32| &bytes[starts[n as usize]..starts[n as usize + 1]] == key;
            let n = match self.table.find(hash, same) {
                Some(&n) => n,
                None if add => {
                    let n = (self.starts.len() - 1) as u32;
                    self.bytes.extend_from_slice(key);
                    self.starts.push(self.bytes.len());
                    let (bytes, starts, hasher) = (&self.bytes, &self.starts, &self.hasher);
                    self.table.insert_unique(hash, n, |&m| {
                        hasher.hash_one(&bytes[starts[m as usize]..starts[m as usize + 1]])
                    });
                    firsts.push(r as u32);
                    n
                }
                None => NO_KEY,
            };
            out.push(n);
        }
        Ok((out, firsts))
    }
}

/// The converter of the columns a join fetches to arrow-row's encoding
/// (its lookup cache's form).
fn fetch_converter(join: &LookupJoin) -> Result<RowConverter> {
    RowConverter::new(
        join.fetch_types
            .iter()
            .map(|t| SortField::new(t.clone()))
            .collect(),
    )
    .map_err(|e| ExecError::arrow("a lookup join's fetched columns", e))
}

fn take(columns: &[ArrayRef], rows: &UInt32Array, what: &str) -> Result<Vec<ArrayRef>> {
    columns
        .iter()
        .map(|c| arrow_select::take::take(c, rows, None).map_err(|e| ExecError::arrow(what, e)))
        .collect()
}

impl Probe {
    /// The keys of `batch`: its probe key expressions evaluated, each
    /// tuple numbered.
    pub(super) fn new(join: &LookupJoin, batch: RecordBatch) -> Result<Probe> {
        let keys = join
            .probe_keys
            .iter()
            .map(|k| k.evaluate(&batch))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let types: Vec<DataType> = keys.iter().map(|k| k.data_type().clone()).collect();
        let mut index = KeyIndex::new(&types)?;
        let (row_key, firsts) = index.number(&keys, true)?;
        let distinct = take(
            &keys,
            &UInt32Array::from(firsts),
            "a lookup join's distinct keys",
        )?;
        Ok(Probe {
            batch,
            row_key,
            distinct,
            index,
        })
    }

    /// The first key asked for, as text (for messages): `(7)`, `(7, 'US')`.
    pub(super) fn first_key_text(&self) -> String {
        if self.key_count() == 0 {
            return "(none)".into();
        }
        let values: Vec<String> = self
            .distinct
            .iter()
            .map(|c| arrow_cast::display::array_value_to_string(c, 0).unwrap_or_default())
            .collect();
        format!("({})", values.join(", "))
    }

    /// How many distinct keys the batch has (without NULLs).
    pub(super) fn key_count(&self) -> usize {
        self.distinct.first().map_or(0, |d| d.len())
    }

    /// The request for the keys numbered `keys` (all of them: `None`),
    /// with the join's constant key columns.
    pub(super) fn request(&self, join: &LookupJoin, keys: Option<&[u32]>) -> Result<LookupRequest> {
        let mut columns = match keys {
            None => self.distinct.clone(),
            Some(k) => take(
                &self.distinct,
                &UInt32Array::from(k.to_vec()),
                "a lookup join's retried keys",
            )?,
        };
        let n = columns.first().map_or(0, |c| c.len());
        for c in &join.constants {
            columns.push(
                c.to_array_of_size(n)
                    .map_err(|e| ExecError::Unsupported(format!("a lookup key constant: {e}")))?,
            );
        }
        Ok(LookupRequest {
            key_columns: join.key_columns.clone(),
            keys: columns,
            columns: join.fetch.clone(),
        })
    }

    /// The key number of each row of `fetched` (its first columns are the
    /// probe key columns).
    fn fetched_keys(&mut self, join: &LookupJoin, fetched: &RecordBatch) -> Result<Vec<u32>> {
        let n = join.probe_keys.len();
        let columns: Vec<ArrayRef> = fetched.columns()[..n].to_vec();
        Ok(self.index.number(&columns, false)?.0)
    }

    /// The keys among `among` (numbers) that no row of `fetched` has.
    pub(super) fn missing(
        &mut self,
        join: &LookupJoin,
        fetched: &[RecordBatch],
        among: &[u32],
    ) -> Result<Vec<u32>> {
        let mut found = vec![false; self.key_count()];
        for f in fetched {
            for k in self.fetched_keys(join, f)? {
                if k != NO_KEY {
                    found[k as usize] = true;
                }
            }
        }
        Ok(among
            .iter()
            .copied()
            .filter(|&k| !found[k as usize])
            .collect())
    }

    /// Every key's number.
    pub(super) fn all_keys(&self) -> Vec<u32> {
        (0..self.key_count() as u32).collect()
    }

    /// The cache's key of key `k`: the join's tag, then the encoded key,
    /// written over `key`.
    fn cache_key(&self, tag: &[u8], k: u32, key: &mut Vec<u8>) {
        key.clear();
        key.extend_from_slice(tag);
        key.extend_from_slice(self.index.encoded(k));
    }

    /// The rows `cache` holds for this batch's keys, as one batch of
    /// `schema` (none when no held key has a row), how many keys it held,
    /// and the keys it does not hold.
    pub(super) fn cached(
        &self,
        join: &LookupJoin,
        schema: &SchemaRef,
        tag: &[u8],
        cache: &LookupCache,
    ) -> Result<(Vec<RecordBatch>, usize, Vec<u32>)> {
        let mut hits = Vec::new();
        let mut misses = Vec::new();
        let mut key = Vec::new();
        let tag = cache.short_tag(tag);
        let now = cache.now();
        for k in 0..self.key_count() as u32 {
            self.cache_key(&tag, k, &mut key);
            match cache.get(&key, now) {
                Some(entry) => hits.push(entry),
                None => misses.push(k),
            }
        }
        let rows: usize = hits.iter().map(|e| e.rows.len()).sum();
        if rows == 0 {
            return Ok((Vec::new(), hits.len(), misses));
        }
        let converter = fetch_converter(join)?;
        let parser = converter.parser();
        let columns = converter
            .convert_rows(
                hits.iter()
                    .flat_map(|e| e.rows.rows())
                    .map(|r| parser.parse(r)),
            )
            .map_err(|e| ExecError::arrow("a lookup cache's rows", e))?;
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| ExecError::arrow("a lookup cache's rows", e))?;
        Ok((vec![batch], hits.len(), misses))
    }

    /// Puts the rows of `fetched` of each key of `asked` into `cache` (a
    /// key without rows as an empty entry).
    pub(super) fn remember(
        &mut self,
        join: &LookupJoin,
        tag: &[u8],
        cache: &LookupCache,
        fetched: &RecordBatch,
        asked: &[u32],
    ) -> Result<()> {
        let keys = self.fetched_keys(join, fetched)?;
        let encoded = fetch_converter(join)?
            .convert_columns(fetched.columns())
            .map_err(|e| ExecError::arrow("a lookup cache", e))?;
        let mut per_key = vec![EncodedRows::default(); self.key_count()];
        for (r, &k) in keys.iter().enumerate() {
            if k != NO_KEY {
                per_key[k as usize].push(encoded.row(r).as_ref());
            }
        }
        let mut key = Vec::new();
        let tag = cache.short_tag(tag);
        for &k in asked {
            self.cache_key(&tag, k, &mut key);
            cache.put(&key, std::mem::take(&mut per_key[k as usize]));
        }
        Ok(())
    }

    /// The join's output for this batch given the fetched rows, in probe
    /// order, each output batch at most `size` rows.
    pub(super) fn join(
        mut self,
        join: &LookupJoin,
        fetched: &RecordBatch,
        schema: &SchemaRef,
        size: usize,
        out: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        check_fetched(join, fetched)?;
        let keys = self.fetched_keys(join, fetched)?;
        // fetched rows grouped by key: counting sort
        let mut start = vec![0u32; self.key_count() + 1];
        for &k in &keys {
            if k != NO_KEY {
                start[k as usize + 1] += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut by_key = vec![0u32; start.last().copied().unwrap_or(0) as usize];
        for (row, &k) in keys.iter().enumerate() {
            if k != NO_KEY {
                by_key[next[k as usize] as usize] = row as u32;
                next[k as usize] += 1;
            }
        }
        // candidate pairs in probe order
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for (row, &k) in self.row_key.iter().enumerate() {
            if k == NO_KEY {
                continue;
            }
            let (a, b) = (start[k as usize] as usize, start[k as usize + 1] as usize);
            for &f in &by_key[a..b] {
                left.push(row as u32);
                right.push(f);
            }
        }
        let (left, right) = match &join.residual {
            Some(residual) => self.filtered(residual, fetched, left, right)?,
            None => (left, right),
        };
        let (left, right) = if join.outer {
            pad(self.batch.num_rows(), &left, &right)
        } else {
            (left, right.into_iter().map(Some).collect())
        };
        let input: Vec<ArrayRef> = join
            .keep
            .iter()
            .map(|&c| Arc::clone(self.batch.column(c)))
            .collect();
        let columns: Vec<ArrayRef> = join
            .output_fetched
            .iter()
            .map(|&c| Arc::clone(fetched.column(c)))
            .collect();
        for at in (0..left.len()).step_by(size.max(1)) {
            let end = (at + size).min(left.len());
            let l = UInt32Array::from(left[at..end].to_vec());
            let r = UInt32Array::from(right[at..end].to_vec());
            let mut cols = take(&input, &l, "a lookup join's probe rows")?;
            cols.extend(take(&columns, &r, "a lookup join's fetched rows")?);
            let batch = RecordBatch::try_new_with_options(
                Arc::clone(schema),
                cols,
                &RecordBatchOptions::new().with_row_count(Some(end - at)),
            )
            .map_err(|e| ExecError::arrow("a lookup join's output", e))?;
            out(batch)?;
        }
        Ok(())
    }

    /// The candidate pairs that pass the residual.
    fn filtered(
        &self,
        residual: &crate::expr::PhysicalExpr,
        fetched: &RecordBatch,
        left: Vec<u32>,
        right: Vec<u32>,
    ) -> Result<(Vec<u32>, Vec<u32>)> {
        let l = UInt32Array::from(left);
        let r = UInt32Array::from(right);
        let mut cols = take(self.batch.columns(), &l, "a lookup join's pairs")?;
        cols.extend(take(fetched.columns(), &r, "a lookup join's pairs")?);
        let fields: Vec<arrow_schema::Field> = self
            .batch
            .schema()
            .fields()
            .iter()
            .chain(fetched.schema().fields().iter())
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let pairs = RecordBatch::try_new_with_options(
            Arc::new(arrow_schema::Schema::new(fields)),
            cols,
            &RecordBatchOptions::new().with_row_count(Some(l.len())),
        )
        .map_err(|e| ExecError::arrow("a lookup join's pairs", e))?;
        let pass = residual.evaluate(&pairs)?;
        let pass = pass
            .as_any()
            .downcast_ref::<BooleanArray>()
            .ok_or_else(|| {
                ExecError::Unsupported(format!(
                    "a lookup join's condition `{residual}` is not a boolean"
                ))
            })?;
        let keep = |i: usize| pass.is_valid(i) && pass.value(i);
        let left = (0..l.len()).filter(|&i| keep(i)).map(|i| l.value(i));
        let right = (0..r.len()).filter(|&i| keep(i)).map(|i| r.value(i));
        Ok((left.collect(), right.collect()))
    }
}

/// A LEFT join's pairs: every probe row of `rows` kept, with NULLs where it
/// has no pair (`left` ascends).
fn pad(rows: usize, left: &[u32], right: &[u32]) -> (Vec<u32>, Vec<Option<u32>>) {
    let mut l = Vec::with_capacity(left.len().max(rows));
    let mut r = Vec::with_capacity(left.len().max(rows));
    let mut at = 0;
    for row in 0..rows as u32 {
        let before = l.len();
        while at < left.len() && left[at] == row {
            l.push(row);
            r.push(Some(right[at]));
            at += 1;
        }
        if l.len() == before {
            l.push(row);
            r.push(None);
        }
    }
    (l, r)
}

/// Whether the source returned the columns asked for, of their types.
fn check_fetched(join: &LookupJoin, fetched: &RecordBatch) -> Result<()> {
    let want = &join.fetch_types;
    let got: Vec<&DataType> = fetched
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.data_type())
        .collect();
    if got.len() != want.len() || got.iter().zip(want).any(|(g, w)| *g != w) {
        return Err(ExecError::Source(
            format!(
                "lookup source {} returned columns of types [{}] where the table declares \
                 [{}]: the source must return the columns a request asks for, of the table's \
                 types",
                join.source,
                got.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                want.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
            .into(),
        ));
    }
    Ok(())
}
