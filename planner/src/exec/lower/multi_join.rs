//! Lowering a MULTI_JOIN group ([`MultiJoinGroup`]) to one
//! [`Operator::MultiJoin`]: the chain's join nodes are found below its top
//! join (each the left input of the one above, as the chooser checked),
//! every input is lowered with the columns the output needs and its key
//! columns, and the kernel is configured with the group's keys and steps.

use datafusion_expr::logical_plan::Join as LogicalJoin;
use datafusion_expr::{Expr, LogicalPlan};

use super::join::with_keys;
use super::{Lowered, Lowering, union};
use crate::choose::{JoinChoice, MultiJoinGroup};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, Result};
use crate::expr::PhysicalExpr;
use tenon_kernels::{MultiJoin, MultiJoinStep};

impl Lowering<'_> {
    /// The multi-way join of `group`, whose top join is `top`, producing
    /// the logical columns `need` of `top`.
    pub(super) fn multi_join(
        &mut self,
        top: &LogicalJoin,
        group: &MultiJoinGroup,
        need: &[usize],
    ) -> Result<Lowered> {
        let n = group.names.len();
        let internal = |what: &str| {
            ExecError::Unsupported(format!("internal: the joins of {} {what}", group.hint))
        };
        // the chain's joins, bottom-up
        let mut nodes: Vec<&LogicalJoin> = vec![top];
        while nodes.len() + 1 < n {
            match nodes.last().map(|j| j.left.as_ref()) {
                Some(LogicalPlan::Join(j)) => nodes.push(j),
                _ => return Err(internal("are not a chain of joins")),
            }
        }
        nodes.reverse();
        if group.keys.len() != n || group.steps.len() + 1 != n {
            return Err(internal("do not describe every input"));
        }
        let mut inputs: Vec<&LogicalPlan> = vec![nodes[0].left.as_ref()];
        inputs.extend(nodes.iter().map(|j| j.right.as_ref()));
        // `top`'s output is the inputs' columns side by side
        let mut offset = 0;
        let mut plans = Vec::with_capacity(n);
        let mut keys = Vec::with_capacity(n);
        let mut projections = Vec::with_capacity(n);
        let mut cols = Vec::with_capacity(need.len());
        for (i, input) in inputs.iter().enumerate() {
            let schema = input.schema();
            let width = schema.fields().len();
            let mine: Vec<usize> = need
                .iter()
                .filter(|&&c| c >= offset && c < offset + width)
                .map(|&c| c - offset)
                .collect();
            let key_exprs = group.keys[i]
                .iter()
                .map(|c| PhysicalExpr::compile(&Expr::Column(c.clone()), schema, self.ctx))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let mut wanted = union(mine.clone(), []);
            for k in &key_exprs {
                wanted = union(wanted, k.columns());
            }
            let lowered = self.child(input, &wanted)?;
            let pos = lowered.positions(width);
            let (plan, key_idx) = with_keys(lowered.plan, &key_exprs, &pos);
            projections.push(mine.iter().map(|&c| pos[c]).collect::<Vec<_>>());
            cols.extend(mine.iter().map(|&c| c + offset));
            keys.push(key_idx);
            plans.push(plan);
            offset += width;
        }
        let steps = group
            .steps
            .iter()
            .map(|(t, refers)| MultiJoinStep::new(*t, refers.clone()))
            .collect();
        let kernel = MultiJoin::new(keys, steps)?
            .projections(projections)
            .batch_size(self.config.batch_size);
        let schemas: Vec<_> = plans
            .iter()
            .map(|p: &PhysicalPlan| p.schema.clone())
            .collect();
        let schema = kernel.output_schema(&schemas)?;
        let decisions = group
            .joins
            .iter()
            .map(|&d| {
                self.plan
                    .joins
                    .get(d)
                    .map(JoinChoice::from)
                    .ok_or_else(|| internal("have no decision"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Lowered {
            plan: PhysicalPlan::new(
                Operator::MultiJoin {
                    inputs: plans,
                    join: Box::new(kernel),
                    decisions,
                    text: describe(group),
                },
                schema,
            ),
            cols,
        })
    }
}

/// `MULTI_JOIN(t1, t2, t3) on=[t1.id, t2.id, t3.id] t1, INNER t2, LEFT t3`.
fn describe(group: &MultiJoinGroup) -> String {
    let keys: Vec<String> = group
        .keys
        .iter()
        .map(|k| {
            k.iter()
                .map(|c| c.flat_name())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut chain = vec![group.names[0].clone()];
    for (name, (t, _)) in group.names[1..].iter().zip(&group.steps) {
        chain.push(format!("{t} {name}"));
    }
    format!(
        "{} on=[{}] {}",
        group.hint,
        keys.join(", "),
        chain.join(", ")
    )
}
