//! Lowering a join: the chooser's decision read from the join node, the
//! condition compiled over the logical inputs, the inputs lowered with the
//! columns the join needs, keys bound to physical columns (computed keys
//! appended by a projection), the residual predicate compiled over the
//! pair layout, and the kernel configured as the decision says.
//!
//! Nothing here decides: the kernel, strategy and build side are
//! [`JoinChoice`]'s (a time join's kernel is built by `time_join.rs`), and
//! a join without a decision is an internal error.

use std::sync::Arc;

use arrow_schema::Field;
use datafusion_common::{DFSchema, NullEquality};
use datafusion_expr::logical_plan::Join as LogicalJoin;
use datafusion_expr::{BinaryExpr, Expr, Operator as DfOperator};

use super::ranges::{RangeSpec, split_ranges};
use super::{Lowered, Lowering, bind, column_expr, schema_of, union};
use crate::choose::{JoinChoice, JoinKind};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, Result};
use crate::expr::{ExprJoinFilter, PhysicalExpr};
use crate::lookup::LookupOptions;
use crate::sql::{TimeJoin, TimeJoinKind};
use tenon_kernels::{
    HashJoin, HashJoinMode, Join, JoinKernel, JoinType, NestedLoopJoin, RangeCondition,
    SortMergeJoin, Strategy,
};

/// A SHUFFLE_MERGE or NEST_LOOP kernel builder with its range conditions
/// (when there are any) and residual filter set, as a [`Join`].
macro_rules! with_condition {
    ($builder:expr, $ranges:expr, $filter:expr) => {{
        let mut j = $builder;
        if !$ranges.is_empty() {
            j = j.ranges($ranges);
        }
        match $filter {
            Some(f) => Join::from(j.filter(f)),
            None => Join::from(j),
        }
    }};
}

/// Which input a logical output column of the join comes from.
#[derive(Clone, Copy)]
pub(super) struct Sides {
    /// Whether the output has the left input's columns (not a right
    /// semi/anti join).
    pub(super) has_left: bool,
    /// The left input's width.
    pub(super) left_width: usize,
}

impl Sides {
    /// Logical output column `c` as (from the left input?, column of that
    /// input).
    fn of(self, c: usize) -> (bool, usize) {
        if self.has_left && c < self.left_width {
            (true, c)
        } else {
            (false, c - if self.has_left { self.left_width } else { 0 })
        }
    }

    /// The columns of one input that the output columns `need` read, in
    /// `need` order.
    pub(super) fn columns_of(self, need: &[usize], left: bool) -> impl Iterator<Item = usize> + '_ {
        need.iter().filter_map(move |&c| match self.of(c) {
            (l, i) if l == left => Some(i),
            _ => None,
        })
    }
}

/// A join's condition compiled over its logical inputs.
struct Condition {
    /// The equi keys over the left input (none for NEST_LOOP, whose keys
    /// join the predicate).
    left_keys: Vec<PhysicalExpr>,
    /// The equi keys over the right input.
    right_keys: Vec<PhysicalExpr>,
    /// The range conditions the kernel searches (NEST_LOOP, SHUFFLE_MERGE).
    ranges: Vec<RangeSpec>,
    /// The rest of the condition, over the pair of inputs (left columns
    /// first).
    residual: Option<PhysicalExpr>,
}

/// The physical form of a condition once both inputs are lowered.
struct BoundCondition {
    /// Each equi key as (left column, right column).
    on: Vec<(usize, usize)>,
    /// The range conditions over the inputs' columns.
    ranges: Vec<RangeCondition>,
    /// The residual predicate over the pair layout.
    filter: Option<Arc<ExprJoinFilter>>,
}

impl Lowering<'_> {
    pub(super) fn join(&mut self, join: &LogicalJoin, need: &[usize]) -> Result<Lowered> {
        if let Some(group) = self.plan.multi_join_of(join) {
            return self.multi_join(join, group, need);
        }
        let choice = self.choice_of(join)?;
        let time = TimeJoin::of(join).map_err(ExecError::Unsupported)?;
        match (choice.kernel, time) {
            (JoinKind::Asof, Some(time)) if time.kind == TimeJoinKind::Lookup => {
                let options = choice
                    .lookup
                    .unwrap_or_else(|| LookupOptions::defaults(&self.config.lookup));
                return self.lookup_join(join, time, choice, need, options);
            }
            (JoinKind::Asof, Some(time)) => return self.time_join(join, time, choice, need),
            (JoinKind::Asof, None) => {
                return Err(ExecError::Unsupported(
                    "internal: a join decided for the as-of kernel is not a time join".into(),
                ));
            }
            // a lookup join the chooser runs as a scan and a regular join
            // (choose/lookup_choice.rs): its condition without the marker
            (_, Some(time)) if time.kind == TimeJoinKind::Lookup => {
                let stripped = LogicalJoin {
                    filter: time.residual,
                    ..join.clone()
                };
                return self.regular_join(&stripped, choice, need);
            }
            (_, Some(_)) => {
                return Err(ExecError::Unsupported(
                    "internal: a time join not decided for the as-of kernel".into(),
                ));
            }
            _ => {}
        }
        self.regular_join(join, choice, need)
    }

    /// An equi, range or nested-loop join on one of the regular kernels.
    fn regular_join(
        &mut self,
        join: &LogicalJoin,
        choice: JoinChoice,
        need: &[usize],
    ) -> Result<Lowered> {
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let (lw, rw) = (lschema.fields().len(), rschema.fields().len());
        let sides = Sides {
            has_left: choice.join_type.output_sides().0,
            left_width: lw,
        };
        let condition = self.condition(join, &choice)?;
        let (lneed, rneed) = condition.input_columns(need, sides);
        let left = self.child(&join.left, &lneed)?;
        let right = self.child(&join.right, &rneed)?;
        let (lpos, rpos) = (left.positions(lw), right.positions(rw));
        let (left_plan, right_plan, bound) = condition.bind(left.plan, right.plan, &lpos, &rpos)?;
        let lproj = sides.columns_of(need, true).map(|i| lpos[i]).collect();
        let rproj = sides.columns_of(need, false).map(|i| rpos[i]).collect();
        let null_equal = join.null_equality == NullEquality::NullEqualsNull;
        let kernel = self
            .kernel(&choice, bound, null_equal)?
            .projection(Some(lproj), Some(rproj));
        joined(left_plan, right_plan, kernel, choice, need)
    }

    /// The decision the chooser made for `join`, found by the number the
    /// join node carries.
    pub(super) fn choice_of(&self, join: &LogicalJoin) -> Result<JoinChoice> {
        self.plan
            .decision_of(join)
            .map(JoinChoice::from)
            .ok_or_else(|| {
                ExecError::Unsupported(
                    "internal: a join of the plan has no decision (was the plan rewritten \
                     after choosing?)"
                        .into(),
                )
            })
    }

    /// Keys, range conditions and residual predicate, over the full
    /// logical inputs.
    fn condition(&self, join: &LogicalJoin, choice: &JoinChoice) -> Result<Condition> {
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let combined: DFSchema = lschema.join(rschema).map_err(|e| {
            ExecError::Unsupported(format!("the join's inputs have clashing columns: {e}"))
        })?;
        let nested = choice.strategy == Strategy::NestLoop;
        let mut left_keys = Vec::with_capacity(join.on.len());
        let mut right_keys = Vec::with_capacity(join.on.len());
        for (l, r) in &join.on {
            left_keys.push(PhysicalExpr::compile(l, lschema, self.ctx)?);
            right_keys.push(PhysicalExpr::compile(r, rschema, self.ctx)?);
        }
        // Range conditions (NEST_LOOP, SHUFFLE_MERGE) come out of the
        // predicate; the rest is the residual filter.
        let use_ranges = matches!(choice.strategy, Strategy::NestLoop | Strategy::ShuffleMerge)
            && choice.join_type != JoinType::LeftAntiNullAware;
        let predicate = predicate_expr(join, nested);
        let (ranges, residual) = match (&predicate, use_ranges) {
            (Some(p), true) => split_ranges(p, lschema, rschema, self.ctx),
            (p, _) => (Vec::new(), p.clone()),
        };
        let residual = residual
            .as_ref()
            .map(|p| PhysicalExpr::compile(p, &combined, self.ctx))
            .transpose()?;
        if nested {
            left_keys.clear();
            right_keys.clear();
        }
        Ok(Condition {
            left_keys,
            right_keys,
            ranges,
            residual,
        })
    }

    /// The kernel the decision names, configured with the bound condition.
    fn kernel(&self, choice: &JoinChoice, bound: BoundCondition, null_equal: bool) -> Result<Join> {
        let join_type = choice.join_type;
        let batch_size = self.config.batch_size;
        let threads = 0; // the executor's pool
        let build_side = || {
            choice.build_side.ok_or_else(|| {
                ExecError::Unsupported(format!(
                    "internal: a {} join without a build side",
                    choice.strategy
                ))
            })
        };
        let BoundCondition { on, ranges, filter } = bound;
        let kernel: Join = match choice.kernel {
            JoinKind::Hash => {
                let mode = if choice.strategy == Strategy::Broadcast {
                    HashJoinMode::Broadcast
                } else {
                    HashJoinMode::Partitioned
                };
                let j = HashJoin::new(join_type, on)
                    .mode(mode)
                    .build_side(build_side()?)
                    .null_equal(null_equal)
                    .batch_size(batch_size)
                    .threads(threads);
                match filter {
                    Some(f) => j.filter(f).into(),
                    None => j.into(),
                }
            }
            JoinKind::SortMerge => with_condition!(
                SortMergeJoin::new(join_type, on)
                    .null_equal(null_equal)
                    .batch_size(batch_size)
                    .threads(threads),
                ranges,
                filter
            ),
            JoinKind::NestedLoop => with_condition!(
                NestedLoopJoin::new(join_type)
                    .build_side(build_side()?)
                    .batch_size(batch_size)
                    .threads(threads),
                ranges,
                filter
            ),
            JoinKind::Asof => {
                return Err(ExecError::Unsupported(
                    "internal: the as-of kernel is built by the time join's lowering".into(),
                ));
            }
        };
        Ok(kernel.memory(self.budget.clone()))
    }
}

/// The join operator of `kernel` over the lowered inputs, producing the
/// logical columns `need`.
pub(super) fn joined(
    left: PhysicalPlan,
    right: PhysicalPlan,
    kernel: Join,
    choice: JoinChoice,
    need: &[usize],
) -> Result<Lowered> {
    let schema = kernel.output_schema(&left.schema, &right.schema)?;
    Ok(Lowered {
        plan: PhysicalPlan::new(
            Operator::Join {
                left: Box::new(left),
                right: Box::new(right),
                join: kernel,
                decision: choice,
            },
            schema,
        ),
        cols: need.to_vec(),
    })
}

/// The predicate the kernel evaluates besides its keys: the join's filter,
/// and for NEST_LOOP (which has no keys) the key equalities too.
fn predicate_expr(join: &LogicalJoin, nested: bool) -> Option<Expr> {
    if !nested || join.on.is_empty() {
        return join.filter.clone();
    }
    let null_equal = join.null_equality == NullEquality::NullEqualsNull;
    let eqs = join.on.iter().map(|(l, r)| {
        if null_equal {
            Expr::BinaryExpr(BinaryExpr::new(
                Box::new(l.clone()),
                DfOperator::IsNotDistinctFrom,
                Box::new(r.clone()),
            ))
        } else {
            l.clone().eq(r.clone())
        }
    });
    eqs.chain(join.filter.clone()).reduce(Expr::and)
}

impl Condition {
    /// The columns each input must produce: those the output `need`s, and
    /// those the keys, ranges and residual read.
    fn input_columns(&self, need: &[usize], sides: Sides) -> (Vec<usize>, Vec<usize>) {
        let mut lneed = union(sides.columns_of(need, true).collect(), []);
        let mut rneed = union(sides.columns_of(need, false).collect(), []);
        let ranges = &self.ranges;
        for k in self.left_keys.iter().chain(ranges.iter().map(|r| &r.left)) {
            lneed = union(lneed, k.columns());
        }
        for k in self
            .right_keys
            .iter()
            .chain(ranges.iter().map(|r| &r.right))
        {
            rneed = union(rneed, k.columns());
        }
        if let Some(p) = &self.residual {
            let lw = sides.left_width;
            for c in p.columns() {
                if c < lw {
                    lneed = union(lneed, [c]);
                } else {
                    rneed = union(rneed, [c - lw]);
                }
            }
        }
        (lneed, rneed)
    }

    /// Binds the condition to the lowered inputs, whose logical columns are
    /// at `lpos` and `rpos`: plain key columns are used in place, computed
    /// keys and range sides appended to their input by a projection, and
    /// the residual remapped to the pair layout.
    fn bind(
        self,
        left: PhysicalPlan,
        right: PhysicalPlan,
        lpos: &[usize],
        rpos: &[usize],
    ) -> Result<(PhysicalPlan, PhysicalPlan, BoundCondition)> {
        let nkeys = self.left_keys.len();
        let mut lkeys = self.left_keys;
        let mut rkeys = self.right_keys;
        lkeys.extend(self.ranges.iter().map(|r| r.left.clone()));
        rkeys.extend(self.ranges.iter().map(|r| r.right.clone()));
        let (left, lidx) = with_keys(left, &lkeys, lpos);
        let (right, ridx) = with_keys(right, &rkeys, rpos);
        let on = lidx[..nkeys]
            .iter()
            .copied()
            .zip(ridx[..nkeys].iter().copied())
            .collect();
        let ranges = self
            .ranges
            .iter()
            .enumerate()
            .map(|(i, r)| {
                RangeCondition::new(lidx[nkeys + i], r.op, ridx[nkeys + i]).with_offset(r.offset)
            })
            .collect();
        let filter = match &self.residual {
            Some(residual) => Some(pair_filter(residual, &left, &right, lpos, rpos)?),
            None => None,
        };
        let bound = BoundCondition { on, ranges, filter };
        Ok((left, right, bound))
    }
}

/// The residual predicate (over the logical pair, left columns first) as a
/// filter over the physical pair layout of `left` and `right`.
pub(super) fn pair_filter(
    residual: &PhysicalExpr,
    left: &PhysicalPlan,
    right: &PhysicalPlan,
    lpos: &[usize],
    rpos: &[usize],
) -> Result<Arc<ExprJoinFilter>> {
    let (lw, left_width) = (lpos.len(), left.schema.fields().len());
    let map_pair = |c: usize| {
        if c < lw {
            lpos[c]
        } else {
            left_width + rpos[c - lw]
        }
    };
    let bound = residual.remap_columns(&map_pair);
    let fields: Vec<Field> = left
        .schema
        .fields()
        .iter()
        .chain(right.schema.fields().iter())
        .map(|f| f.as_ref().clone())
        .collect();
    Ok(Arc::new(ExprJoinFilter::from_physical(
        bound, &fields, left_width,
    )?))
}

/// The physical column of each key on one side: plain columns where they
/// are, computed keys appended by a projection over the side.
pub(super) fn with_keys(
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
