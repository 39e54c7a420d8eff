//! The adaptive build side (module `exec::adapt`) of a hash join whose
//! build side did not fit the memory limit.
//!
//! Without a limit, a join whose planner's choice may change its build
//! side collects its probe side too once the build side turns out large,
//! and builds the smaller of the two. Under a limit the build side is
//! partitioned and partly spilled by then; an INNER join then collects its
//! probe side under the limit (in memory while it fits, else in a spill
//! file). When it has fewer rows and fits (beside the held partitions,
//! or alone once they are written out) it is built instead, and the
//! build side's rows (the partitions held in memory, then the spill files)
//! are probed into it: a filtered 20,000-row side no longer waits for 60
//! million rows to be spilled and joined partition by partition (TPC-H
//! Q18). Otherwise the grace join runs with the collected probe rows.
//!
//! Only INNER joins adapt here: another type's build-side rows (the held
//! partitions, the spilled ones, the NULL keys set aside) are decided in
//! different places, which the swap would have to gather.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use rayon::prelude::*;

use super::file::SpillFile;
use super::hash_join::{Parted, SpillJoin, expansion};
use super::spool::Spooled;
use crate::exec::adapt::{self, Planned};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};
use tenon_kernels::{
    Join, JoinInput, JoinKernel, JoinSide, JoinType, MemoryReservation, batch_bytes,
};

/// Where a spilling hash join's probe rows come from.
pub(in crate::exec) enum ProbeRows<'a> {
    /// The probe side's pipeline, run as its rows are joined.
    Plan(&'a PhysicalPlan),
    /// The probe side collected before, with its schema.
    Spooled(Spooled, SchemaRef),
}

impl ProbeRows<'_> {
    pub(super) fn schema(&self) -> SchemaRef {
        match self {
            ProbeRows::Plan(plan) => plan.schema.clone(),
            ProbeRows::Spooled(_, schema) => schema.clone(),
        }
    }
}

/// A partitioned build side's rows: the partitions held in memory (charged
/// to `_charge`, held until they are joined) and the files of the others
/// and of the rows set aside.
struct PartedRows {
    batches: Vec<RecordBatch>,
    files: Vec<SpillFile>,
    _charge: MemoryReservation,
    schema: SchemaRef,
}

fn rows_of(parted: Parted) -> Result<PartedRows> {
    let mut batches = Vec::new();
    let mut files = Vec::new();
    for part in parted.parts {
        match part.file {
            Some(w) => files.push(w.finish()?),
            None => batches.extend(part.batches),
        }
    }
    if let Some(w) = parted.set_aside {
        files.push(w.finish()?);
    }
    Ok(PartedRows {
        batches,
        files,
        _charge: parted.charge,
        schema: parted.schema,
    })
}

/// Whether `plan` may give fewer rows than the tables it reads: anything
/// but a scan (or a projection of one) without runtime filters other than
/// the join's own (`own`: their numbers; a build side that spilled makes
/// none).
fn may_shrink(plan: &PhysicalPlan, own: &[usize]) -> bool {
    if plan
        .runtime_filters
        .applied
        .iter()
        .any(|f| !own.contains(&f.id))
    {
        return true;
    }
    match &plan.operator {
        Operator::Scan { .. } | Operator::Values { .. } => false,
        Operator::Project { input, .. } => may_shrink(input, own),
        _ => true,
    }
}

impl Run<'_> {
    /// Pushes `probe`'s rows into `sink`, from the worker threads.
    pub(super) fn push_probe(&self, probe: &ProbeRows<'_>, sink: &Sink<'_>) -> Result<()> {
        match probe {
            ProbeRows::Plan(plan) => self.push(plan, sink),
            ProbeRows::Spooled(Spooled::Memory { batches, .. }, _) => {
                batches.par_iter().try_for_each(|b| sink(b.clone()))
            }
            ProbeRows::Spooled(Spooled::Disk(file), _) => {
                file.read()?.par_bridge().try_for_each(|b| sink(b?))
            }
        }
    }

    /// Whether the spilled build side of `kernel` (an INNER join the
    /// planner chose by default, `planned`; the node of `join`) may still
    /// change: when its probe side (`probe_plan`) may give fewer rows than
    /// its tables hold
    /// (see [`may_shrink`]). A probe side that is a table read whole has
    /// its size known to the planner, which built the smaller side; it
    /// streams, as collecting it first would only write it to disk once
    /// more.
    pub(in crate::exec) fn adapts_spilled(
        join: &SpillJoin<'_>,
        (kernel, planned): (&Join, Planned),
        parted: &Parted,
        probe_plan: &PhysicalPlan,
    ) -> bool {
        let own: Vec<usize> = join
            .plan
            .runtime_filters
            .produced
            .iter()
            .map(|f| f.id)
            .collect();
        may_shrink(probe_plan, &own)
            && kernel.join_type() == JoinType::Inner
            && kernel
                .fed()
                .is_some_and(|fed| adapt::may_adapt(planned, fed, parted.rows))
    }

    /// Runs `join` (`kernel`) whose build side spilled (`parted`) with its
    /// build side chosen again (see the module docs): its probe side
    /// (`probe_plan`) collected first and built when it is the smaller.
    pub(in crate::exec) fn adaptive_grace_join(
        &self,
        join: &SpillJoin<'_>,
        (kernel, planned): (&Join, Planned),
        mut parted: Box<Parted>,
        probe_plan: &PhysicalPlan,
        out: &Sink<'_>,
    ) -> Result<()> {
        let spooled = self.spool(
            join.plan,
            probe_plan,
            "the hash join's collected probe side",
            &expansion,
        )?;
        let schema = probe_plan.schema.clone();
        let probe_rows = match &spooled {
            Spooled::Memory { batches, .. } => batches.iter().map(|b| b.num_rows()).sum(),
            Spooled::Disk(file) => file.rows(),
        };
        if probe_rows >= parted.rows {
            return self.grace_join(join, parted, ProbeRows::Spooled(spooled, schema), out);
        }
        let (batches, bytes, mut charge) = match spooled {
            Spooled::Memory {
                batches,
                bytes,
                charge,
            } => (batches, bytes, charge),
            Spooled::Disk(file) => {
                // It did not fit beside the held partitions: they go to
                // disk, and it is read back when it fits alone.
                let metrics = &join.plan.metrics;
                for p in 0..parted.parts.len() {
                    if parted.parts[p].file.is_none() && !parted.parts[p].batches.is_empty() {
                        parted.spill_part(self, metrics, p)?;
                    }
                }
                let mut charge = self
                    .budget_of(join.plan)
                    .try_reserve("the hash join's collected probe side", 0)?;
                if charge
                    .grow_spillable(expansion(file.bytes(), file.rows()))
                    .is_err()
                {
                    drop(charge);
                    let probe = ProbeRows::Spooled(Spooled::Disk(file), schema);
                    return self.grace_join(join, parted, probe, out);
                }
                let batches = file.read()?.collect::<Result<Vec<_>>>()?;
                let bytes = batches.iter().map(batch_bytes).sum();
                (batches, bytes, charge)
            }
        };
        let adapted =
            adapt::adapted_join(planned, kernel, parted.rows, probe_rows, &join.plan.metrics);
        let Some(fed) = adapted.fed() else {
            return Err(ExecError::Unsupported(
                "internal: an adapted hash join without a fed kernel".into(),
            ));
        };
        // The kernel charges its own copy and table.
        charge.shrink(charge.size().saturating_sub(bytes));
        let old = rows_of(*parted)?;
        let build = JoinInput::new(schema, batches);
        let probe = JoinInput::new(old.schema.clone(), Vec::new());
        let (l, r) = match fed.build_side() {
            JoinSide::Left => (&build, &probe),
            JoinSide::Right => (&probe, &build),
        };
        let feed = |push: &(dyn Fn(RecordBatch) -> tenon_kernels::Result<()> + Sync)| {
            old.batches.par_iter().try_for_each(|b| push(b.clone()))?;
            old.files.par_iter().try_for_each(|f| {
                let reader = f.read().map_err(ExecError::into_kernel)?;
                reader
                    .par_bridge()
                    .try_for_each(|b| push(b.map_err(ExecError::into_kernel)?))
            })
        };
        let start = std::time::Instant::now();
        let result = fed.for_each_fed(l, r, &feed, &|b| out(b).map_err(ExecError::into_kernel));
        join.plan.metrics.add_time(start.elapsed());
        drop((old, charge));
        result.map_err(ExecError::from)
    }
}
