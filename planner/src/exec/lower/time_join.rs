//! Lowering a temporal or as-of join (docs/time.md) onto the as-of kernel:
//! the equi keys, the two times (cast to the type they are compared as)
//! and the tombstone bound to physical columns, the residual compiled over
//! the pair layout, and the kernel's mode, filter timing and time rule set
//! as the decision and the join's kind say.

use datafusion_common::DFSchema;
use datafusion_expr::logical_plan::Join as LogicalJoin;
use datafusion_expr::{Cast, Expr, ExprSchemable};

use super::join::{Sides, joined, pair_filter, with_keys};
use super::{Lowered, Lowering, union};
use crate::choose::JoinChoice;
use crate::exec::{ExecError, Result};
use crate::expr::PhysicalExpr;
use crate::sql::{TimeJoin, TimeJoinKind};
use tenon_kernels::{
    AsofJoin, AsofMode, FilterTiming, Join, JoinKernel, JoinType, RangeCondition, Strategy,
};

/// `e` cast to `to` when its type differs.
fn cast_to(e: &Expr, schema: &DFSchema, to: &arrow_schema::DataType) -> Result<Expr> {
    let t = e
        .get_type(schema)
        .map_err(|err| ExecError::Unsupported(format!("the type of `{e}`: {err}")))?;
    Ok(if &t == to {
        e.clone()
    } else {
        Expr::Cast(Cast::new(Box::new(e.clone()), to.clone()))
    })
}

impl Lowering<'_> {
    pub(super) fn time_join(
        &mut self,
        join: &LogicalJoin,
        time: TimeJoin,
        choice: JoinChoice,
        need: &[usize],
    ) -> Result<Lowered> {
        let (lschema, rschema) = (join.left.schema(), join.right.schema());
        let (lw, rw) = (lschema.fields().len(), rschema.fields().len());
        let join_type = choice.join_type;
        if !matches!(join_type, JoinType::Inner | JoinType::Left) {
            return Err(ExecError::Unsupported(format!(
                "internal: {} as a {join_type} join",
                time.clause
            )));
        }
        let sides = Sides {
            has_left: true,
            left_width: lw,
        };
        let time_type = crate::sql::time_join_type(join, &time).map_err(ExecError::Unsupported)?;
        // every expression one side's kernel columns are made of: the keys,
        // then the left time, or the right time and the tombstone
        let mut lexprs = Vec::new();
        let mut rexprs = Vec::new();
        for (l, r) in &join.on {
            lexprs.push(PhysicalExpr::compile(l, lschema, self.ctx)?);
            rexprs.push(PhysicalExpr::compile(r, rschema, self.ctx)?);
        }
        let nkeys = lexprs.len();
        if let (Some(l), Some(t)) = (&time.left_time, &time_type) {
            lexprs.push(PhysicalExpr::compile(
                &cast_to(l, lschema, t)?,
                lschema,
                self.ctx,
            )?);
        }
        if let (Some(r), Some(t)) = (&time.right_time, &time_type) {
            rexprs.push(PhysicalExpr::compile(
                &cast_to(r, rschema, t)?,
                rschema,
                self.ctx,
            )?);
        }
        if let Some(t) = &time.tombstone {
            rexprs.push(PhysicalExpr::compile(t, rschema, self.ctx)?);
        }
        let combined: DFSchema = lschema.join(rschema).map_err(|e| {
            ExecError::Unsupported(format!("the join's inputs have clashing columns: {e}"))
        })?;
        let residual = time
            .residual
            .as_ref()
            .map(|p| PhysicalExpr::compile(p, &combined, self.ctx))
            .transpose()?;
        // the columns each input must produce
        let mut lneed = union(sides.columns_of(need, true).collect(), []);
        let mut rneed = union(sides.columns_of(need, false).collect(), []);
        for e in &lexprs {
            lneed = union(lneed, e.columns());
        }
        for e in &rexprs {
            rneed = union(rneed, e.columns());
        }
        if let Some(p) = &residual {
            for c in p.columns() {
                if c < lw {
                    lneed = union(lneed, [c]);
                } else {
                    rneed = union(rneed, [c - lw]);
                }
            }
        }
        let left = self.child(&join.left, &lneed)?;
        let right = self.child(&join.right, &rneed)?;
        let (lpos, rpos) = (left.positions(lw), right.positions(rw));
        let (left_plan, lidx) = with_keys(left.plan, &lexprs, &lpos);
        let (right_plan, ridx) = with_keys(right.plan, &rexprs, &rpos);
        let on: Vec<(usize, usize)> = lidx[..nkeys]
            .iter()
            .copied()
            .zip(ridx[..nkeys].iter().copied())
            .collect();
        let right_time = time.right_time.as_ref().map(|_| ridx[nkeys]);
        let tombstone = time
            .tombstone
            .as_ref()
            .map(|_| ridx[nkeys + usize::from(right_time.is_some())]);
        let mut kernel = match (time.kind, right_time) {
            (TimeJoinKind::Latest, rt) => AsofJoin::latest(join_type, on, rt),
            (_, Some(rt)) => {
                AsofJoin::new(join_type, on, RangeCondition::new(lidx[nkeys], time.op, rt))
            }
            (_, None) => {
                return Err(ExecError::Unsupported(format!(
                    "internal: {} without a version time",
                    time.clause
                )));
            }
        };
        kernel = kernel
            .mode(match choice.strategy {
                Strategy::ShuffleMerge => AsofMode::Partitioned,
                _ => AsofMode::Broadcast,
            })
            .filter_timing(if time.kind.filters_after_choice() {
                FilterTiming::AfterChoice
            } else {
                FilterTiming::BeforeChoice
            })
            .tombstone(tombstone)
            .batch_size(self.config.batch_size)
            .threads(0);
        if let Some(residual) = &residual {
            kernel = kernel.filter(pair_filter(
                residual,
                &left_plan,
                &right_plan,
                &lpos,
                &rpos,
            )?);
        }
        let lproj = sides.columns_of(need, true).map(|i| lpos[i]).collect();
        let rproj = sides.columns_of(need, false).map(|i| rpos[i]).collect();
        let kernel = Join::from(kernel)
            .memory(self.budget.clone())
            .projection(Some(lproj), Some(rproj));
        joined(left_plan, right_plan, kernel, choice, need)
    }
}
