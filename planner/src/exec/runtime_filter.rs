//! Runtime join filters (sideways information passing): a hash join's
//! complete build side hands a filter over its keys to the operators below
//! its probe side, which drop the rows the join would drop before spending
//! any other work on them.
//!
//! ```text
//!            Join (INNER, build = orders)  ── makes rf1 over o_orderkey ──┐
//!           /                        \                                    │
//!   Scan orders (built first)    Filter l_shipdate > ...                  │
//!                                    \                                    │
//!                                  Scan lineitem  ◄── tests rf1 on l_orderkey first,
//!                                                     then the filter runs on the rest
//! ```
//!
//! **Which joins.** A hash join whose probe rows without a match are never
//! output and change nothing else ([`FedProbe::runtime_filter_keys`]):
//! INNER, the NULL-extended side of LEFT / RIGHT, either side of a semi
//! join, the side of an anti join that is not kept (never NOT IN, whose
//! NULLs on that side matter, nor null-equal keys). One filter per key
//! pair, over the build input's key column.
//!
//! **Where it is tested** ([`plan`], run once after lowering): the probe
//! key column is followed down the probe side as far as its values are the
//! same column: through a Filter, a Project that passes the column on, a
//! Sort without a fetch, a UNION ALL (into every branch), an Aggregate
//! whose group key it is (dropping the input rows of a group drops the
//! group: the decorrelated `LEFT JOIN (outer, Aggregate(GROUP BY k))` of a
//! scalar subquery aggregates only the keys the outer side looks up), and
//! into either input of another join (not a temporal or as-of join, whose
//! choice among a key's versions depends on all of them). It is tested
//! where that walk stops: a scan (before the scan's own predicates run or
//! any column is copied), or the operator that computes the column. When
//! the walk cannot leave the probe input itself, the probe is that test
//! already, and there is no filter, except for a join whose probe input
//! is a scan ([`ProducedFilter::at_probe_input`]). A SHUFFLE_HASH build
//! side large enough to be partitioned makes the kernel collect and
//! scatter every probe row before probing any, so a filter on the scan
//! saves that copy for the rows without a match (TPC-H Q21's semi join of
//! lineitem at scale 10: 60M probe rows for 750K build rows): then it is
//! always made.
//! Otherwise the kernel probes each row as it comes, and the filter is
//! made only when its test is cheaper than that probe (exact key bits no
//! larger than the L2 cache or than the join's own table, no Bloom filter:
//! [`RuntimeFilter::is_cheaper_than_its_probe`]) and its
//! keys fill at most [`MAX_PROBE_INPUT_DENSITY`] of their range, so that
//! most rows can be expected to stop at the bits (TPC-H Q11 at scale 10:
//! one nation's 4,049 suppliers drop 96% of partsupp's 8M rows at the
//! scan, whose other columns are then widened only for the rows left). A
//! join whose probe input is a scan that tests filters of joins above it
//! makes its own there whatever its keys' density
//! ([`ProducedFilter::joins_others`]) when its test is cheap: TPC-H Q8's
//! part filter (1,451 keys) then drops 99% of lineitem before its orders filter, whose exact bits
//! are megabytes, tests the rest; the filters at one place are tested the
//! one that passed the fewest rows so far first, each later one only on
//! the rows the earlier let through when those are few.
//! Pushing it into another join's input may turn rows
//! of that join into NULL-extended ones or drop them: in either case their
//! key is NULL or not among the build keys, rows the join above drops.
//!
//! **When.** Everything below a hash join's probe side runs after its
//! build side is complete: the executor collects the build side, makes the
//! filters, then runs the probe side's pipeline, the joins and aggregates
//! below it included (their own build sides too). A filter is made only
//! from a complete build side, and an operator whose filter is not made
//! (yet) tests nothing, so no order of events can drop a row wrongly.
//! When the build side has no rows (or no key its filters pass), nothing
//! can match, and the probe side is not run.
//!
//! **Whether it pays** is measured as it runs: each filter stops being
//! tested once the rows tested so far show that most pass
//! ([`RuntimeFilter::worth_testing`]); the build side's key structure
//! (range, exact bits, Bloom filter) is the kernel's
//! ([`RuntimeFilter`]). A filter is not made when its build side is
//! large against the tables it would be tested on
//! ([`MIN_PROBE_ROWS_PER_BUILD_ROW`]), nor when its memory does not fit the
//! query's budget.
//!
//! EXPLAIN shows each filter on its join (`runtime_filters=[rf1 on
//! l_orderkey at Scan lineitem]`) and where it is tested (`runtime filter
//! from join on [o_orderkey = l_orderkey]: rf1 on l_orderkey`); EXPLAIN
//! ANALYZE adds what each filter held and the rows it dropped.
//! The `runtime_filters` setting turns them off.
//!
//! [`FedProbe::runtime_filter_keys`]: tenon_kernels::FedProbe::runtime_filter_keys

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_buffer::BooleanBuffer;

use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::source::Tables;
use crate::exec::{ExecError, Result};
use tenon_kernels::{
    JoinInput, JoinKernel, JoinSide, MemoryBudget, MemoryReservation, RuntimeFilter, Strategy,
};

/// A plan node's part in its plan's runtime filters.
#[derive(Debug, Default, Clone)]
pub struct RuntimeFilters {
    /// For a hash join: the filters its complete build side makes.
    pub produced: Vec<ProducedFilter>,
    /// The filters tested on this node's output batches before they go on.
    pub applied: Vec<AppliedFilter>,
    /// For a hash join whose probe rows without a match change nothing:
    /// with an empty build side its probe side is not run.
    pub skips_probe_when_empty: bool,
}

/// A runtime filter a hash join makes from its build side.
#[derive(Debug, Clone)]
pub struct ProducedFilter {
    /// Its number in the plan (`rf1` is 0).
    pub id: usize,
    /// The build input's key column it is made from.
    pub build_column: usize,
    /// The probe input's key column it stands for, by name.
    pub probe_column: String,
    /// The operators that test it (`Scan lineitem`).
    pub applied_at: Vec<String>,
    /// The rows of the largest table a scan that tests it reads, when
    /// known (see [`MIN_PROBE_ROWS_PER_BUILD_ROW`]).
    pub probe_table_rows: Option<usize>,
    /// Whether it is tested on the join's probe input itself (a scan,
    /// module docs): then it is made when a SHUFFLE_HASH kernel partitions
    /// the build side (and so collects the probe side), or when its test
    /// is cheap and its keys sparse.
    pub at_probe_input: bool,
    /// Whether it is tested on the join's probe input because that scan
    /// tests other joins' filters: then it is made, whatever the kernel
    /// does with the build side, when its test is cheaper than the join's
    /// probe, so that a selective filter can go before the others (module
    /// docs: the most selective is tested first).
    pub joins_others: bool,
}

/// A filter is made only when the tables it is tested on hold at least
/// this many rows per build row (when their sizes are known): a build side
/// about as large as what it filters holds most keys of it, and making the
/// filter (one pass over the build keys) would cost about what testing it
/// could save (an unfiltered `orders` against `lineitem`: 1.5M build rows
/// for 6M probe rows, each with an order).
pub const MIN_PROBE_ROWS_PER_BUILD_ROW: usize = 8;

/// A runtime filter tested on a node's output.
#[derive(Debug, Clone)]
pub struct AppliedFilter {
    /// The filter's number in the plan.
    pub id: usize,
    /// The output column tested.
    pub column: usize,
    /// That column's name.
    pub column_name: String,
    /// The join it comes from: `join on [o_orderkey = l_orderkey]`.
    pub from: String,
}

/// The name of runtime filter `id`: `rf1` for 0.
pub fn filter_name(id: usize) -> String {
    format!("rf{}", id + 1)
}

/// One runtime filter as EXPLAIN's JSON lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFilterInfo {
    /// `rf1`, `rf2`, ...
    pub name: String,
    /// The join type of the join that makes it.
    pub join_type: String,
    /// That join's equi keys as text.
    pub join_keys: Vec<String>,
    /// That join's build side's name, when it has one.
    pub build: Option<String>,
    /// The probe input's key column it stands for.
    pub column: String,
    /// The operators that test it.
    pub applied_at: Vec<String>,
}

impl PhysicalPlan {
    /// Every runtime filter of the plan, in the order of their names.
    pub fn runtime_filter_infos(&self) -> Vec<RuntimeFilterInfo> {
        let mut out = Vec::new();
        fn walk(p: &PhysicalPlan, out: &mut Vec<(usize, RuntimeFilterInfo)>) {
            if let Operator::Join { decision, .. } = &p.operator {
                for f in &p.runtime_filters.produced {
                    out.push((
                        f.id,
                        RuntimeFilterInfo {
                            name: filter_name(f.id),
                            join_type: decision.join_type.to_string(),
                            join_keys: decision.keys.clone(),
                            build: decision.build.clone(),
                            column: f.probe_column.clone(),
                            applied_at: f.applied_at.clone(),
                        },
                    ));
                }
            }
            for c in p.children() {
                walk(c, out);
            }
        }
        walk(self, &mut out);
        out.sort_by_key(|(id, _)| *id);
        out.into_iter().map(|(_, i)| i).collect()
    }

    /// The plan's runtime filters as a JSON list (docs/cli.md): objects
    /// with `name`, `join_type`, `join_keys`, `build`, `column` and
    /// `applied_at`.
    pub fn runtime_filters_json(&self) -> String {
        let s = |v: &str| serde_json::Value::from(v).to_string();
        let items: Vec<String> = self
            .runtime_filter_infos()
            .iter()
            .map(|i| {
                let list = |v: &[String]| v.iter().map(|x| s(x)).collect::<Vec<_>>().join(", ");
                format!(
                    "{{\"name\": {}, \"join_type\": {}, \"join_keys\": [{}], \"build\": {}, \
                     \"column\": {}, \"applied_at\": [{}]}}",
                    s(&i.name),
                    s(&i.join_type),
                    list(&i.join_keys),
                    i.build.as_deref().map_or_else(|| "null".to_string(), s),
                    s(&i.column),
                    list(&i.applied_at)
                )
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    /// What EXPLAIN adds to the line of a join that makes runtime filters
    /// and of an operator that tests them (empty for the others).
    pub(super) fn runtime_filter_text(&self) -> String {
        let mut s = String::new();
        let rf = &self.runtime_filters;
        if !rf.produced.is_empty() {
            let items: Vec<String> = rf
                .produced
                .iter()
                .map(|f| {
                    format!(
                        "{} on {} at {}",
                        filter_name(f.id),
                        f.probe_column,
                        f.applied_at.join(" and ")
                    )
                })
                .collect();
            let _ = write!(s, " runtime_filters=[{}]", items.join(", "));
        }
        for a in &rf.applied {
            let _ = write!(
                s,
                " [runtime filter from {}: {} on {}]",
                a.from,
                filter_name(a.id),
                a.column_name
            );
        }
        s
    }

    /// EXPLAIN ANALYZE's figures of runtime filters: what a join's filters
    /// held and how many rows they passed, the rows an operator's tests
    /// dropped.
    pub(super) fn runtime_filter_figures(&self) -> String {
        let mut s = String::new();
        if let Some(made) = self.metrics.runtime_filters.get() {
            let _ = write!(s, " runtime_filters: {made}");
        }
        if !self.runtime_filters.applied.is_empty() {
            let dropped = self.metrics.runtime_filtered.load(Ordering::Relaxed);
            let _ = write!(s, " runtime_filtered={dropped}");
        }
        s
    }

    /// The node's short name for EXPLAIN: `Scan lineitem` (its alias if
    /// it has one), else its operator (`Filter`, `Aggregate`).
    fn short_name(&self) -> String {
        match &self.operator {
            Operator::Scan { table, alias, .. } => {
                format!("Scan {}", alias.as_deref().unwrap_or(table))
            }
            _ => {
                let d = self.describe();
                d.split(':').next().unwrap_or("operator").to_string()
            }
        }
    }
}

/// Plans the runtime filters of `root` (see the module docs), numbering
/// them from 0 in the order of a walk from the root.
/// `tables` gives the scanned tables' sizes.
pub(crate) fn plan(root: &mut PhysicalPlan, tables: &Tables) {
    let mut next = 0;
    plan_node(root, tables, &mut next);
}

fn plan_node(node: &mut PhysicalPlan, tables: &Tables, next: &mut usize) {
    let mut produced = Vec::new();
    let mut skips = false;
    if let Operator::Join {
        left,
        right,
        join,
        decision,
    } = &mut node.operator
        && let Some(fed) = join.fed()
        && decision.time_join.is_none()
    {
        let from = format!("join on [{}]", decision.keys.join(", "));
        let probe = match fed.build_side() {
            JoinSide::Left => right,
            JoinSide::Right => left,
        };
        let keys = fed.runtime_filter_keys();
        skips = !keys.is_empty();
        for (build_column, probe_column) in keys {
            let Some(name) = probe
                .schema
                .fields()
                .get(probe_column)
                .map(|f| f.name().clone())
            else {
                continue;
            };
            let mut applied = AppliedFilter {
                id: *next,
                column: probe_column,
                column_name: name.clone(),
                from: from.clone(),
            };
            let mut at = Vec::new();
            attach(probe, &mut applied, 0, &mut at);
            // The joins above attached theirs first (this walk goes down
            // the plan), so a scan testing filters already has them here.
            let joins_others = !probe.runtime_filters.applied.is_empty();
            let at_probe_input = at.is_empty() && matches!(probe.operator, Operator::Scan { .. });
            if at_probe_input {
                probe.runtime_filters.applied.push(applied.clone());
                at.push(probe.short_name());
            }
            if at.is_empty() {
                continue;
            }
            let probe_table_rows = largest_scan(probe, *next, tables);
            produced.push(ProducedFilter {
                id: *next,
                build_column,
                probe_column: name,
                applied_at: at,
                probe_table_rows,
                at_probe_input,
                joins_others: at_probe_input && joins_others,
            });
            *next += 1;
        }
    }
    node.runtime_filters.produced = produced;
    node.runtime_filters.skips_probe_when_empty = skips;
    for c in node.children_mut() {
        plan_node(c, tables, next);
    }
}

/// The rows of the largest table held in memory that a scan testing
/// filter `id` under `plan` reads (`None`: no such scan, or a table read
/// while the query runs, whose size is not known).
fn largest_scan(plan: &PhysicalPlan, id: usize, tables: &Tables) -> Option<usize> {
    let own = match &plan.operator {
        Operator::Scan { table, .. } if plan.runtime_filters.applied.iter().any(|a| a.id == id) => {
            tables
                .get(table)
                .filter(|t| t.source.is_none())
                .map(|t| t.num_rows())
                // no rows held: not read yet, unknown
                .filter(|&n| n > 0)
        }
        _ => None,
    };
    plan.children()
        .into_iter()
        .filter_map(|c| largest_scan(c, id, tables))
        .chain(own)
        .max()
}

/// Follows output column `applied.column` of `plan` down as far as it is
/// the same column (module docs), and attaches the filter where the walk
/// stops, unless that is where it started (`depth` 0); `at` collects the
/// names of the operators it is attached to.
fn attach(
    plan: &mut PhysicalPlan,
    applied: &mut AppliedFilter,
    depth: usize,
    at: &mut Vec<String>,
) {
    let col = applied.column;
    let Some(ty) = plan.schema.fields().get(col).map(|f| f.data_type().clone()) else {
        return;
    };
    let steps: Vec<(usize, usize)> = descend(plan, col)
        .into_iter()
        .filter(|&(child, c)| {
            plan.children().get(child).is_some_and(|p| {
                p.schema
                    .fields()
                    .get(c)
                    .is_some_and(|f| f.data_type() == &ty)
            })
        })
        .collect();
    if !steps.is_empty() {
        // (A UNION ALL branch whose column has another type is left
        // untested: testing fewer rows is always correct.)
        let mut children = plan.children_mut();
        for (child, c) in steps {
            if let Some(p) = children.get_mut(child) {
                applied.column = c;
                attach(p, applied, depth + 1, at);
            }
        }
        applied.column = col;
        return;
    }
    if depth == 0 {
        return;
    }
    let mut here = applied.clone();
    here.column_name = plan.schema.field(col).name().clone();
    plan.runtime_filters.applied.push(here);
    at.push(plan.short_name());
}

/// Where output column `col` of `plan` comes from unchanged: (child, that
/// child's column) pairs, none when the column is made here or the walk
/// must stop here.
fn descend(plan: &PhysicalPlan, col: usize) -> Vec<(usize, usize)> {
    match &plan.operator {
        Operator::Filter { keep, .. } => keep.get(col).map(|&c| (0, c)).into_iter().collect(),
        Operator::Project { exprs, .. } => exprs
            .get(col)
            .and_then(|e| e.as_column())
            .map(|c| (0, c))
            .into_iter()
            .collect(),
        Operator::Sort { sort, .. } if sort.fetch().is_none() => vec![(0, col)],
        Operator::Aggregate { aggregate, .. } => aggregate
            .group_column(col)
            .map(|c| (0, c))
            .into_iter()
            .collect(),
        Operator::Union { inputs } => (0..inputs.len()).map(|i| (i, col)).collect(),
        Operator::Join {
            left,
            join,
            decision,
            ..
        } if decision.time_join.is_none() => {
            let options = join.options();
            let (has_left, _) = join.join_type().output_sides();
            let left_cols: Vec<usize> = match (&options.left_projection, has_left) {
                (_, false) => Vec::new(),
                (Some(p), true) => p.clone(),
                (None, true) => (0..left.schema.fields().len()).collect(),
            };
            if col < left_cols.len() {
                return vec![(0, left_cols[col])];
            }
            let r = col - left_cols.len();
            let right_col = match &options.right_projection {
                Some(p) => p.get(r).copied(),
                None => Some(r),
            };
            right_col.map(|c| (1, c)).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// The runtime filters of one run of a plan, by number: set by the join
/// that makes each, once its build side is complete.
#[derive(Debug, Default)]
pub(super) struct Slots(Vec<OnceLock<Arc<RuntimeFilter>>>);

impl Slots {
    /// Empty slots for every runtime filter of `plan`.
    pub(super) fn for_plan(plan: &PhysicalPlan) -> Self {
        fn count(p: &PhysicalPlan) -> usize {
            let own = p.runtime_filters.produced.iter().map(|f| f.id + 1).max();
            p.children()
                .into_iter()
                .map(count)
                .chain(own)
                .max()
                .unwrap_or(0)
        }
        Slots((0..count(plan)).map(|_| OnceLock::new()).collect())
    }

    fn get(&self, id: usize) -> Option<&Arc<RuntimeFilter>> {
        self.0.get(id).and_then(OnceLock::get)
    }

    /// Tests the filters attached to `plan` on its output `batch`: the
    /// rows that may still match, `None` when none may.
    pub(super) fn apply(
        &self,
        plan: &PhysicalPlan,
        batch: RecordBatch,
    ) -> Result<Option<RecordBatch>> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(Some(batch));
        }
        // The filters still worth testing, the one that passed the
        // fewest rows so far first: each later one is tested only on the
        // rows the earlier ones let through when those are few.
        let mut active: Vec<(&Arc<RuntimeFilter>, &ArrayRef)> = plan
            .runtime_filters
            .applied
            .iter()
            .filter_map(|a| {
                let filter = self.get(a.id).filter(|f| f.worth_testing())?;
                Some((filter, batch.columns().get(a.column)?))
            })
            .collect();
        active.sort_by_cached_key(|(f, _)| pass_rate(f));
        let mut keep: Option<BooleanBuffer> = None;
        for (filter, column) in active {
            keep = Some(match keep {
                None => {
                    let pass = filter.may_match(std::slice::from_ref::<ArrayRef>(column))?;
                    filter.record(rows, pass.count_set_bits());
                    pass
                }
                Some(k) => test_kept(filter, column, k)?,
            });
        }
        let Some(keep) = keep else {
            return Ok(Some(batch));
        };
        let kept = keep.count_set_bits();
        plan.metrics
            .runtime_filtered
            .fetch_add((rows - kept) as u64, Ordering::Relaxed);
        if kept == rows {
            return Ok(Some(batch));
        }
        if kept == 0 {
            return Ok(None);
        }
        let mask = BooleanArray::new(keep, None);
        arrow_select::filter::filter_record_batch(&batch, &mask)
            .map(Some)
            .map_err(|e| ExecError::arrow("a runtime filter", e))
    }

    /// Makes the runtime filters of `join` (a hash join node) from its
    /// complete build side `build`, each charged to `budget` (one that
    /// does not fit is not made). Returns the charges, to hold while the
    /// probe side runs, and whether a filter passes nothing (then no probe
    /// row can match).
    pub(super) fn make(
        &self,
        join: &PhysicalPlan,
        build: &JoinInput,
        budget: &MemoryBudget,
    ) -> Result<Made> {
        let mut made = Made::default();
        let (partitions, collects_probe) = match &join.operator {
            Operator::Join { join, decision, .. } => {
                let partitions = join
                    .fed()
                    .is_some_and(|fed| fed.partitions_build(build.num_rows()));
                // A partitioned SHUFFLE_HASH collects and scatters its
                // probe side before probing (module docs).
                (
                    partitions,
                    partitions && decision.strategy == Strategy::ShuffleHash,
                )
            }
            _ => (false, false),
        };
        for f in &join.runtime_filters.produced {
            if f.probe_table_rows.is_some_and(|rows| {
                build
                    .num_rows()
                    .saturating_mul(MIN_PROBE_ROWS_PER_BUILD_ROW)
                    > rows
            }) {
                made.not_made.push(f.id);
                continue;
            }
            let columns: Vec<Vec<ArrayRef>> = build
                .batches()
                .iter()
                .filter_map(|b| b.columns().get(f.build_column).cloned())
                .map(|c| vec![c])
                .collect();
            let filter = if columns.is_empty() {
                // No build batch: a filter over no keys.
                let Some(field) = build.schema().fields().get(f.build_column) else {
                    continue;
                };
                let empty = arrow_array::new_empty_array(field.data_type());
                RuntimeFilter::build(&[vec![empty]])
            } else {
                RuntimeFilter::build(&columns)
            };
            // A key type the filter cannot hash: no filter (the join
            // reports the type itself).
            let Ok(filter) = filter else {
                continue;
            };
            // Beside other joins' filters: made when cheap (or when the
            // build side is partitioned, as it always was).
            if f.joins_others && !partitions && !filter.is_cheap() {
                made.not_needed.push((f.id, COSTS_A_PROBE));
                continue;
            }
            // Alone on the probe input of a kernel that probes each row as
            // it comes: made only when its test is cheaper than that probe
            // and can be expected to drop most rows before it.
            if f.at_probe_input && !f.joins_others && !collects_probe {
                if !filter.is_cheaper_than_its_probe() {
                    made.not_needed.push((f.id, COSTS_A_PROBE));
                    continue;
                }
                if filter.key_density() > MAX_PROBE_INPUT_DENSITY {
                    made.not_needed.push((f.id, DENSE_KEYS));
                    continue;
                }
            }
            let Ok(charge) = budget.try_reserve("a runtime join filter", filter.bytes()) else {
                continue;
            };
            made.nothing_passes |= filter.passes_nothing();
            let filter = Arc::new(filter);
            if let Some(slot) = self.0.get(f.id) {
                let _ = slot.set(filter.clone());
            }
            made.filters.push((f.id, filter));
            made.charges.push(charge);
        }
        Ok(made)
    }
}

/// The share of the rows `filter` is expected to pass, in millionths: the
/// share it passed of the rows tested so far, once those are a batch's
/// worth, else the share of its key range its keys hold
/// ([`RuntimeFilter::key_density`]).
fn pass_rate(filter: &RuntimeFilter) -> u64 {
    const MEASURED_AFTER: usize = 4096;
    let (tested, passed) = filter.counts();
    if tested < MEASURED_AFTER {
        return (filter.key_density() * 1e6) as u64;
    }
    (passed as u64 * 1_000_000) / tested as u64
}

/// Tests `filter` on the rows of `column` that `keep` holds, returning the
/// rows that pass both. When `keep` holds under a quarter of the rows, only
/// those rows' keys are gathered and tested (a selective filter before an
/// expensive one: a small part-key filter before an orders-key filter of
/// megabytes); else every row is tested and the results combined.
fn test_kept(
    filter: &RuntimeFilter,
    column: &ArrayRef,
    keep: BooleanBuffer,
) -> Result<BooleanBuffer> {
    let kept = keep.count_set_bits();
    if kept == 0 {
        return Ok(keep);
    }
    if kept >= keep.len() / 4 {
        let pass = filter.may_match(std::slice::from_ref::<ArrayRef>(column))?;
        // Recorded against the rows that reached it (as below).
        let after = &keep & &pass;
        filter.record(kept, after.count_set_bits());
        return Ok(after);
    }
    let mask = BooleanArray::new(keep.clone(), None);
    let keys = arrow_select::filter::filter(column.as_ref(), &mask)
        .map_err(|e| ExecError::arrow("a runtime filter", e))?;
    let pass = filter.may_match(std::slice::from_ref::<ArrayRef>(&keys))?;
    filter.record(kept, pass.count_set_bits());
    let mut out = arrow_buffer::BooleanBufferBuilder::new(keep.len());
    out.append_n(keep.len(), false);
    for (k, i) in keep.set_indices().enumerate() {
        if pass.value(k) {
            out.set_bit(i, true);
        }
    }
    Ok(out.finish())
}

/// A filter on a join's own probe scan (whose build side is not
/// partitioned, so the kernel probes each row as it comes) is made only
/// when its keys fill at most this share of their range: the share of
/// the rows it can be expected to drop before the probe does.
pub const MAX_PROBE_INPUT_DENSITY: f64 = 0.25;

/// Why a filter on a join's own probe scan is not made: its keys fill most
/// of their range, so most rows would pass it and reach the probe anyway.
const DENSE_KEYS: &str = "keys that fill most of their range";

/// Why a filter on a join's probe scan beside other joins' filters is not
/// made: its test (a Bloom filter, or key bits larger than the L2 cache)
/// costs about what the join's own probe of those rows does.
const COSTS_A_PROBE: &str = "a test that costs about what the join's probe does";

/// The runtime filters a join made (see [`Slots::make`]).
#[derive(Default)]
pub(super) struct Made {
    /// Whether one of them passes nothing.
    pub(super) nothing_passes: bool,
    /// The filters not made: the build side is too large for them to pay.
    not_made: Vec<usize>,
    /// The filters on the probe input itself not made, with why
    /// ([`SMALL_BUILD`], [`COSTS_A_PROBE`]).
    not_needed: Vec<(usize, &'static str)>,
    filters: Vec<(usize, Arc<RuntimeFilter>)>,
    charges: Vec<MemoryReservation>,
}

impl Made {
    /// EXPLAIN ANALYZE's summary: what each filter held, the rows it
    /// tested and passed.
    pub(super) fn summary(&self) -> Option<String> {
        if self.filters.is_empty() && self.not_made.is_empty() && self.not_needed.is_empty() {
            return None;
        }
        let mut items: Vec<String> = self
            .filters
            .iter()
            .map(|(id, f)| {
                let (tested, passed) = f.counts();
                let mut s = format!(
                    "{} {}, tested {tested} passed {passed}",
                    filter_name(*id),
                    f.describe()
                );
                if !f.worth_testing() {
                    s.push_str(" (then stopped: most rows passed)");
                }
                s
            })
            .collect();
        items.extend(self.not_made.iter().map(|id| {
            format!(
                "{} not made (a build side of more than 1/{MIN_PROBE_ROWS_PER_BUILD_ROW} of \
                 the rows it would filter)",
                filter_name(*id)
            )
        }));
        items.extend(
            self.not_needed
                .iter()
                .map(|(id, why)| format!("{} not made ({why})", filter_name(*id))),
        );
        Some(items.join("; "))
    }
}
