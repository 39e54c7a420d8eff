//! ORDER BY over collected batches: a full sort, or a top-k when only the
//! first `fetch` rows are wanted; [`SortExec::limit`] slices collected
//! batches to a LIMIT / OFFSET. (A plan's LIMIT runs as the streaming
//! operator of `limit.rs`, and `ORDER BY ... LIMIT` as its top-N, which
//! takes batches as they arrive and uses these sorts to trim its
//! candidates.)
//!
//! ```text
//!  input batches ──evaluate sort keys──► arrow-row keys, one `Rows` a batch
//!                                        (ASC/DESC and NULLS FIRST/LAST are
//!                                        in the bytes: compare with memcmp)
//!  full sort   positions (batch, row) in input order, stable parallel sort
//!              by key bytes
//!  top-k       per worker's share of the batches: each batch's k best rows
//!              (select_nth), kept candidates trimmed to k whenever they
//!              reach 2k; then the candidates of all workers sorted by
//!              (key, batch, row), first k kept
//!  gather      `interleave` of every column at the sorted positions,
//!              batch_size positions per output batch, in parallel
//! ```
//!
//! Both orders are *stable*: rows with equal keys keep their input order
//! (batch order, then row order), so a top-k is exactly the first k rows of
//! the full sort. Floats order as tenon compares them everywhere (see
//! [`canonical_floats`]): `-0.0` and `0.0` tie, every NaN (either sign
//! bit) is one value above `+inf`, so NaNs come last ascending and first
//! descending; the keys are canonicalized before arrow-row encodes them
//! (the output keeps the values as they were).

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::Mutex;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_row::{OwnedRow, RowConverter, Rows, SortField};
use arrow_schema::SortOptions;
use datafusion_common::DFSchema;
use datafusion_expr::SortExpr;
use rayon::prelude::*;

use crate::exec::error::{ExecError, Result};
use crate::expr::{PhysicalExpr, QueryContext};
use tenon_kernels::{MemoryBudget, MemoryReservation, batch_bytes, canonical_floats};

/// A top-k is used when `fetch` is below this fraction of the input rows
/// (`fetch * TOP_K_FRACTION < rows`); above, candidates trimmed again and
/// again cost more than one sort of everything.
const TOP_K_FRACTION: usize = 4;

/// ORDER BY with an optional `fetch` (top-k); see the module docs.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, cast::AsArray, types::Int64Type};
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion_common::DFSchema;
/// use datafusion_expr::col;
/// use tenon_planner::exec::SortExec;
/// use tenon_planner::expr::QueryContext;
///
/// let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
/// let df_schema = DFSchema::try_from_qualified_schema("t", &schema)?;
/// // ORDER BY a DESC NULLS FIRST LIMIT 3
/// let order = [col("a").sort(false, true)];
/// let sort = SortExec::try_new(&order, &df_schema, Some(3), &QueryContext::new())?;
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(Int64Array::from(vec![Some(1), None, Some(5), Some(3)])),
/// ])?;
/// let out = sort.run(&[batch], 8192)?;
/// let a: Vec<Option<i64>> = out[0].column(0).as_primitive::<Int64Type>().iter().collect();
/// assert_eq!(a, vec![None, Some(5), Some(3)]);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct SortExec {
    keys: Vec<PhysicalExpr>,
    fields: Vec<SortField>,
    /// The sort expressions as written (`t.a DESC NULLS FIRST`).
    names: Vec<String>,
    fetch: Option<usize>,
}

/// A row's place in the input: (batch, row).
type Position = (u32, u32);

impl SortExec {
    /// The input columns the sort keys read, ascending.
    pub fn columns(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.keys.iter().flat_map(PhysicalExpr::columns).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Reads input column `map(i)` wherever it read column `i`.
    pub fn remap_columns(&mut self, map: &impl Fn(usize) -> usize) {
        self.keys = self.keys.iter().map(|e| e.remap_columns(map)).collect();
    }

    /// Compiles the sort expressions against `schema` (the input's).
    ///
    /// `SortExpr::asc` and `nulls_first` are taken as given (SQL's
    /// `ORDER BY a` is planned as ASC NULLS LAST, `a DESC` as DESC NULLS
    /// FIRST).
    ///
    /// # Errors
    ///
    /// Compile errors of the expressions, and key types arrow-row cannot
    /// order ([`ExecError::Unsupported`]).
    pub fn try_new(
        exprs: &[SortExpr],
        schema: &DFSchema,
        fetch: Option<usize>,
        ctx: &QueryContext,
    ) -> Result<Self> {
        let mut keys = Vec::with_capacity(exprs.len());
        let mut fields = Vec::with_capacity(exprs.len());
        for e in exprs {
            let key = PhysicalExpr::compile(&e.expr, schema, ctx)?;
            let options = SortOptions {
                descending: !e.asc,
                nulls_first: e.nulls_first,
            };
            fields.push(SortField::new_with_options(
                key.data_type().clone(),
                options,
            ));
            keys.push(key);
        }
        if !RowConverter::supports_fields(&fields) {
            let types: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}: {}", k.data_type()))
                .collect();
            return Err(ExecError::Unsupported(format!(
                "ORDER BY over [{}]: a key type has no order; cast it to a string or number",
                types.join(", ")
            )));
        }
        Ok(SortExec {
            keys,
            fields,
            names: exprs.iter().map(ToString::to_string).collect(),
            fetch,
        })
    }

    /// The number of sort keys.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The rows wanted (ORDER BY ... LIMIT n: a top-n), if limited.
    pub fn fetch(&self) -> Option<usize> {
        self.fetch
    }

    /// One line for EXPLAIN: `Sort: t.a DESC NULLS FIRST, t.b ASC NULLS LAST fetch=10`.
    pub fn describe(&self) -> String {
        let mut s = format!("Sort: {}", self.names.join(", "));
        if let Some(k) = self.fetch {
            let _ = write!(s, " fetch={k}");
        }
        s
    }

    /// Sorts `input` (stable; only the first `fetch` rows with a fetch)
    /// into batches of at most `batch_size` rows with the input's columns.
    /// Runs on the current rayon pool. No rows give no batches.
    ///
    /// # Errors
    ///
    /// Evaluation errors of the sort keys, and Arrow failures.
    pub fn run(&self, input: &[RecordBatch], batch_size: usize) -> Result<Vec<RecordBatch>> {
        self.run_charged(input, batch_size, &MemoryBudget::unlimited())
    }

    /// [`SortExec::run`], with the sort's buffers (the encoded keys, the
    /// sorted positions) and its output charged to `budget` before they
    /// are built; the charge is given back when the sort returns (whoever
    /// holds the output charges it again).
    ///
    /// # Errors
    ///
    /// As [`SortExec::run`], and the budget's memory-limit error.
    pub fn run_charged(
        &self,
        input: &[RecordBatch],
        batch_size: usize,
        budget: &MemoryBudget,
    ) -> Result<Vec<RecordBatch>> {
        let batch_size = batch_size.max(1);
        let rows: usize = input.iter().map(RecordBatch::num_rows).sum();
        let wanted = self.fetch.map_or(rows, |k| k.min(rows));
        if wanted == 0 {
            return Ok(Vec::new());
        }
        if self.keys.is_empty() {
            return Ok(rebatch(
                SortExec::limit(input.to_vec(), 0, Some(wanted)),
                batch_size,
            ));
        }
        if u32::try_from(input.len()).is_err()
            || input.iter().any(|b| u32::try_from(b.num_rows()).is_err())
        {
            return Err(ExecError::Unsupported(
                "ORDER BY over more than 2^32 batches or a batch of 2^32 rows".into(),
            ));
        }
        let converter = self.converter()?;
        let mut charge = budget.try_reserve("sorting (ORDER BY)", 0)?;
        let order = match self.fetch {
            Some(k) if k.saturating_mul(TOP_K_FRACTION) < rows => {
                self.top_k(input, &converter, k, &mut charge)?
            }
            _ => {
                let mut order = self.full_sort(input, &converter, &mut charge)?;
                order.truncate(wanted);
                order
            }
        };
        // The gathered output: `wanted` of the input's `rows`.
        let input_bytes: usize = input.iter().map(batch_bytes).sum();
        let output_bytes = (input_bytes as u128 * wanted as u128 / rows.max(1) as u128) as usize;
        charge.grow(output_bytes)?;
        gather(input, &order, batch_size)
    }

    pub(in crate::exec) fn converter(&self) -> Result<RowConverter> {
        RowConverter::new(self.fields.clone())
            .map_err(|e| ExecError::Unsupported(format!("ORDER BY {}: {e}", self.names.join(", "))))
    }

    /// The sort keys of `batch`, encoded.
    pub(in crate::exec) fn encode(
        &self,
        converter: &RowConverter,
        batch: &RecordBatch,
    ) -> Result<Rows> {
        let columns = self
            .keys
            .iter()
            .map(|k| k.evaluate(batch).map(|c| canonical_floats(&c)))
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        converter
            .convert_columns(&columns)
            .map_err(|e| ExecError::arrow("sort (encoding keys)", e))
    }

    /// Every position, sorted.
    fn full_sort(
        &self,
        input: &[RecordBatch],
        converter: &RowConverter,
        charge: &mut MemoryReservation,
    ) -> Result<Vec<Position>> {
        let total: usize = input.iter().map(RecordBatch::num_rows).sum();
        // The positions, then each batch's encoded keys as it is encoded.
        charge.grow(total.saturating_mul(std::mem::size_of::<Position>()))?;
        let held = Mutex::new(charge);
        let rows: Vec<Rows> = input
            .par_iter()
            .map(|b| {
                let rows = self.encode(converter, b)?;
                held.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .grow(rows.size())?;
                Ok(rows)
            })
            .collect::<Result<_>>()?;
        let mut order: Vec<Position> = input
            .iter()
            .enumerate()
            .flat_map(|(b, batch)| (0..batch.num_rows() as u32).map(move |r| (b as u32, r)))
            .collect();
        // stable: equal keys keep their input order
        order.par_sort_by(|x, y| {
            rows[x.0 as usize]
                .row(x.1 as usize)
                .cmp(&rows[y.0 as usize].row(y.1 as usize))
        });
        Ok(order)
    }

    /// The first `k` positions of the sorted order (`k >= 1`).
    fn top_k(
        &self,
        input: &[RecordBatch],
        converter: &RowConverter,
        k: usize,
        charge: &mut MemoryReservation,
    ) -> Result<Vec<Position>> {
        // Each worker holds one batch's keys and about 2k candidates.
        let threads = rayon::current_num_threads().max(1);
        let widest = input.iter().map(RecordBatch::num_rows).max().unwrap_or(0);
        let key_bytes = self.keys.len().max(1) * 16;
        charge.grow(
            threads
                .min(input.len().max(1))
                .saturating_mul(widest.saturating_add(k.saturating_mul(2)))
                .saturating_mul(key_bytes + std::mem::size_of::<Candidate>()),
        )?;
        let per_task = input.len().div_ceil(threads).max(1);
        let candidates: Vec<Vec<Candidate>> = input
            .par_chunks(per_task)
            .enumerate()
            .map(|(chunk, batches)| {
                let first = chunk * per_task;
                let mut kept: Vec<Candidate> = Vec::new();
                for (i, batch) in batches.iter().enumerate() {
                    let b = (first + i) as u32;
                    let rows = self.encode(converter, batch)?;
                    let mut best: Vec<u32> = (0..batch.num_rows() as u32).collect();
                    let by_key = |x: &u32, y: &u32| {
                        rows.row(*x as usize)
                            .cmp(&rows.row(*y as usize))
                            .then(x.cmp(y))
                    };
                    if best.len() > k {
                        best.select_nth_unstable_by(k - 1, by_key);
                        best.truncate(k);
                    }
                    kept.extend(best.into_iter().map(|r| Candidate {
                        key: rows.row(r as usize).owned(),
                        at: (b, r),
                    }));
                    if kept.len() >= 2 * k {
                        keep_best(&mut kept, k);
                    }
                }
                Ok(kept)
            })
            .collect::<Result<_>>()?;
        let mut all: Vec<Candidate> = candidates.into_iter().flatten().collect();
        keep_best(&mut all, k);
        all.sort_unstable_by(Candidate::cmp);
        Ok(all.into_iter().map(|c| c.at).collect())
    }
}

/// A top-k candidate row: its encoded key and its position (the tie
/// breaker that makes the top-k stable).
struct Candidate {
    key: OwnedRow,
    at: Position,
}

impl Candidate {
    fn cmp(&self, other: &Candidate) -> Ordering {
        self.key
            .row()
            .cmp(&other.key.row())
            .then(self.at.cmp(&other.at))
    }
}

/// Keeps the `k` least candidates (in no particular order).
fn keep_best(candidates: &mut Vec<Candidate>, k: usize) {
    if candidates.len() > k {
        candidates.select_nth_unstable_by(k - 1, Candidate::cmp);
        candidates.truncate(k);
    }
}

/// The rows at `order` of `input`, in batches of at most `batch_size`.
fn gather(
    input: &[RecordBatch],
    order: &[Position],
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let Some(first) = input.first() else {
        return Ok(Vec::new());
    };
    let schema = first.schema();
    let columns: Vec<Vec<&dyn Array>> = (0..schema.fields().len())
        .map(|c| input.iter().map(|b| b.column(c).as_ref()).collect())
        .collect();
    order
        .par_chunks(batch_size)
        .map(|piece| {
            let at: Vec<(usize, usize)> = piece
                .iter()
                .map(|&(b, r)| (b as usize, r as usize))
                .collect();
            let arrays = columns
                .iter()
                .map(|sources| arrow_select::interleave::interleave(sources, &at))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ExecError::arrow("sort (gather)", e))?;
            RecordBatch::try_new(schema.clone(), arrays)
                .map_err(|e| ExecError::arrow("sort (gather)", e))
        })
        .collect()
}

/// `input` as batches of at most `batch_size` rows (slices; empty batches
/// dropped).
fn rebatch(input: Vec<RecordBatch>, batch_size: usize) -> Vec<RecordBatch> {
    let mut out = Vec::with_capacity(input.len());
    for batch in input {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let len = batch_size.min(batch.num_rows() - offset);
            out.push(batch.slice(offset, len));
            offset += len;
        }
    }
    out
}

impl SortExec {
    /// LIMIT / OFFSET: the rows of `input` after the first `skip`, at most
    /// `fetch` of them (all without a fetch). Batches are sliced, not copied;
    /// empty batches are dropped.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Int32Array, RecordBatch};
    /// use tenon_planner::exec::SortExec;
    ///
    /// let batch = |v: Vec<i32>| RecordBatch::try_from_iter([("a", Arc::new(Int32Array::from(v)) as _)]).unwrap();
    /// let out = SortExec::limit(vec![batch(vec![1, 2, 3]), batch(vec![4, 5])], 2, Some(2));
    /// let rows: Vec<usize> = out.iter().map(|b| b.num_rows()).collect();
    /// assert_eq!(rows, vec![1, 1]); // 3, then 4
    /// ```
    pub fn limit(input: Vec<RecordBatch>, skip: usize, fetch: Option<usize>) -> Vec<RecordBatch> {
        let mut skip = skip;
        let mut left = fetch.unwrap_or(usize::MAX);
        let mut out = Vec::new();
        for batch in input {
            if left == 0 {
                break;
            }
            let rows = batch.num_rows();
            if skip >= rows {
                skip -= rows;
                continue;
            }
            let len = (rows - skip).min(left);
            if len > 0 {
                out.push(if skip == 0 && len == rows {
                    batch
                } else {
                    batch.slice(skip, len)
                });
            }
            left -= len;
            skip = 0;
        }
        out
    }
}
