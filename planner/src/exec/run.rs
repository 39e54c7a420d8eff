//! Running a physical plan: push-based pipelines on a rayon pool.
//!
//! Every operator *pushes* its output batches into a sink given by its
//! parent. Streaming operators (scan, filter, project) wrap the sink and
//! run on whatever thread produced the batch, so a chain of them is one
//! fused pipeline running in parallel over the scan's morsels or over the
//! join kernel's workers. Pipeline breakers collect their input(s) first:
//! a hash join its build side, then its probe side's pipeline pushes
//! batches straight into the probe (a partitioned one with a large build
//! side collects them); the other joins both sides (the sorting and nested
//! loop kernels take whole inputs; module `join_run`); an aggregate or sort its one input
//! (a top-N, ORDER BY ... LIMIT n, keeps only about n rows of it as they
//! come). A LIMIT streams: it passes rows on as they arrive and, once it
//! has enough, returns a stop signal that ends the work below it (module
//! `limit`). A sink may be called from several threads at once.
//!
//! Memory that holds data is charged to the query's budget (the root's
//! [`PhysicalPlan::budget`]) before it is kept: every batch a pipeline
//! breaker collects (a join's collected inputs, a sort's or set
//! operation's input), a group table as it grows, a sort's buffers and
//! output, a top-N's candidates, a set operation's count table. With a
//! `memory_limit`, exceeding it is the memory-limit error, not an abort.
//! Batches that stream through (scans, filters, projections, a join's
//! probe side) are held one per worker at a time and not charged.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use arrow_array::{RecordBatch, RecordBatchOptions};
use rayon::prelude::*;

use crate::exec::held_form;
use crate::exec::limit::{LimitState, TopN};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::runtime_filter::Slots;
use crate::exec::set_op::run_set_operation;
use crate::exec::shared::SharedRows;
use crate::exec::source::{ScanReport, ScanRequest, Tables};
use crate::exec::spill::SpillSpace;
use crate::exec::{ExecError, Result};
use crate::expr::{PhysicalExpr, ScanFilter};
use tenon_kernels::{HeldBuffers, MemoryBudget, MemoryReservation};

/// Where an operator's output batches go; called from any worker thread.
pub type Sink<'a> = dyn Fn(RecordBatch) -> Result<()> + Sync + 'a;

/// Runs `plan` on `pool`, pushing every result batch into `sink`.
///
/// Batches of one operator can arrive from several threads, so results
/// come in no particular order unless the plan ends with a sort (which
/// pushes its output in order from one thread).
///
/// # Errors
///
/// The first error of any operator; the run stops there.
pub fn execute(
    plan: &PhysicalPlan,
    tables: &Tables,
    pool: &rayon::ThreadPool,
    batch_size: usize,
    sink: &Sink<'_>,
) -> Result<()> {
    run_plan(plan, tables, pool, batch_size, sink, None)
}

/// As [`execute`], stopping with [`ExecError::Cancelled`] soon after
/// `cancel` is set: every operator checks it before it passes on a batch,
/// and every scan before each morsel it reads, so a run stops within a
/// batch's work of each of its threads (a sort or an aggregate's final
/// pass over what it holds runs to its end first).
///
/// # Errors
///
/// As [`execute`]; [`ExecError::Cancelled`] once `cancel` is set.
pub fn execute_cancellable(
    plan: &PhysicalPlan,
    tables: &Tables,
    pool: &rayon::ThreadPool,
    batch_size: usize,
    sink: &Sink<'_>,
    cancel: &Arc<AtomicBool>,
) -> Result<()> {
    run_plan(
        plan,
        tables,
        pool,
        batch_size,
        sink,
        Some(Arc::clone(cancel)),
    )
}

fn run_plan(
    plan: &PhysicalPlan,
    tables: &Tables,
    pool: &rayon::ThreadPool,
    batch_size: usize,
    sink: &Sink<'_>,
    cancel: Option<Arc<AtomicBool>>,
) -> Result<()> {
    let run = Run {
        cancel,
        tables,
        batch_size: batch_size.max(1),
        budget: &plan.budget,
        filters: Slots::for_plan(plan),
        shared: SharedRows::for_plan(plan),
        spill: SpillSpace::new(&plan.spill),
    };
    pool.install(|| {
        run.compute_shared(plan)?;
        run.push(plan, sink)
    })
}

/// Runs `plan` and collects its output batches in arrival order.
///
/// # Errors
///
/// As [`execute`].
pub fn collect(
    plan: &PhysicalPlan,
    tables: &Tables,
    pool: &rayon::ThreadPool,
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let out = Mutex::new(Vec::new());
    execute(plan, tables, pool, batch_size, &|b| {
        lock(&out).push(b);
        Ok(())
    })?;
    Ok(out.into_inner().unwrap_or_else(|e| e.into_inner()))
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One run of a plan: the tables it reads, the batch size, the budget.
pub(super) struct Run<'a> {
    pub(super) tables: &'a Tables,
    pub(super) batch_size: usize,
    /// The query's memory budget (the root plan's).
    pub(super) budget: &'a MemoryBudget,
    /// The runtime join filters of this run, set by the joins that make
    /// them (module `runtime_filter`).
    pub(super) filters: Slots,
    /// The rows of the plan's shared subplans, computed before the rest
    /// (module `shared`).
    pub(super) shared: SharedRows,
    /// The run's spill directory (made on first use, removed when the run
    /// is dropped: on success, error, panic or cancellation).
    pub(super) spill: std::sync::Arc<SpillSpace>,
    /// Set when the run is to stop ([`execute_cancellable`]); the join
    /// kernels get it too (`JoinOptions::cancel`).
    pub(super) cancel: Option<Arc<AtomicBool>>,
}

/// The batches a pipeline breaker collected, and their charge to the
/// budget (given back when this is dropped).
pub(super) struct Held {
    pub(super) batches: Vec<RecordBatch>,
    _charge: MemoryReservation,
}

impl Held {
    /// `batches`, held with `charge`.
    pub(super) fn new(batches: Vec<RecordBatch>, charge: MemoryReservation) -> Self {
        Held {
            batches,
            _charge: charge,
        }
    }
}

impl Run<'_> {
    /// [`ExecError::Cancelled`] once the run's cancel flag is set.
    pub(super) fn check_cancelled(&self) -> Result<()> {
        match &self.cancel {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(ExecError::Cancelled),
            _ => Ok(()),
        }
    }

    /// Whether the query runs under a memory limit (then operators that can
    /// spill do, rather than fail).
    pub(super) fn limited(&self) -> bool {
        self.budget.limit() != usize::MAX
    }

    /// The query's budget as `plan` reserves from it: its reservations are
    /// counted in its metrics too (EXPLAIN ANALYZE's `peak_memory`).
    pub(super) fn budget_of(&self, plan: &PhysicalPlan) -> MemoryBudget {
        self.budget.tracked(&plan.metrics.memory)
    }

    /// Every output batch of `plan`, each charged to the budget as it
    /// arrives, counted as the operator `owner`'s memory (`what` names the
    /// holder in a memory-limit error).
    pub(super) fn collect(
        &self,
        owner: &PhysicalPlan,
        plan: &PhysicalPlan,
        what: &'static str,
    ) -> Result<Held> {
        let out = Mutex::new((
            Vec::new(),
            self.budget_of(owner).try_reserve(what, 0)?,
            HeldBuffers::new(),
        ));
        self.push(plan, &|b| {
            let mut held = lock(&out);
            let bytes = held.2.add(&b);
            held.1.grow(bytes)?;
            held.0.push(b);
            Ok(())
        })?;
        let (batches, charge, _) = out.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(Held {
            batches,
            _charge: charge,
        })
    }

    /// Runs scan `plan` into `sink`: a table in memory in morsels of the
    /// batch size, in parallel; a table with a source read by it, with
    /// `filter` (what the filter above keeps) to skip what it can, and
    /// `predicate` (that filter itself) to evaluate while it decodes.
    ///
    /// A table in memory may hold columns narrow (`held_form`): the scan
    /// widens them, but for a filter right above (`predicate` given), which
    /// gets them narrow (it compares them as they are and widens the rows
    /// it keeps); the key columns of the scan's runtime filters are widened
    /// for their tests.
    fn scan(
        &self,
        plan: &PhysicalPlan,
        filter: Option<&ScanFilter>,
        predicate: Option<&PhysicalExpr>,
        sink: &Sink<'_>,
    ) -> Result<()> {
        let narrow_out = predicate.is_some();
        let tested: Vec<usize> = plan
            .runtime_filters
            .applied
            .iter()
            .map(|a| a.column)
            .collect();
        let Operator::Scan { table, columns, .. } = &plan.operator else {
            return Err(ExecError::Unsupported(
                "internal: a scan that is not a scan".into(),
            ));
        };
        let outer_sink = sink;
        // Runtime join filters first, before the filter above runs.
        let filtered = |b: RecordBatch| self.tested(plan, b, sink);
        let sink: &Sink<'_> = if plan.runtime_filters.applied.is_empty() {
            sink
        } else {
            &filtered
        };
        let metrics = &plan.metrics;
        let size = self.batch_size;
        // Morsels of at most the batch size, none empty.
        let morsels = |b: &RecordBatch| -> Vec<RecordBatch> {
            let n = b.num_rows();
            (0..n.div_ceil(size))
                .map(|i| {
                    let start = i * size;
                    b.slice(start, size.min(n - start))
                })
                .collect()
        };
        let data = self
            .tables
            .get(table)
            .ok_or_else(|| ExecError::MissingTable(table.clone()))?;
        if let Some(source) = &data.source {
            // A scan of no columns (count(*)) still needs the row count:
            // read the first column and project it away.
            let read: Vec<usize> = if columns.is_empty() {
                vec![0]
            } else {
                columns.clone()
            };
            let request = ScanRequest {
                columns: &read,
                filter,
                predicate,
                batch_size: size,
                budget: self.budget,
            };
            let keep: Vec<usize> = (0..columns.len()).collect();
            let mut report = ScanReport::default();
            let result = source.scan(
                &request,
                &|b: RecordBatch| {
                    for m in morsels(&b) {
                        self.check_cancelled()?;
                        let m = if columns.is_empty() {
                            m.project(&keep)
                                .map_err(|e| ExecError::arrow(format!("scan of {table}"), e))?
                        } else {
                            m
                        };
                        metrics.record(&m);
                        sink(m)?;
                    }
                    Ok(())
                },
                &mut report,
            );
            if let Some(n) = report.skipped_rows {
                let _ = metrics.skipped_rows.set(n);
            }
            if let Some(groups) = report.row_groups {
                let _ = metrics.row_groups.set(groups);
            }
            if let Some(pages) = report.pages {
                let _ = metrics.pages.set(pages);
            }
            if let Some(rows) = report.late_rows {
                let _ = metrics.late_rows.set(rows);
            }
            return result;
        }
        let held = data.positions(columns).ok_or_else(|| {
            ExecError::Unsupported(format!(
                "internal: the scan of {table} needs a column that was not read"
            ))
        })?;
        // The table's fields of the columns read: a held table may keep a
        // column narrower than its type (`held_form`), widened here.
        let fields: arrow_schema::Fields = columns
            .iter()
            .map(|&c| data.schema.field(c).clone())
            .collect();
        // With runtime filters and no filter above, the columns they do not
        // test are widened after their test, only for the rows it keeps
        // (TPC-H Q9 keeps 3M of lineitem's 60M rows at scale 10).
        let widened_after = |b: RecordBatch| outer_sink(held_form::widen(b, &fields)?);
        let after_test: &Sink<'_> = if narrow_out || tested.is_empty() {
            outer_sink
        } else {
            &widened_after
        };
        let filtered = |b: RecordBatch| self.tested(plan, b, after_test);
        let sink: &Sink<'_> = if tested.is_empty() {
            outer_sink
        } else {
            &filtered
        };
        let morsels: Vec<RecordBatch> = data.batches.iter().flat_map(morsels).collect();
        morsels.par_iter().try_for_each(|b| {
            self.check_cancelled()?;
            let projected = b
                .project(&held)
                .map_err(|e| ExecError::arrow(format!("scan of {table}"), e))?;
            let projected = if narrow_out || !tested.is_empty() {
                held_form::widen_columns(projected, &fields, |i| tested.contains(&i))?
            } else {
                held_form::widen(projected, &fields)?
            };
            metrics.record(&projected);
            sink(projected)
        })
    }

    /// Passes on the rows of `plan`'s output `batch` that its runtime
    /// filters let through.
    fn tested(&self, plan: &PhysicalPlan, batch: RecordBatch, sink: &Sink<'_>) -> Result<()> {
        match self.filters.apply(plan, batch)? {
            Some(b) => sink(b),
            None => Ok(()),
        }
    }

    /// Runs filter `plan` into `sink` (which records the filter's
    /// metrics). The columns of a held table's scan right below come
    /// narrow (`scan`); with `widen` they are widened, only the rows kept,
    /// else passed on narrow to a consumer that reads them as they are.
    fn filter(&self, plan: &PhysicalPlan, widen: bool, sink: &Sink<'_>) -> Result<()> {
        let Operator::Filter {
            input,
            predicate,
            keep,
        } = &plan.operator
        else {
            return Err(ExecError::Unsupported(
                "internal: a filter's run got another operator".into(),
            ));
        };
        let metrics = &plan.metrics;
        let filter = |b: RecordBatch| {
            let start = Instant::now();
            let mask = predicate.evaluate_predicate(&b)?;
            let kept = b.project(keep).map_err(|e| ExecError::arrow("filter", e))?;
            let filtered = arrow_select::filter::filter_record_batch(&kept, &mask)
                .map_err(|e| ExecError::arrow("filter", e))?;
            if filtered.num_rows() == 0 {
                metrics.add_time(start.elapsed());
                return Ok(());
            }
            let filtered = if widen {
                held_form::widen(filtered, plan.schema.fields())?
            } else {
                filtered
            };
            metrics.add_time(start.elapsed());
            sink(filtered)
        };
        match &input.operator {
            // A source reading files can skip what the filter cannot keep
            // (Parquet row groups by their statistics).
            Operator::Scan { columns, .. } => {
                let hint = ScanFilter::from_predicate(predicate, &|i| columns.get(i).copied());
                self.scan(input, hint.as_ref(), Some(predicate), &filter)
            }
            _ => self.push(input, &filter),
        }
    }

    pub(super) fn push(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        // A cancellable run checks its flag before every batch an operator
        // passes on.
        let checked = |b: RecordBatch| {
            self.check_cancelled()?;
            sink(b)
        };
        let sink: &Sink<'_> = if self.cancel.is_some() {
            &checked
        } else {
            sink
        };
        let filtered = |b: RecordBatch| self.tested(plan, b, sink);
        let sink: &Sink<'_> = if plan.runtime_filters.applied.is_empty()
            || matches!(plan.operator, Operator::Scan { .. })
        {
            sink // a scan tests its own (`scan`)
        } else {
            &filtered
        };
        let metrics = &plan.metrics;
        let out = |b: RecordBatch| {
            metrics.record(&b);
            sink(b)
        };
        match &plan.operator {
            Operator::Scan { .. } => self.scan(plan, None, None, sink),
            Operator::Values { batches } => {
                for b in batches {
                    out(b.clone())?;
                }
                Ok(())
            }
            Operator::Filter { .. } => self.filter(plan, true, &out),
            Operator::Expand { .. } => self.expand(plan, &out),
            Operator::Lookup { .. } => self.lookup(plan, &out),
            Operator::Project { input, exprs } => self.push(input, &|b: RecordBatch| {
                let start = Instant::now();
                let columns = exprs
                    .iter()
                    .map(|e| e.evaluate(&b))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let batch = RecordBatch::try_new_with_options(
                    plan.schema.clone(),
                    columns,
                    &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
                )
                .map_err(|e| ExecError::arrow("projection", e))?;
                metrics.add_time(start.elapsed());
                out(batch)
            }),
            Operator::Join { .. } => self.join(plan, sink),
            Operator::MultiJoin { .. } => self.multi_join(plan, &out),
            Operator::JoinAggregate { .. } => self.join_aggregate(plan, sink),
            Operator::Aggregate { input, aggregate } => {
                // Fused: the input pipeline's threads aggregate as they go.
                // Under a memory limit the groups that do not fit spill.
                let budget = self.budget_of(plan);
                let sink = if self.limited() {
                    aggregate.sink_spilling(
                        &budget,
                        std::sync::Arc::clone(&self.spill),
                        std::sync::Arc::clone(&plan.metrics),
                    )?
                } else {
                    aggregate.sink(&budget)?
                };
                let into_sink = |b: RecordBatch| {
                    let start = Instant::now();
                    sink.push(&b)?;
                    metrics.add_time(start.elapsed());
                    Ok(())
                };
                // The aggregate reads a held table's narrow columns as they
                // are (its keys and arguments widen what they must): a
                // filter right below passes its rows on without widening.
                match &input.operator {
                    Operator::Filter { .. } if input.runtime_filters.applied.is_empty() => {
                        let m = &input.metrics;
                        self.filter(input, false, &|b: RecordBatch| {
                            m.record(&b);
                            into_sink(b)
                        })?
                    }
                    _ => self.push(input, &into_sink)?,
                }
                let start = Instant::now();
                let mut batches = Vec::new();
                let spilled = plan.metrics.spill.spilled();
                let finished = sink.finish_into(self.batch_size, &mut |b| {
                    if spilled {
                        // A spilled aggregation's partitions go on as
                        // they are finished.
                        out(b)
                    } else {
                        batches.push(b);
                        Ok(())
                    }
                });
                metrics.add_time(start.elapsed());
                finished?;
                batches.into_iter().try_for_each(out)
            }
            Operator::Sort { input, sort } => {
                let result = if let Some(k) = sort.fetch() {
                    // A top-N: fed as the input runs, holding about N rows.
                    let budget = self.budget_of(plan);
                    let top = TopN::new(sort, k, self.batch_size, &budget)?;
                    self.push(input, &|b: RecordBatch| {
                        let start = Instant::now();
                        top.push(b)?;
                        metrics.add_time(start.elapsed());
                        Ok(())
                    })?;
                    let start = Instant::now();
                    let result = top.finish()?;
                    metrics.add_time(start.elapsed());
                    result
                } else if self.limited() {
                    // Under a memory limit: sorted runs spilled when the
                    // rows do not fit, merged in order (module `spill`).
                    return self.external_sort(plan, input, sort, &out);
                } else {
                    let held = self.collect(plan, input, "the rows to sort (ORDER BY)")?;
                    let start = Instant::now();
                    let result =
                        sort.run_charged(&held.batches, self.batch_size, &self.budget_of(plan))?;
                    drop(held);
                    metrics.add_time(start.elapsed());
                    result
                };
                result.into_iter().try_for_each(out)
            }
            Operator::Limit { input, skip, fetch } => {
                // Streaming: rows pass on as they arrive; once satisfied,
                // every producer below is told to stop (`limit` module).
                let limit = LimitState::new(metrics, *skip, *fetch);
                if limit.wants_nothing() {
                    return Ok(());
                }
                let result = self.push(input, &|b: RecordBatch| {
                    let (batch, done) = limit.take(b);
                    if let Some(b) = batch {
                        out(b)?;
                    }
                    if done { Err(limit.signal()) } else { Ok(()) }
                });
                limit.caught(result)
            }
            Operator::Union { inputs } => {
                for input in inputs {
                    self.push(input, &out)?;
                }
                Ok(())
            }
            Operator::Shared { id, .. } => self.replay_shared(*id, &out),
            Operator::SetOperation { left, right, op } if self.limited() => {
                self.spilling_set_operation(plan, *op, left, right, &out)
            }
            Operator::SetOperation { left, right, op } => {
                let (l, r) = rayon::join(
                    || self.collect(plan, left, "the set operation's left input"),
                    || self.collect(plan, right, "the set operation's right input"),
                );
                let (l, r) = (l?, r?);
                let start = Instant::now();
                let result = run_set_operation(
                    *op,
                    &plan.schema,
                    &l.batches,
                    &r.batches,
                    &self.budget_of(plan),
                )?;
                metrics.add_time(start.elapsed());
                result.into_iter().try_for_each(out)
            }
        }
    }
}
