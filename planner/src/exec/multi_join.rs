//! Running a multi-way join ([`Operator::MultiJoin`]): the inputs after
//! the first are collected (in parallel) and grouped by key, then the
//! first input's pipeline pushes its batches straight through the groups,
//! on whatever worker produced them; the output streams on.

use std::time::Instant;

use arrow_array::RecordBatch;
use rayon::prelude::*;

use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};

impl Run<'_> {
    /// Runs multi-way join `plan` into `sink`.
    pub(super) fn multi_join(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        let Operator::MultiJoin { inputs, join, .. } = &plan.operator else {
            return Err(ExecError::Unsupported(
                "internal: a multi-way join's run got another operator".into(),
            ));
        };
        let Some((first, built)) = inputs.split_first() else {
            return Err(ExecError::Unsupported(
                "internal: a multi-way join without inputs".into(),
            ));
        };
        let mut collected = built
            .par_iter()
            .map(|input| self.collect(plan, input, "a multi-way join's grouped input"))
            .collect::<Result<Vec<_>>>()?;
        let start = Instant::now();
        let schemas: Vec<_> = inputs.iter().map(|p| p.schema.clone()).collect();
        let batches: Vec<Vec<RecordBatch>> = collected
            .iter_mut()
            .map(|h| std::mem::take(&mut h.batches))
            .collect();
        let tables = join.build(&schemas, batches, &self.budget_of(plan))?;
        // the collected batches were copied into the groups' batches
        drop(collected);
        plan.metrics.add_time(start.elapsed());
        self.push(first, &|b: RecordBatch| {
            let start = Instant::now();
            let probed = tables.probe(&b, &mut |out| sink(out).map_err(ExecError::into_kernel));
            plan.metrics.add_time(start.elapsed());
            probed.map_err(ExecError::from)
        })
    }
}
