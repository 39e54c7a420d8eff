//! Hash aggregation: GROUP BY with `count`, `sum`, `min`, `max`, `avg`,
//! and SELECT DISTINCT.
//!
//! ```text
//!  input batches ──split──► chunk 0 │ chunk 1 │ ... (one per worker, by rows)
//!
//!  sink       per chunk, in parallel: evaluate the group keys, intern them
//!             in a group table (dense u32 group ids), update each
//!             aggregate's accumulator with (group ids, argument values)
//!  combine    more than one partial: split every partial's groups by key
//!             hash into partitions, regroup and merge each partition in
//!             parallel (one task per partition, no locks)
//!  finalize   accumulators to output columns, cast to the plan's types,
//!             sliced into batches of at most `batch_size` rows
//! ```
//!
//! * Group keys: one fixed-width column is hashed as a 64-bit word; other
//!   keys (several columns, strings, decimals) are arrow-row encoded; see
//!   [`groups`]. NULL keys form one group, as SQL says.
//! * Accumulators keep vectors indexed by group id and take a batch at a
//!   time; see [`accumulate`]. Without GROUP BY they use Arrow's aggregate
//!   kernels over whole arrays. DISTINCT aggregates keep distinct
//!   (group, value) pairs; see [`distinct`].
//! * SQL semantics: `count(*)` counts rows and `count(x)` non-NULL values;
//!   `sum`, `min`, `max` and `avg` of no non-NULL value are NULL; integer
//!   and decimal overflow is an error, never a wrapped value; without GROUP
//!   BY an empty input gives one row (`count` 0, `sum` NULL).
//! * Output order is unspecified (by partition, then by first appearance).

mod accumulate;
mod collection;
mod column_groups;
mod combine;
mod dictionary_keys;
mod distinct;
mod groups;
mod inline_keys;
mod lanes;
mod min_max;
mod packed_groups;
mod spec;
mod spill;
mod word_groups;

use std::fmt::Write as _;
use std::sync::Mutex;

use ahash::RandomState;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_cast::{can_cast_types, cast};
use arrow_schema::{DataType, SchemaRef};
use datafusion_common::DFSchema;
use datafusion_expr::Expr;
use datafusion_expr::logical_plan::Aggregate;
use rayon::prelude::*;

use crate::exec::error::{ExecError, Result};
use crate::exec::held_form;
use crate::expr::{PhysicalExpr, QueryContext};
use combine::{Finished, Partial, combine};
use groups::GroupTable;
use spec::AggSpec;
pub(crate) use spec::{ColumnCall, Func};
use tenon_kernels::{MemoryBudget, MemoryReservation, batch_bytes};

/// Fewest rows worth a chunk (a worker's share) of their own. Small in
/// debug builds so that tests on small inputs go through the parallel
/// sink and the combine step.
const MIN_CHUNK_ROWS: usize = if cfg!(debug_assertions) {
    64
} else {
    32 * 1024
};

/// Fewest groups (summed over the partials) worth combining in several
/// partitions; below, one task merges them all. Small in debug builds, as
/// above.
const PARALLEL_COMBINE_MIN_GROUPS: usize = if cfg!(debug_assertions) {
    16
} else {
    16 * 1024
};

/// Bytes a group costs in its group table beyond its key: the hash slot
/// and the dense group id (charged per group, see [`AggregateSink::push`]).
const GROUP_SLOT_BYTES: usize = 16;
/// Bytes an aggregate's state costs per group (a sum and a count, or a
/// minimum and a flag; DISTINCT aggregates hold more, uncharged).
const ACC_STATE_BYTES: usize = 16;
/// Most combine partitions: 4 per thread keeps the workers busy when
/// partitions differ in size; past 64 the per-partition overhead (a table
/// and a `take` of every partial's keys) dominates.
const MAX_PARTITIONS: usize = 64;

/// A hash aggregation (GROUP BY, or one group without it), or SELECT
/// DISTINCT; see the module docs.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, StringArray, cast::AsArray, types::Int64Type};
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion_expr::LogicalPlan;
/// use tenon_planner::exec::HashAggregate;
/// use tenon_planner::expr::QueryContext;
/// use tenon_planner::sql::Catalog;
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("k", DataType::Utf8, true),
///     Field::new("v", DataType::Int64, true),
/// ]));
/// let mut catalog = Catalog::new();
/// catalog.register_table("t", Arc::clone(&schema));
/// let planned = catalog.plan("SELECT k, count(*), sum(v) FROM t GROUP BY k").unwrap();
/// let LogicalPlan::Projection(p) = &planned.plan else { panic!() };
/// let LogicalPlan::Aggregate(agg) = p.input.as_ref() else { panic!() };
///
/// let agg = HashAggregate::try_new(agg, &QueryContext::new())?;
/// assert_eq!(agg.describe(), "Aggregate: group=[t.k] aggs=[count(*), sum(t.v)]");
/// let batch = RecordBatch::try_new(schema, vec![
///     Arc::new(StringArray::from(vec![Some("a"), None, Some("a")])),
///     Arc::new(Int64Array::from(vec![Some(1), Some(2), None])),
/// ])?;
/// let out = agg.run(&[batch], 8192)?;
/// let rows: usize = out.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 2); // 'a' and NULL
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct HashAggregate {
    groups: Vec<PhysicalExpr>,
    /// The group columns' types in the output (the plan's schema).
    key_types: Vec<DataType>,
    group_names: Vec<String>,
    aggs: Vec<AggSpec>,
    schema: SchemaRef,
    /// SELECT DISTINCT (for `describe`).
    distinct: bool,
}

impl HashAggregate {
    /// The input columns the aggregation reads, ascending.
    pub fn columns(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .groups
            .iter()
            .flat_map(PhysicalExpr::columns)
            .chain(self.aggs.iter().flat_map(AggSpec::columns))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Reads input column `map(i)` wherever it read column `i` (the input
    /// was narrowed to fewer columns).
    pub fn remap_columns(&mut self, map: &impl Fn(usize) -> usize) {
        self.groups = self.groups.iter().map(|e| e.remap_columns(map)).collect();
        for a in &mut self.aggs {
            a.remap_columns(map);
        }
    }

    /// Compiles a logical `Aggregate`: its group expressions and aggregate
    /// calls against its input's schema.
    ///
    /// # Errors
    ///
    /// [`ExecError::Unsupported`] for GROUPING SETS / ROLLUP / CUBE, for
    /// aggregate functions other than count, sum, min, max and avg, and for
    /// argument types they do not take; compile errors of the expressions;
    /// result types that do not match the plan's schema.
    pub fn try_new(agg: &Aggregate, ctx: &QueryContext) -> Result<Self> {
        let input = agg.input.schema();
        let fields = agg.schema.fields();
        if agg
            .group_expr
            .iter()
            .any(|g| matches!(g, Expr::GroupingSet(_)))
        {
            return Err(ExecError::Unsupported(
                "GROUPING SETS, ROLLUP and CUBE: write one GROUP BY per grouping and UNION ALL \
                 the results"
                    .into(),
            ));
        }
        // `GROUP BY a, a` groups by `a` once: the plan's schema has one
        // column for it, so the repeated expressions are dropped here too.
        let mut group_expr: Vec<&Expr> = Vec::with_capacity(agg.group_expr.len());
        for g in &agg.group_expr {
            if !group_expr.contains(&g) {
                group_expr.push(g);
            }
        }
        if fields.len() != group_expr.len() + agg.aggr_expr.len() {
            return Err(ExecError::Unsupported(format!(
                "internal: an aggregate with {} group and {} aggregate expressions but {} \
                 output columns",
                group_expr.len(),
                agg.aggr_expr.len(),
                fields.len()
            )));
        }
        let mut groups = Vec::with_capacity(group_expr.len());
        let mut key_types = Vec::with_capacity(group_expr.len());
        let mut group_names = Vec::with_capacity(group_expr.len());
        for (i, g) in group_expr.iter().enumerate() {
            let expr = PhysicalExpr::compile(g, input, ctx)?;
            let want = fields[i].data_type();
            if expr.data_type() != want && !can_cast_types(expr.data_type(), want) {
                return Err(ExecError::Unsupported(format!(
                    "GROUP BY {expr}: it has type {} but the plan's schema says {want}",
                    expr.data_type()
                )));
            }
            groups.push(expr);
            key_types.push(want.clone());
            group_names.push(qualified_name(&agg.schema, i));
        }
        let aggs = agg
            .aggr_expr
            .iter()
            .zip(&fields[group_expr.len()..])
            .map(|(e, f)| AggSpec::compile(e, f, input, ctx))
            .collect::<Result<Vec<_>>>()?;
        // Fail here, not in a worker, for key or value types without a table
        // or accumulator.
        GroupTable::new(&key_types, RandomState::new())?;
        for a in &aggs {
            a.accumulator()?;
        }
        Ok(HashAggregate {
            groups,
            key_types,
            group_names,
            aggs,
            schema: agg.schema.inner().clone(),
            distinct: false,
        })
    }

    /// SELECT DISTINCT over batches of `schema`: one output row per distinct
    /// row (NULLs equal to each other), with the same columns.
    ///
    /// # Errors
    ///
    /// Column types arrow-row cannot encode.
    pub fn distinct(schema: &DFSchema) -> Result<Self> {
        let groups: Vec<PhysicalExpr> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                PhysicalExpr::column_ref(i, f.data_type().clone(), &qualified_name(schema, i))
            })
            .collect();
        let key_types: Vec<DataType> = schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        GroupTable::new(&key_types, RandomState::new())?;
        Ok(HashAggregate {
            groups,
            key_types,
            group_names: (0..schema.fields().len())
                .map(|i| qualified_name(schema, i))
                .collect(),
            aggs: Vec::new(),
            schema: schema.inner().clone(),
            distinct: true,
        })
    }

    /// Every aggregate call as a [`ColumnCall`], for an aggregation
    /// without GROUP BY whose calls all are; `None` otherwise.
    pub(crate) fn column_calls(&self) -> Option<Vec<ColumnCall>> {
        if self.distinct || !self.groups.is_empty() {
            return None;
        }
        self.aggs.iter().map(AggSpec::column_call).collect()
    }

    /// The one output row of an aggregation without GROUP BY from partial
    /// states computed elsewhere: `partials[p][a]` is partial `p`'s state of
    /// aggregate `a`, one row in the layout [`accumulate::Accumulator::state`]
    /// gives (count: Int64; sum: the `produces` type, NULL for no value;
    /// avg: that sum and an Int64 count; min / max: the `input` type, NULL
    /// for no value). The states are merged and finished by each call's own
    /// accumulator, so results, types and overflow errors are this
    /// aggregate's.
    ///
    /// # Errors
    ///
    /// As [`HashAggregate::run`]; a state of the wrong shape.
    pub(crate) fn merge_states(&self, partials: &[Vec<Vec<ArrayRef>>]) -> Result<RecordBatch> {
        let mut columns = Vec::with_capacity(self.aggs.len());
        for (a, spec) in self.aggs.iter().enumerate() {
            let mut acc = spec.accumulator()?;
            for p in partials {
                let state = p.get(a).ok_or_else(|| {
                    ExecError::Unsupported(format!("internal: no partial state of `{}`", spec.name))
                })?;
                acc.merge_rows(&[0], state, 1)?;
            }
            columns.push(spec.finish(acc.finish(1)?)?);
        }
        RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| ExecError::arrow("aggregate (output batch)", e))
    }

    /// The input column that group key `i` (output column `i`) is, when
    /// it is a plain column: a runtime filter on that output column is one
    /// on the input column (`exec::runtime_filter`).
    pub fn group_column(&self, i: usize) -> Option<usize> {
        self.groups.get(i)?.as_column()
    }

    /// The output schema (the logical node's).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// One line for EXPLAIN: `Aggregate: group=[t.a] aggs=[count(*), sum(t.b)]`.
    pub fn describe(&self) -> String {
        let mut s = String::from(if self.distinct {
            "Aggregate (DISTINCT): group=["
        } else {
            "Aggregate: group=["
        });
        s.push_str(&self.group_names.join(", "));
        s.push(']');
        if !self.distinct {
            let aggs: Vec<&str> = self.aggs.iter().map(AggSpec::name).collect();
            let _ = write!(s, " aggs=[{}]", aggs.join(", "));
        }
        s
    }

    /// Aggregates `input` (batches with the columns of the input schema)
    /// into batches of at most `batch_size` rows with the output schema's
    /// columns. Runs on the current rayon pool. A GROUP BY over no rows
    /// gives no batches; without GROUP BY there is always one row.
    ///
    /// # Errors
    ///
    /// Evaluation errors of the keys, arguments and filters; integer or
    /// decimal overflow of a sum or average; more than `u32::MAX - 1`
    /// groups.
    pub fn run(&self, input: &[RecordBatch], batch_size: usize) -> Result<Vec<RecordBatch>> {
        let threads = rayon::current_num_threads().max(1);
        let state = RandomState::new();
        let chunks = split_rows(input, threads);
        let partials: Vec<Partial> = chunks
            .par_iter()
            .map(|chunk| {
                let mut partial = self.new_partial(&state)?;
                let mut scratch = Scratch::default();
                for batch in chunk {
                    self.sink_batch(&mut partial, batch, &mut scratch)?;
                }
                Ok(partial)
            })
            .collect::<Result<_>>()?;
        self.finish(partials, &state, batch_size)
    }

    /// A streaming aggregation of this plan: batches are pushed from any
    /// number of threads while the input is produced (each pushing thread
    /// borrows a partial aggregate), then [`AggregateSink::finish`] merges.
    ///
    /// The groups are charged to `budget` as they are made (see
    /// [`AggregateSink::push`]).
    ///
    /// # Errors
    ///
    /// None in practice (an empty reservation always fits).
    pub fn sink<'a>(&'a self, budget: &MemoryBudget) -> Result<AggregateSink<'a>> {
        Ok(AggregateSink {
            agg: self,
            state: RandomState::new(),
            idle: Mutex::new(Vec::new()),
            charge: Mutex::new(budget.try_reserve("the GROUP BY hash table", 0)?),
            spilling: None,
        })
    }

    /// As [`HashAggregate::sink`], for a query under a memory limit: the
    /// rows whose groups do not fit `budget` are spilled to `space` (and
    /// counted in `metrics`), and aggregated a partition at a time at the
    /// end (module `spill`).
    pub(crate) fn sink_spilling<'a>(
        &'a self,
        budget: &MemoryBudget,
        space: std::sync::Arc<crate::exec::spill::SpillSpace>,
        metrics: std::sync::Arc<crate::exec::OperatorMetrics>,
    ) -> Result<AggregateSink<'a>> {
        let mut sink = self.sink(budget)?;
        if !self.groups.is_empty() {
            sink.spilling = Some(spill::Spilling::new(space, metrics, budget.clone()));
        }
        Ok(sink)
    }

    /// Bytes one group of `batch`'s rows costs at most, as charged: the
    /// row's width in the input (the keys are among its columns) and, per
    /// aggregate, a state and a group-table slot.
    fn group_bytes(&self, batch: &RecordBatch) -> usize {
        let row = batch_bytes(batch).div_ceil(batch.num_rows().max(1));
        row + GROUP_SLOT_BYTES + self.aggs.len() * ACC_STATE_BYTES
    }

    /// Combines the partial aggregates and cuts the result into batches.
    fn finish(
        &self,
        mut partials: Vec<Partial>,
        state: &RandomState,
        batch_size: usize,
    ) -> Result<Vec<RecordBatch>> {
        let batch_size = batch_size.max(1);
        let threads = rayon::current_num_threads().max(1);
        let finished = if partials.len() <= 1 {
            vec![
                partials
                    .pop()
                    .map_or_else(|| self.new_partial(state), Ok)?
                    .finish()?,
            ]
        } else {
            let groups: usize = partials.iter().map(|p| p.table.num_groups()).sum();
            let partitions = if self.groups.is_empty() || groups < PARALLEL_COMBINE_MIN_GROUPS {
                1
            } else {
                (threads * 4).next_power_of_two().min(MAX_PARTITIONS)
            };
            let pairs = self.aggs.iter().any(AggSpec::state_is_pairs);
            combine(partials, partitions, pairs, &|| self.new_partial(state))?
        };
        let mut out = Vec::new();
        for f in finished {
            let batch = self.output(f)?;
            let rows = batch.num_rows();
            let mut offset = 0;
            while offset < rows {
                let len = batch_size.min(rows - offset);
                out.push(batch.slice(offset, len));
                offset += len;
            }
        }
        Ok(out)
    }

    /// An empty partial aggregate: a group table and fresh accumulators.
    fn new_partial(&self, state: &RandomState) -> Result<Partial> {
        Ok(Partial {
            table: GroupTable::new(&self.key_types, state.clone())?,
            accs: self
                .aggs
                .iter()
                .map(AggSpec::accumulator)
                .collect::<Result<_>>()?,
        })
    }

    /// The sink phase: one batch into a partial aggregate.
    fn sink_batch(
        &self,
        partial: &mut Partial,
        batch: &RecordBatch,
        scratch: &mut Scratch,
    ) -> Result<()> {
        let Scratch { ids, kept_ids } = scratch;
        let global = self.groups.is_empty();
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        if !global {
            let keys = self.keys(batch)?;
            partial.table.intern(&keys, rows, ids)?;
        }
        let n = partial.table.num_groups();
        for (spec, acc) in self.aggs.iter().zip(&mut partial.accs) {
            let Some(keep) = spec.selection(batch)? else {
                let values = spec.values(batch)?;
                if global {
                    acc.update_all(values.as_ref(), rows)?;
                } else {
                    acc.update(ids, values.as_ref(), n)?;
                }
                continue;
            };
            // FILTER (WHERE ...): the argument is evaluated on the kept
            // rows only (a filter may guard it, as in `1 / x`)
            let kept = arrow_select::filter::filter_record_batch(batch, &keep).map_err(|e| {
                ExecError::arrow(format!("aggregate `{}` (FILTER)", spec.name()), e)
            })?;
            let values = spec.values(&kept)?;
            if global {
                acc.update_all(values.as_ref(), kept.num_rows())?;
            } else {
                kept_ids.clear();
                kept_ids.extend(
                    ids.iter()
                        .zip(keep.values().iter())
                        .filter_map(|(&g, k)| k.then_some(g)),
                );
                acc.update(kept_ids, values.as_ref(), n)?;
            }
        }
        Ok(())
    }

    /// The group key columns of `batch`, as the output schema's types.
    fn keys(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>> {
        self.groups
            .iter()
            .zip(&self.key_types)
            .map(|(g, t)| {
                // A held table's string column of few values comes as its
                // dictionary: the group table reads the codes.
                if let Some(c) = g.as_column().and_then(|i| batch.columns().get(i))
                    && matches!(c.data_type(), DataType::Dictionary(..))
                    && held_form::is_narrow_form(c.data_type(), t)
                {
                    return Ok(c.clone());
                }
                let key = g.evaluate(batch)?;
                if key.data_type() == t {
                    return Ok(key);
                }
                cast(&key, t).map_err(|e| ExecError::arrow(format!("GROUP BY {g}"), e))
            })
            .collect()
    }

    /// The finalize phase's last step: a batch of the output schema.
    fn output(&self, f: Finished) -> Result<RecordBatch> {
        let mut columns = f.keys;
        for (spec, array) in self.aggs.iter().zip(f.aggs) {
            columns.push(spec.finish(array)?);
        }
        RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| ExecError::arrow("aggregate (output batch)", e))
    }
}

/// Reused per-worker buffers of the sink phase.
#[derive(Default)]
pub(super) struct Scratch {
    ids: Vec<u32>,
    kept_ids: Vec<u32>,
}

/// A streaming aggregation ([`HashAggregate::sink`]).
pub struct AggregateSink<'a> {
    agg: &'a HashAggregate,
    state: RandomState,
    /// Partial aggregates not in use by a pushing thread.
    idle: Mutex<Vec<(Partial, Scratch)>>,
    /// The groups' charge to the query's memory budget.
    charge: Mutex<MemoryReservation>,
    /// Under a memory limit: where rows that do not fit go (module
    /// `spill`).
    spilling: Option<spill::Spilling>,
}

impl std::fmt::Debug for AggregateSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AggregateSink").finish_non_exhaustive()
    }
}

impl AggregateSink<'_> {
    /// Aggregates one batch (of the input's columns); callable from
    /// several threads at once.
    ///
    /// # Errors
    ///
    /// As [`HashAggregate::run`].
    pub fn push(&self, batch: &RecordBatch) -> Result<()> {
        if let Some(to) = &self.spilling
            && to.overflow.load(std::sync::atomic::Ordering::Relaxed)
        {
            return self
                .agg
                .spill_rows(batch, &self.state, 0, &mut lock(&to.files), to);
        }
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let (mut partial, mut scratch) = match taken {
            Some(p) => p,
            None => (self.agg.new_partial(&self.state)?, Scratch::default()),
        };
        if let Some(to) = &self.spilling {
            // Each group charged twice: the combine at the end copies it.
            let rest = self.agg.sink_within(
                &mut partial,
                &mut scratch,
                batch,
                &self.charge,
                2,
                usize::MAX,
            );
            lock(&self.idle).push((partial, scratch));
            let rest = rest?;
            if !rest.is_empty() {
                to.overflow
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                let mut files = lock(&to.files);
                for r in rest {
                    self.agg.spill_rows(&r, &self.state, 0, &mut files, to)?;
                }
            }
            return Ok(());
        }
        // Charged before the batch is interned: every row may be a new
        // group; what the rows of existing groups did not need is given
        // back after.
        let grouped = !self.agg.groups.is_empty();
        let per_group = self.agg.group_bytes(batch);
        let bound = if grouped {
            per_group.saturating_mul(batch.num_rows())
        } else {
            0
        };
        let before = partial.table.num_groups();
        let result = lock(&self.charge).grow(bound).map_err(ExecError::from);
        let result = result.and_then(|()| self.agg.sink_batch(&mut partial, batch, &mut scratch));
        if grouped {
            let made = partial.table.num_groups().saturating_sub(before);
            lock(&self.charge).shrink(bound.saturating_sub(made * per_group));
        }
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((partial, scratch));
        result
    }

    /// Merges what was pushed into the result batches.
    ///
    /// # Errors
    ///
    /// As [`HashAggregate::run`].
    /// Merging several partials rebuilds their groups (a second copy while
    /// they merge), and the output is a third: charged as the groups were,
    /// before they are built.
    pub fn finish(self, batch_size: usize) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        self.finish_into(batch_size, &mut |b| {
            out.push(b);
            Ok(())
        })?;
        Ok(out)
    }

    /// As [`AggregateSink::finish`], passing the result batches to `out`
    /// as they are made (an aggregation that spilled outputs a partition
    /// at a time).
    ///
    /// # Errors
    ///
    /// As [`HashAggregate::run`], the errors of `out`, and those of the
    /// spill files.
    pub fn finish_into(
        self,
        batch_size: usize,
        out: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let partials: Vec<Partial> = self
            .idle
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        let mut charge = self.charge.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(to) = &self.spilling {
            let files = std::mem::take(&mut *lock(&to.files))
                .into_iter()
                .map(|w| w.map(crate::exec::spill::SpillWriter::finish).transpose())
                .collect::<Result<Vec<_>>>()?;
            if files.iter().any(Option::is_some) {
                let how = spill::Finishing {
                    state: &self.state,
                    to,
                    batch_size: batch_size.max(1),
                };
                return self.agg.finish_spilled(partials, files, charge, &how, out);
            }
            // Nothing spilled: the groups were charged twice already.
            return self
                .agg
                .finish(partials, &self.state, batch_size)?
                .into_iter()
                .try_for_each(out);
        }
        let held = charge.size();
        let copies = if partials.len() > 1 { 2 } else { 1 };
        charge.grow(held.saturating_mul(copies))?;
        self.agg
            .finish(partials, &self.state, batch_size)?
            .into_iter()
            .try_for_each(out)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Column `i` of `schema` as `qualifier.name` (or `name`).
fn qualified_name(schema: &DFSchema, i: usize) -> String {
    let (qualifier, field) = schema.qualified_field(i);
    match qualifier {
        Some(q) => format!("{q}.{}", field.name()),
        None => field.name().clone(),
    }
}

/// `input` split into at most `max_chunks` chunks of about equal rows (at
/// least [`MIN_CHUNK_ROWS`] each, batches sliced where needed); one empty
/// chunk for an empty input.
fn split_rows(input: &[RecordBatch], max_chunks: usize) -> Vec<Vec<RecordBatch>> {
    let rows: usize = input.iter().map(RecordBatch::num_rows).sum();
    let n = (rows / MIN_CHUNK_ROWS).clamp(1, max_chunks.max(1));
    let target = rows.div_ceil(n).max(1);
    let mut chunks = Vec::with_capacity(n);
    let mut current = Vec::new();
    let mut current_rows = 0;
    for batch in input {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let len = (target - current_rows).min(batch.num_rows() - offset);
            current.push(batch.slice(offset, len));
            offset += len;
            current_rows += len;
            if current_rows == target {
                chunks.push(std::mem::take(&mut current));
                current_rows = 0;
            }
        }
    }
    if !current.is_empty() || chunks.is_empty() {
        chunks.push(current);
    }
    chunks
}
