//! Lowering a join: keys bound to physical columns (computed keys appended
//! by a projection), the predicate compiled over the pair layout, and the
//! kernel configured from the chooser's decision.

use std::sync::Arc;

use arrow_schema::Field;
use datafusion_common::NullEquality;
use datafusion_expr::Expr;
use datafusion_expr::logical_plan::Join as LogicalJoin;

use super::ranges::split_ranges;
use super::{Lowered, Lowering, bind, column_expr, schema_of, union};
use crate::choose::{PlannedJoin, kernel_join_type};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, Result};
use crate::expr::{ExprJoinFilter, PhysicalExpr};
use crate::hints::DecisionSource;
use crate::kernels::{
    HashJoin, HashJoinMode, Join, JoinKernel, JoinSide, JoinType, NestedLoopJoin, RangeCondition,
    SortMergeJoin, Strategy,
};
use crate::sql::PlanPath;

impl Lowering<'_> {
    pub(super) fn join(
        &mut self,
        join: &LogicalJoin,
        path: &mut Vec<usize>,
        need: &[usize],
    ) -> Result<Lowered> {
        let join_type =
            kernel_join_type(join).map_err(|e| ExecError::Unsupported(e.to_string()))?;
        let owned;
        let decision: &PlannedJoin = match self.decisions.get(&PlanPath(path.clone())) {
            Some(d) => d,
            None => {
                owned = self.unblocked_decision(join, join_type, path);
                &owned
            }
        };
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let (lw, rw) = (lschema.fields().len(), rschema.fields().len());
        let (has_left, _) = join_type.output_sides();
        // Logical output column -> (left side?, column of that side).
        let side_of = |c: usize| {
            if has_left && c < lw {
                (true, c)
            } else {
                (false, c - if has_left { lw } else { 0 })
            }
        };
        let null_equal = join.null_equality == NullEquality::NullEqualsNull;
        let combined = lschema.join(rschema).map_err(|e| {
            ExecError::Unsupported(format!("the join's inputs have clashing columns: {e}"))
        })?;

        // Keys and predicate, over the full logical inputs.
        let mut lkeys = Vec::with_capacity(join.on.len());
        let mut rkeys = Vec::with_capacity(join.on.len());
        for (l, r) in &join.on {
            lkeys.push(PhysicalExpr::compile(l, lschema, self.ctx)?);
            rkeys.push(PhysicalExpr::compile(r, rschema, self.ctx)?);
        }
        let nested = decision.strategy == Strategy::NestLoop;
        // NEST_LOOP has no keys: the equalities join the predicate.
        let predicate_expr: Option<Expr> = if nested && !join.on.is_empty() {
            let eqs = join.on.iter().map(|(l, r)| {
                if null_equal {
                    Expr::BinaryExpr(datafusion_expr::BinaryExpr::new(
                        Box::new(l.clone()),
                        datafusion_expr::Operator::IsNotDistinctFrom,
                        Box::new(r.clone()),
                    ))
                } else {
                    l.clone().eq(r.clone())
                }
            });
            eqs.chain(join.filter.clone()).reduce(Expr::and)
        } else {
            join.filter.clone()
        };
        // Range conditions (NEST_LOOP, SHUFFLE_MERGE) come out of the
        // predicate; the rest is the residual filter.
        let use_ranges = matches!(
            decision.strategy,
            Strategy::NestLoop | Strategy::ShuffleMerge
        ) && join_type != JoinType::LeftAntiNullAware;
        let (range_specs, residual_expr) = match (&predicate_expr, use_ranges) {
            (Some(p), true) => split_ranges(p, lschema, rschema, self.ctx),
            (p, _) => (Vec::new(), p.clone()),
        };
        let predicate = residual_expr
            .as_ref()
            .map(|p| PhysicalExpr::compile(p, &combined, self.ctx))
            .transpose()?;
        if nested {
            lkeys.clear();
            rkeys.clear();
        }

        // Columns each side must produce.
        let mut lneed = Vec::new();
        let mut rneed = Vec::new();
        for &c in need {
            match side_of(c) {
                (true, i) => lneed.push(i),
                (false, i) => rneed.push(i),
            }
        }
        let (mut lneed, mut rneed) = (union(lneed, []), union(rneed, []));
        for k in lkeys.iter().chain(range_specs.iter().map(|r| &r.left)) {
            lneed = union(lneed, k.columns());
        }
        for k in rkeys.iter().chain(range_specs.iter().map(|r| &r.right)) {
            rneed = union(rneed, k.columns());
        }
        if let Some(p) = &predicate {
            for c in p.columns() {
                if c < lw {
                    lneed = union(lneed, [c]);
                } else {
                    rneed = union(rneed, [c - lw]);
                }
            }
        }
        let left = self.child(&join.left, path, 0, &lneed)?;
        let right = self.child(&join.right, path, 1, &rneed)?;
        let (lpos, rpos) = (left.positions(lw), right.positions(rw));

        // Key columns: plain columns are used in place; computed keys (casts)
        // are appended to their side by a projection.
        // Range sides are appended the same way.
        let nkeys = lkeys.len();
        lkeys.extend(range_specs.iter().map(|r| r.left.clone()));
        rkeys.extend(range_specs.iter().map(|r| r.right.clone()));
        let (left_plan, lidx) = with_keys(left.plan, &lkeys, &lpos);
        let (right_plan, ridx) = with_keys(right.plan, &rkeys, &rpos);
        let left_width = left_plan.schema.fields().len();
        let on: Vec<(usize, usize)> = lidx[..nkeys]
            .iter()
            .copied()
            .zip(ridx[..nkeys].iter().copied())
            .collect();
        let ranges: Vec<RangeCondition> = range_specs
            .iter()
            .enumerate()
            .map(|(i, r)| RangeCondition::new(lidx[nkeys + i], r.op, ridx[nkeys + i]))
            .collect();

        // The predicate over the physical pair layout.
        let map_pair = |c: usize| {
            if c < lw {
                lpos[c]
            } else {
                left_width + rpos[c - lw]
            }
        };
        let mut filter = None;
        if let Some(residual) = &predicate {
            let bound = residual.remap_columns(&map_pair);
            let fields: Vec<Field> = left_plan
                .schema
                .fields()
                .iter()
                .chain(right_plan.schema.fields().iter())
                .map(|f| f.as_ref().clone())
                .collect();
            filter = Some(Arc::new(ExprJoinFilter::from_physical(
                bound, &fields, left_width,
            )?));
        }

        // Output: the needed columns of each side, in need order.
        let lproj: Vec<usize> = need
            .iter()
            .filter_map(|&c| match side_of(c) {
                (true, i) => Some(lpos[i]),
                _ => None,
            })
            .collect();
        let rproj: Vec<usize> = need
            .iter()
            .filter_map(|&c| match side_of(c) {
                (false, i) => Some(rpos[i]),
                _ => None,
            })
            .collect();
        let threads = 0; // the executor's pool
        let batch_size = self.config.batch_size;
        let build_side = decision.build_side.unwrap_or(JoinSide::Right);
        let mut kernel: Join = match decision.strategy {
            Strategy::Broadcast | Strategy::ShuffleHash => {
                let mode = if decision.strategy == Strategy::Broadcast {
                    HashJoinMode::Broadcast
                } else {
                    HashJoinMode::Partitioned
                };
                let mut j = HashJoin::new(join_type, on)
                    .mode(mode)
                    .build_side(build_side)
                    .null_equal(null_equal)
                    .batch_size(batch_size)
                    .threads(threads)
                    .memory(self.budget.clone());
                if let Some(f) = filter {
                    j = j.filter(f);
                }
                j.into()
            }
            Strategy::ShuffleMerge => {
                let mut j = SortMergeJoin::new(join_type, on)
                    .null_equal(null_equal)
                    .batch_size(batch_size)
                    .threads(threads)
                    .memory(self.budget.clone());
                if !ranges.is_empty() {
                    j = j.ranges(ranges);
                }
                if let Some(f) = filter {
                    j = j.filter(f);
                }
                j.into()
            }
            Strategy::NestLoop => {
                let mut j = NestedLoopJoin::new(join_type)
                    .build_side(build_side)
                    .batch_size(batch_size)
                    .threads(threads)
                    .memory(self.budget.clone());
                if !ranges.is_empty() {
                    j = j.ranges(ranges);
                }
                if let Some(f) = filter {
                    j = j.filter(f);
                }
                j.into()
            }
        };
        kernel = kernel.projection(Some(lproj), Some(rproj));
        let schema = kernel.output_schema(&left_plan.schema, &right_plan.schema)?;
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::Join {
                    left: Box::new(left_plan),
                    right: Box::new(right_plan),
                    join: kernel,
                    decision: Box::new(decision.clone()),
                },
                schema,
            ),
            cols: need.to_vec(),
        })
    }
}

impl Lowering<'_> {
    /// The decision for a join that belongs to no query block: the joins
    /// DataFusion makes of INTERSECT and EXCEPT. They take no hints; the
    /// strategy is the first of SHUFFLE_HASH, BROADCAST, SHUFFLE_MERGE
    /// that is not disabled (NEST_LOOP without keys or when all are).
    fn unblocked_decision(
        &self,
        join: &LogicalJoin,
        join_type: JoinType,
        path: &[usize],
    ) -> PlannedJoin {
        let disabled = &self.config.disabled_strategies;
        let strategy = if join.on.is_empty() {
            Strategy::NestLoop
        } else {
            [
                Strategy::ShuffleHash,
                Strategy::Broadcast,
                Strategy::ShuffleMerge,
            ]
            .into_iter()
            .find(|s| !disabled.contains(s))
            .unwrap_or(Strategy::NestLoop)
        };
        let op = match join.null_equality {
            NullEquality::NullEqualsNothing => "=",
            NullEquality::NullEqualsNull => "IS NOT DISTINCT FROM",
        };
        PlannedJoin {
            block: usize::MAX,
            path: PlanPath(path.to_vec()),
            strategy,
            join_type,
            build_side: (strategy != Strategy::ShuffleMerge).then_some(JoinSide::Right),
            build: None,
            left: None,
            right: None,
            keys: join
                .on
                .iter()
                .map(|(l, r)| format!("{l} {op} {r}"))
                .collect(),
            filter: join.filter.as_ref().map(ToString::to_string),
            reason: format!(
                "a set operation's join (INTERSECT / EXCEPT) takes no hints: {strategy}"
            ),
            source: DecisionSource::Default,
            ignored_hints: Vec::new(),
        }
    }
}

/// The physical column of each key on one side: plain columns where they
/// are, computed keys appended by a projection over the side.
fn with_keys(
    plan: PhysicalPlan,
    keys: &[PhysicalExpr],
    pos: &[usize],
) -> (PhysicalPlan, Vec<usize>) {
    let bound: Vec<PhysicalExpr> = keys.iter().map(|k| bind(k, pos)).collect();
    if bound.iter().all(|k| k.as_column().is_some()) {
        let idx = bound.iter().filter_map(PhysicalExpr::as_column).collect();
        return (plan, idx);
    }
    let width = plan.schema.fields().len();
    let mut exprs: Vec<PhysicalExpr> = (0..width)
        .map(|i| column_expr(&plan.schema, i, plan.schema.field(i).name()))
        .collect();
    let mut fields: Vec<Field> = plan
        .schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut idx = Vec::with_capacity(keys.len());
    for (n, k) in bound.into_iter().enumerate() {
        match k.as_column() {
            Some(i) => idx.push(i),
            None => {
                idx.push(exprs.len());
                fields.push(Field::new(format!("__key{n}"), k.data_type().clone(), true));
                exprs.push(k);
            }
        }
    }
    let plan = PhysicalPlan::new(
        Operator::Project {
            input: Box::new(plan),
            exprs,
        },
        schema_of(fields),
    );
    (plan, idx)
}
