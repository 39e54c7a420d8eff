//! An aggregate without GROUP BY fused into the INNER join below it: the
//! join's matched pairs are aggregated as the kernel probes, without
//! output batches.
//!
//! ```text
//!  Aggregate(count(*), sum(a.p), sum(b.p))      JoinAggregate(count(*), sum(a.p), sum(b.p))
//!    Join INNER a.k = b.k            ──fuse──►    Join INNER a.k = b.k   (run with a pair consumer)
//!      a    b                                       a    b
//! ```
//!
//! The regular plan gathers every output column of every pair into
//! batches, then the aggregate reads them again. Here the kernel hands
//! each chunk of matched pairs (after the residual filter) to a per-thread
//! accumulator ([`PairSink`]) that reads the aggregated columns straight
//! from the join's inputs at the pairs' rows: a count, and a gather-add
//! over the index slice per column (module `pairs`).
//!
//! When: lowering an `Aggregate` whose calls are all `count(*)`,
//! `count(col)`, `sum(col)`, `min(col)`, `max(col)` or `avg(col)` of plain
//! columns (no GROUP BY, DISTINCT or FILTER), over projections that only
//! pass columns through, over an INNER join whose kernel hands out pairs
//! ([`JoinKernel::paired`]: the hash join) and is not a temporal join, with
//! `sum`, `avg`, `min` and `max` over Int8..Int64, UInt8..UInt64,
//! Float32/64 or Decimal128 (`count(col)` over any type), and the
//! `fused_aggregate` setting on (the default; docs/cli.md). Anything else
//! keeps the regular plan.
//!
//! Results are the regular aggregate's: each worker's state is merged and
//! finished by the calls' own accumulators
//! ([`HashAggregate::merge_states`]), so types, NULLs (skipped; no value
//! gives NULL) and overflow errors follow the same rules. Integer sums are
//! exact per worker (in 128 bits) and must fit the sum's type per worker
//! and in total; the regular aggregate checks per batch instead, so the
//! two agree whenever every partial sum of the values fits (always when
//! the values have one sign). Float sums may differ in the last bits (the
//! order of additions).

mod pairs;

use std::sync::atomic::Ordering;
use std::time::Instant;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::DataType;

use super::adapt::{self, Planned};
use super::aggregate::{ColumnCall, Func};
use super::run::{Run, Sink};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, HashAggregate, Result};
use pairs::{Accumulating, CallKind, FusedCall};
use tenon_kernels::{JoinInput, JoinKernel, JoinSide, JoinType, PairJoin};

/// An aggregation fused into the INNER join that is its input (see the
/// module docs): the compiled aggregate, and where each call reads.
#[derive(Debug)]
pub struct JoinAggregate {
    aggregate: HashAggregate,
    calls: Vec<FusedCall>,
}

impl JoinAggregate {
    /// The output schema (the aggregate's).
    pub fn schema(&self) -> &arrow_schema::SchemaRef {
        self.aggregate.schema()
    }

    /// One line for EXPLAIN:
    /// `JoinAggregate: aggs=[count(*), sum(a.p)] (aggregated from the join's pairs)`.
    pub fn describe(&self) -> String {
        let names: Vec<&str> = self.calls.iter().map(|c| c.name.as_ref()).collect();
        format!(
            "JoinAggregate: aggs=[{}] (aggregated from the join's pairs, no join output)",
            names.join(", ")
        )
    }
}

/// `plan` (a lowered node) with an `Aggregate` over an INNER join fused
/// into a [`JoinAggregate`] when the module docs' conditions hold;
/// otherwise `plan` as it is.
pub(super) fn fuse(plan: PhysicalPlan) -> PhysicalPlan {
    let PhysicalPlan {
        operator,
        schema,
        metrics,
        budget,
        spill,
        runtime_filters,
    } = plan;
    let rebuilt = move |operator| PhysicalPlan {
        operator,
        schema,
        metrics,
        budget,
        spill,
        runtime_filters,
    };
    let Operator::Aggregate { input, aggregate } = operator else {
        return rebuilt(operator);
    };
    let Some(calls) = fusable(&input, &aggregate) else {
        return rebuilt(Operator::Aggregate { input, aggregate });
    };
    let join = strip_projections(*input);
    rebuilt(Operator::JoinAggregate {
        input: Box::new(join),
        aggregate: Box::new(JoinAggregate {
            aggregate: *aggregate,
            calls,
        }),
    })
}

/// Each call of `aggregate` as it reads the inputs of the join under
/// `input`, when the aggregation can be fused there.
fn fusable(input: &PhysicalPlan, aggregate: &HashAggregate) -> Option<Vec<FusedCall>> {
    let calls = aggregate.column_calls()?;
    // Column-only projections between the aggregate and the join.
    let mut node = input;
    let mut maps: Vec<&[crate::expr::PhysicalExpr]> = Vec::new();
    while let Operator::Project { input, exprs } = &node.operator {
        maps.push(exprs);
        node = input;
    }
    let Operator::Join {
        left,
        right,
        join,
        decision,
    } = &node.operator
    else {
        return None;
    };
    if decision.join_type != JoinType::Inner
        || join.join_type() != JoinType::Inner
        || decision.time_join.is_some()
        || join.paired().is_none()
    {
        return None;
    }
    let options = join.options();
    let left_cols: Vec<usize> = match &options.left_projection {
        Some(p) => p.clone(),
        None => (0..left.schema.fields().len()).collect(),
    };
    let right_cols: Vec<usize> = match &options.right_projection {
        Some(p) => p.clone(),
        None => (0..right.schema.fields().len()).collect(),
    };
    let source = |c: usize| -> Option<(JoinSide, usize, DataType)> {
        let mut c = c;
        for exprs in &maps {
            c = exprs.get(c)?.as_column()?;
        }
        let (side, col, plan) = match left_cols.get(c) {
            Some(&l) => (JoinSide::Left, l, left),
            None => (
                JoinSide::Right,
                *right_cols.get(c - left_cols.len())?,
                right,
            ),
        };
        let t = plan.schema.fields().get(col)?.data_type().clone();
        Some((side, col, t))
    };
    calls
        .into_iter()
        .map(|call| fused_call(call, &source))
        .collect()
}

/// One call, fused, if its function takes its column's type here.
fn fused_call(
    call: ColumnCall,
    source: &impl Fn(usize) -> Option<(JoinSide, usize, DataType)>,
) -> Option<FusedCall> {
    let Some(column) = call.column else {
        return (call.func == Func::Count).then_some(FusedCall {
            name: call.name,
            kind: CallKind::Rows,
            side: JoinSide::Left,
            column: 0,
            data_type: DataType::Null,
            input: call.input,
        });
    };
    let (side, col, data_type) = source(column)?;
    let kind = CallKind::of(call.func, &data_type, &call.input, &call.produces)?;
    Some(FusedCall {
        name: call.name,
        kind,
        side,
        column: col,
        data_type,
        input: call.input,
    })
}

/// The join under column-only projections.
fn strip_projections(plan: PhysicalPlan) -> PhysicalPlan {
    match plan.operator {
        Operator::Project { input, .. } => strip_projections(*input),
        operator => PhysicalPlan { operator, ..plan },
    }
}

impl Run<'_> {
    /// Runs a [`JoinAggregate`] node: its join with a pair consumer, then
    /// the one output row into `sink`.
    pub(super) fn join_aggregate(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        let internal = |what: &str| ExecError::Unsupported(format!("internal: {what}"));
        let Operator::JoinAggregate { input, aggregate } = &plan.operator else {
            return Err(internal("not a join aggregate"));
        };
        let Operator::Join {
            left,
            right,
            join,
            decision,
        } = &input.operator
        else {
            return Err(internal("a join aggregate without its join"));
        };
        // The kernel stops when the run is cancelled.
        let mut tracked = join.clone();
        tracked.options_mut().cancel = self.cancel.clone();
        let join = &tracked;
        let paired = join
            .paired()
            .ok_or_else(|| internal("a join aggregate whose kernel hands out no pairs"))?;
        let acc = Accumulating::new(&aggregate.calls);
        let started = Instant::now();
        let run = |kernel: &dyn PairJoin,
                   l: &JoinInput,
                   r: &JoinInput,
                   feed: Option<&tenon_kernels::ProbeFeed<'_>>| {
            kernel
                .for_each_pair(l, r, feed, &acc)
                .map_err(ExecError::from)
        };
        match join.fed() {
            None => {
                let (l, r) = rayon::join(
                    || self.collect(plan, left, "the join's collected left input"),
                    || self.collect(plan, right, "the join's collected right input"),
                );
                let (l, r) = (l?, r?);
                let l = JoinInput::new(left.schema.clone(), l.batches);
                let r = JoinInput::new(right.schema.clone(), r.batches);
                run(paired, &l, &r, None)?;
            }
            Some(fed) => {
                let (build_plan, probe_plan) = match paired.build_side() {
                    JoinSide::Left => (left, right),
                    JoinSide::Right => (right, left),
                };
                let build_held = self.collect(plan, build_plan, "the hash join's build side")?;
                let build = JoinInput::new(build_plan.schema.clone(), build_held.batches);
                let planned = Planned::of(decision);
                let sides = |probe| match paired.build_side() {
                    JoinSide::Left => (&build, probe),
                    JoinSide::Right => (probe, &build),
                };
                let known = adapt::known_rows(probe_plan, self.tables);
                if adapt::needs_probe_collected(planned, fed, build.num_rows(), known) {
                    let held =
                        self.collect(plan, probe_plan, "the hash join's collected probe side")?;
                    let probe = JoinInput::new(probe_plan.schema.clone(), held.batches);
                    let kernel = adapt::adapted_join(
                        planned,
                        join,
                        build.num_rows(),
                        probe.num_rows(),
                        &input.metrics,
                    );
                    let adapted = kernel
                        .paired()
                        .ok_or_else(|| internal("an adapted join that hands out no pairs"))?;
                    let (l, r) = sides(&probe);
                    run(adapted, l, r, None)?;
                } else {
                    let probe = JoinInput::new(probe_plan.schema.clone(), Vec::new());
                    let (l, r) = sides(&probe);
                    run(
                        paired,
                        l,
                        r,
                        Some(&|push| {
                            self.push(probe_plan, &|b: RecordBatch| {
                                push(b).map_err(ExecError::from)
                            })
                            .map_err(ExecError::into_kernel)
                        }),
                    )?;
                }
            }
        }
        input.metrics.add_time(started.elapsed());
        input.metrics.rows.fetch_add(acc.pairs(), Ordering::Relaxed);
        let start = Instant::now();
        let partials: Vec<Vec<Vec<ArrayRef>>> = acc.into_states()?;
        let batch = aggregate.aggregate.merge_states(&partials)?;
        plan.metrics.add_time(start.elapsed());
        plan.metrics.record(&batch);
        sink(batch)
    }
}
