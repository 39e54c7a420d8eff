//! Running a join operator on its kernel.
//!
//! A kernel that can take its probe side batch by batch
//! ([`JoinKernel::fed`]: the hash join) gets its build side collected, then
//! the probe side's pipeline pushes its batches straight into the probe, so
//! the probe side is never held whole (its batches are freed, and their
//! memory reused, as they are probed); the kernel itself collects them when
//! it partitions a large build side. Before that, the [`adapt`] step may
//! change the build side on the inputs' real sizes, and then both sides are
//! collected. The other kernels (sort-merge, nested loop) take both sides
//! collected; under a memory limit, through module `spill::collected`,
//! which spills what does not fit.
//!
//! Errors of the operators around the join (the sink above it, the probe
//! side's pipeline below it) travel through the kernel as
//! [`KernelError::External`](tenon_kernels::KernelError::External) and
//! come back as the executor's own error, with its source.
//!
//! Selective joins emit many small batches (one per probe morsel); the
//! operators above pay per batch, so the output is coalesced to the batch
//! size first.

use std::sync::Mutex;
use std::time::Instant;

use arrow_array::RecordBatch;

use super::adapt::{self, Planned};
use super::run::{Run, Sink, lock};
use super::spill::adaptive::ProbeRows;
use super::spill::collected;
use super::spill::hash_join::{Build, SpillJoin};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::{ExecError, Result};
use tenon_kernels::{FedProbe, Join, JoinInput, JoinKernel, JoinSide, KernelError, Strategy};

impl Run<'_> {
    /// Runs the join `plan`, pushing its output (coalesced) into `sink`.
    pub(super) fn join(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        let Operator::Join {
            left, right, join, ..
        } = &plan.operator
        else {
            return Err(ExecError::Unsupported("internal: not a join".into()));
        };
        // The kernel's tables and copies count as this join's memory.
        let mut tracked = join.clone();
        tracked.options_mut().memory = self.budget_of(plan);
        tracked.options_mut().cancel = self.cancel.clone();
        let join = &tracked;
        let metrics = &plan.metrics;
        let recorded = |b: RecordBatch| {
            metrics.record(&b);
            sink(b)
        };
        let coalesce = Coalesce::new(plan.schema.clone(), self.batch_size);
        let out = |b: RecordBatch| coalesce.push(b, &recorded);
        match join.fed() {
            Some(fed) => self.fed_join(plan, join, fed, &out)?,
            None => {
                let ordered = matches!(
                    &plan.operator,
                    Operator::Join { decision, .. } if decision.time_join.is_some()
                );
                if self.limited() && collected::spills(join, ordered) {
                    self.spilling_collected_join(plan, join, (left, right), ordered, &out)?;
                    return coalesce.flush(&recorded);
                }
                let (l, r) = rayon::join(
                    || self.collect(plan, left, "the join's collected left input"),
                    || {
                        if ordered {
                            self.in_order("the join's collected right input", || {
                                self.collect(plan, right, "the join's collected right input")
                            })
                        } else {
                            self.collect(plan, right, "the join's collected right input")
                        }
                    },
                );
                let (l, r) = (l?, r?);
                let l_in = JoinInput::new(left.schema.clone(), l.batches);
                let r_in = JoinInput::new(right.schema.clone(), r.batches);
                run_collected(plan, join, &l_in, &r_in, &out)?;
            }
        }
        coalesce.flush(&recorded)
    }

    /// `f` (which collects or spools a pipeline, `what`) run so that the
    /// pipeline's batches come in the order of its tables' rows: the
    /// right input of a temporal or as-of join, whose ties are broken by
    /// that order (docs/time.md). `f` runs on a pool of one thread, where
    /// rayon's parallel loops (the scans' morsels, a file table's files
    /// and row groups) run their items in order.
    pub(super) fn in_order<T: Send>(
        &self,
        what: &'static str,
        f: impl FnOnce() -> Result<T> + Send,
    ) -> Result<T> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "tenon-ordered".into())
            .build()
            .map_err(|e| ExecError::Unsupported(format!("starting a thread for {what}: {e}")))?;
        pool.install(f)
    }

    /// A join whose kernel takes its probe side batch by batch (see the
    /// module docs): the build side collected, then the probe side pushed,
    /// unless the adaptation step wants both sides' sizes first.
    fn fed_join(
        &self,
        plan: &PhysicalPlan,
        join: &Join,
        fed: &dyn FedProbe,
        out: &Sink<'_>,
    ) -> Result<()> {
        let Operator::Join { left, right, .. } = &plan.operator else {
            return Err(ExecError::Unsupported("internal: not a join".into()));
        };
        let build_plan = match fed.build_side() {
            JoinSide::Left => left,
            JoinSide::Right => right,
        };
        if self.limited() && collected::not_in_with_filter(join) {
            return self.spilling_collected_join(plan, join, (left, right), false, out);
        }
        const WHAT: &str = "the hash join's build side";
        // Under a memory limit a hash join spills what does not fit
        // (module `spill`).
        let spilling = fed.hash_join().filter(|_| self.limited());
        let build_held = match spilling {
            Some(hash) => {
                let spill_join = SpillJoin { plan, hash };
                match self.collect_build(&spill_join, build_plan, WHAT)? {
                    Build::Whole(held) => held,
                    Build::Parted(parted) => {
                        let probe_plan = match fed.build_side() {
                            JoinSide::Left => right,
                            JoinSide::Right => left,
                        };
                        if !plan.runtime_filters.produced.is_empty() {
                            let _ = plan
                                .metrics
                                .runtime_filters
                                .set("not made: the build side spilled to disk".into());
                        }
                        if let Operator::Join { decision, .. } = &plan.operator {
                            let planned = Planned::of(decision);
                            if Run::adapts_spilled(
                                &spill_join,
                                (join, planned),
                                &parted,
                                probe_plan,
                            ) {
                                return self.adaptive_grace_join(
                                    &spill_join,
                                    (join, planned),
                                    parted,
                                    probe_plan,
                                    out,
                                );
                            }
                        }
                        return self.grace_join(
                            &spill_join,
                            parted,
                            ProbeRows::Plan(probe_plan),
                            out,
                        );
                    }
                }
            }
            None => self.collect(plan, build_plan, WHAT)?,
        };
        let build = JoinInput::new(build_plan.schema.clone(), build_held.batches);
        // The build side is complete: its runtime filters are made now,
        // before any operator of the probe side runs.
        let made = self.filters.make(plan, &build, &self.budget_of(plan))?;
        // No build key at all: no probe row can match, and the probe side
        // adds nothing to the output (the join types with runtime filters).
        let skip_probe = adapt::skips_probe(
            plan.runtime_filters.skips_probe_when_empty,
            build.num_rows(),
            made.nothing_passes,
            &plan.metrics,
        );
        let result = self.fed_probe(plan, join, fed, &build, skip_probe, out);
        if let Some(summary) = made.summary() {
            let _ = plan.metrics.runtime_filters.set(summary);
        }
        drop(made);
        result
    }

    /// The probe half of [`Run::fed_join`], once the build side is held
    /// (and its runtime filters made): the probe side pushed into the
    /// kernel, or collected when the build side may change; not run at all
    /// with `skip_probe`.
    fn fed_probe(
        &self,
        plan: &PhysicalPlan,
        join: &Join,
        fed: &dyn FedProbe,
        build: &JoinInput,
        skip_probe: bool,
        out: &Sink<'_>,
    ) -> Result<()> {
        let Operator::Join {
            left,
            right,
            decision,
            ..
        } = &plan.operator
        else {
            return Err(ExecError::Unsupported("internal: not a join".into()));
        };
        let planned = Planned::of(decision);
        let probe_plan = match fed.build_side() {
            JoinSide::Left => right,
            JoinSide::Right => left,
        };
        let known = adapt::known_rows(probe_plan, self.tables);
        // Under a memory limit the probe side streams (a kernel that would
        // hold it whole runs in the broadcast mode instead): it is not
        // bounded by the budget, only the build side is.
        let broadcast;
        let fed: &dyn FedProbe = if self.limited() && fed.partitions_build(build.num_rows()) {
            broadcast = fed.building(fed.build_side(), Strategy::Broadcast);
            broadcast.fed().unwrap_or(fed)
        } else {
            fed
        };
        if !self.limited() && adapt::needs_probe_collected(planned, fed, build.num_rows(), known) {
            // (The held batches stay charged until the join is done.)
            let mut probe_held = if skip_probe {
                None
            } else {
                Some(self.collect(plan, probe_plan, "the hash join's collected probe side")?)
            };
            let batches = probe_held
                .as_mut()
                .map(|h| std::mem::take(&mut h.batches))
                .unwrap_or_default();
            let probe = JoinInput::new(probe_plan.schema.clone(), batches);
            // The inputs keep their sides; only the kernel's build side moves.
            let (l, r) = sides(fed.build_side(), build, &probe);
            let join = adapt::adapted_join(
                planned,
                join,
                build.num_rows(),
                probe.num_rows(),
                &plan.metrics,
            );
            return run_collected(plan, &join, l, r, out);
        }
        let probe = JoinInput::new(probe_plan.schema.clone(), Vec::new());
        let (l, r) = sides(fed.build_side(), build, &probe);
        let metrics = &plan.metrics;
        // The join's time: the build (until the feed starts), each probe
        // call, and the end (after the feed returns).
        let started = Instant::now();
        let fed_at = Mutex::new(None);
        let stop = LimitStop::default();
        let result = fed.for_each_fed(
            l,
            r,
            &|push| {
                metrics.add_time(started.elapsed());
                let _done = FedAt(&fed_at);
                if skip_probe {
                    return Ok(());
                }
                self.push(probe_plan, &|b: RecordBatch| {
                    let start = Instant::now();
                    let pushed = push(b);
                    metrics.add_time(start.elapsed());
                    pushed.map_err(ExecError::from)
                })
                .map_err(|e| stop.seen(e))
            },
            &|b: RecordBatch| out(b).map_err(|e| stop.seen(e)),
        );
        if let Some(at) = *lock(&fed_at) {
            metrics.add_time(at.elapsed());
        }
        stop.result(result)
    }
}

/// The kernel's `(left, right)` inputs, from its build and probe inputs.
fn sides<'a>(
    build_side: JoinSide,
    build: &'a JoinInput,
    probe: &'a JoinInput,
) -> (&'a JoinInput, &'a JoinInput) {
    match build_side {
        JoinSide::Left => (build, probe),
        JoinSide::Right => (probe, build),
    }
}

/// Records when the feed of a fed join returned (on drop).
struct FedAt<'a>(&'a Mutex<Option<Instant>>);

impl Drop for FedAt<'_> {
    fn drop(&mut self) {
        *lock(self.0) = Some(Instant::now());
    }
}

/// Runs a join over both inputs, collected.
pub(in crate::exec) fn run_collected(
    plan: &PhysicalPlan,
    join: &Join,
    l: &JoinInput,
    r: &JoinInput,
    out: &Sink<'_>,
) -> Result<()> {
    let start = Instant::now();
    let stop = LimitStop::default();
    let result = join.for_each(l, r, &|b: RecordBatch| out(b).map_err(|e| stop.seen(e)));
    plan.metrics.add_time(start.elapsed());
    stop.result(result)
}

/// The stop signal of a LIMIT above a join, remembered as it passes into
/// the kernel (as [`KernelError::External`], like every error of the
/// operators around the join). Once a LIMIT has its rows it stops every
/// producer below it; a worker of the same join may meanwhile fail on its
/// own (a filter error, the memory limit), and the kernel returns whichever
/// error it meets first. The signal wins, so the query's result does not
/// depend on that race: the LIMIT's rows are complete.
#[derive(Default)]
struct LimitStop(std::sync::OnceLock<ExecError>);

impl LimitStop {
    /// `e` as the kernel carries it, noting a LIMIT's stop signal.
    fn seen(&self, e: ExecError) -> KernelError {
        if let ExecError::LimitReached(token) = e {
            let _ = self.0.set(ExecError::LimitReached(token));
        }
        e.into_kernel()
    }

    /// The join's result: the stop signal if one passed, else the kernel's
    /// error with the operators' own errors turned back into themselves.
    fn result(self, result: std::result::Result<(), KernelError>) -> Result<()> {
        match (result, self.0.into_inner()) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(stop)) => Err(stop),
            (Err(e), None) => Err(ExecError::from(e)),
        }
    }
}

/// Gathers batches of fewer than half `target` rows until they make
/// `target` rows, then passes them on as one; larger batches pass as they
/// are. Safe to push from several threads.
struct Coalesce {
    schema: arrow_schema::SchemaRef,
    target: usize,
    pending: Mutex<(Vec<RecordBatch>, usize)>,
}

impl Coalesce {
    fn new(schema: arrow_schema::SchemaRef, target: usize) -> Self {
        Coalesce {
            schema,
            target: target.max(1),
            pending: Mutex::new((Vec::new(), 0)),
        }
    }

    fn push(&self, batch: RecordBatch, out: &Sink<'_>) -> Result<()> {
        if batch.num_rows() * 2 >= self.target {
            return out(batch);
        }
        let ready = {
            let mut pending = lock(&self.pending);
            pending.1 += batch.num_rows();
            pending.0.push(batch);
            if pending.1 >= self.target {
                pending.1 = 0;
                Some(std::mem::take(&mut pending.0))
            } else {
                None
            }
        };
        match ready {
            Some(batches) => out(self.concat(&batches)?),
            None => Ok(()),
        }
    }

    /// Passes on what is left.
    fn flush(&self, out: &Sink<'_>) -> Result<()> {
        let batches = std::mem::take(&mut lock(&self.pending).0);
        if batches.is_empty() {
            return Ok(());
        }
        out(self.concat(&batches)?)
    }

    fn concat(&self, batches: &[RecordBatch]) -> Result<RecordBatch> {
        let batch = arrow_select::concat::concat_batches(&self.schema, batches)
            .map_err(|e| ExecError::arrow("joining small join output batches", e))?;
        Ok(tenon_kernels::compact_views(batch)?)
    }
}
