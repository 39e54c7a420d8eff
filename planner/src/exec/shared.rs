//! Shared subplans: an aggregate the query computes at several places
//! (a CTE read twice, as TPC-H Q15's view `revenue0` is: once joined with
//! `supplier`, once for its maximum) is computed once.
//!
//! # Design
//!
//! DataFusion's SQL planner inlines a CTE at every reference, so the
//! logical plan holds equal copies of its body. [`repeated_aggregates`]
//! counts the `Aggregate` nodes of the logical plan by value
//! (`LogicalPlan`'s `Eq` and `Hash` compare whole subtrees); a copy met
//! inside another counted copy is not counted again, and an aggregate over
//! a join is not counted at all (each copy of a join is a decision of its
//! own, numbered apart by the chooser, which may choose them differently).
//! Lowering ([`SharedPlans`]) lowers an aggregate that occurs
//! more than once is lowered once, at its first place, under an
//! [`Operator::Shared`] holding it; the later places become `Shared`
//! nodes with the same number and no input. An aggregate always lowers to
//! all its columns, so every place can read the same batches.
//!
//! Running ([`SharedRows`]): before the plan runs, every shared subplan
//! is collected once (a subplan reading another shared one after that
//! one), its batches held and charged to the query's budget until the
//! run ends; each `Shared` node then replays them, in parallel. Computing
//! them up front, on the thread that starts the run, is what keeps this
//! free of waits: a place reached while another thread computed the rows
//! would have to block inside the rayon pool, and a blocked worker can
//! hold the very job the computing thread waits for. The cost is that a
//! shared subplan runs even when a LIMIT or an empty join side would have
//! let the rest of the plan skip it.
//!
//! A runtime join filter made outside a shared subplan is not tested
//! inside it (its rows serve places the filter knows nothing of): the
//! filter's walk down the plan stops at the `Shared` node and tests the
//! replayed rows there instead (module `runtime_filter`). For the same
//! reason the default choice does not count on a runtime filter reaching a
//! shared aggregate (docs/hints.md H15 rule 3).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use datafusion_expr::LogicalPlan;
use rayon::prelude::*;

use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Held, Run, Sink};
use crate::exec::{ExecError, Result};

/// The shared subplans of one lowering: which aggregates occur more than
/// once, and those lowered so far.
#[derive(Debug, Default)]
pub(crate) struct SharedPlans {
    repeated: HashSet<LogicalPlan>,
    lowered: HashMap<LogicalPlan, (usize, arrow_schema::SchemaRef)>,
}

impl SharedPlans {
    /// The aggregates of `root` that occur more than once (none when
    /// `enabled` is false).
    pub(crate) fn find(root: &LogicalPlan, enabled: bool) -> Self {
        SharedPlans {
            repeated: if enabled {
                repeated_aggregates(root)
            } else {
                HashSet::new()
            },
            lowered: HashMap::new(),
        }
    }

    /// A `Shared` node reading `plan`'s rows, when `plan` was lowered
    /// before as a shared subplan.
    pub(crate) fn reader(&self, plan: &LogicalPlan) -> Option<PhysicalPlan> {
        let (id, schema) = self.lowered.get(plan)?;
        Some(PhysicalPlan::new(
            Operator::Shared {
                id: *id,
                input: None,
            },
            schema.clone(),
        ))
    }

    /// `lowered` (the lowering of `plan`) under a `Shared` node when `plan`
    /// occurs again later; else `lowered` itself.
    pub(crate) fn first_place(
        &mut self,
        plan: &LogicalPlan,
        lowered: PhysicalPlan,
    ) -> PhysicalPlan {
        if !self.repeated.contains(plan) {
            return lowered;
        }
        let id = self.lowered.len();
        let schema = lowered.schema.clone();
        self.lowered.insert(plan.clone(), (id, schema.clone()));
        PhysicalPlan::new(
            Operator::Shared {
                id,
                input: Some(Box::new(lowered)),
            },
            schema,
        )
    }
}

/// The `Aggregate` nodes of `root` that occur more than once, counted by
/// value, a copy inside another counted copy not counted again; an
/// aggregate with a join below it is left out (each copy of a join is a
/// decision of its own: the chooser numbers them apart).
pub(crate) fn repeated_aggregates(root: &LogicalPlan) -> HashSet<LogicalPlan> {
    let mut counts: HashMap<&LogicalPlan, usize> = HashMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if let LogicalPlan::Aggregate(_) = node
            && !has_join(node)
        {
            let n = counts.entry(node).or_default();
            *n += 1;
            if *n > 1 {
                // Its inner nodes were counted at its first place.
                continue;
            }
        }
        stack.extend(node.inputs());
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(p, _)| p.clone())
        .collect()
}

fn has_join(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Join(_)) || plan.inputs().into_iter().any(has_join)
}

/// The rows of a run's shared subplans, by number.
#[derive(Default)]
pub(super) struct SharedRows(Vec<OnceLock<Held>>);

impl SharedRows {
    /// Empty slots for the shared subplans of `plan`.
    pub(super) fn for_plan(plan: &PhysicalPlan) -> Self {
        let n = owners(plan).len();
        SharedRows((0..n).map(|_| OnceLock::new()).collect())
    }
}

/// The subplan of each shared number (`None`: no first place found).
fn owners(plan: &PhysicalPlan) -> Vec<Option<&PhysicalPlan>> {
    fn walk<'a>(p: &'a PhysicalPlan, out: &mut Vec<Option<&'a PhysicalPlan>>) {
        if let Operator::Shared { id, input } = &p.operator {
            if out.len() <= *id {
                out.resize(*id + 1, None);
            }
            if let Some(input) = input {
                out[*id] = Some(input);
            }
        }
        for c in p.children() {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    walk(plan, &mut out);
    out
}

/// The shared numbers read inside `plan`.
fn reads(plan: &PhysicalPlan, out: &mut Vec<usize>) {
    if let Operator::Shared { id, .. } = &plan.operator {
        out.push(*id);
    }
    for c in plan.children() {
        reads(c, out);
    }
}

impl Run<'_> {
    /// Collects every shared subplan of `plan` once (see the module docs).
    ///
    /// # Errors
    ///
    /// The first error of a subplan.
    pub(super) fn compute_shared(&self, plan: &PhysicalPlan) -> Result<()> {
        let owners = owners(plan);
        for id in 0..owners.len() {
            self.ensure_shared(id, &owners, 0)?;
        }
        Ok(())
    }

    fn ensure_shared(
        &self,
        id: usize,
        owners: &[Option<&PhysicalPlan>],
        depth: usize,
    ) -> Result<()> {
        let slot = self.shared.0.get(id).ok_or_else(|| internal(id))?;
        if slot.get().is_some() {
            return Ok(());
        }
        let input = owners
            .get(id)
            .copied()
            .flatten()
            .ok_or_else(|| internal(id))?;
        if depth > owners.len() {
            return Err(internal(id)); // a cycle: cannot come from lowering
        }
        let mut inner = Vec::new();
        reads(input, &mut inner);
        for r in inner {
            self.ensure_shared(r, owners, depth + 1)?;
        }
        let held = self.collect(
            input,
            input,
            "a shared subplan's rows (a CTE used at several places)",
        )?;
        // Set once: `ensure_shared` runs on one thread, before the plan.
        let _ = slot.set(held);
        Ok(())
    }

    /// Pushes the held rows of shared subplan `id` into `sink`.
    pub(super) fn replay_shared(&self, id: usize, sink: &Sink<'_>) -> Result<()> {
        let held = self
            .shared
            .0
            .get(id)
            .and_then(OnceLock::get)
            .ok_or_else(|| internal(id))?;
        held.batches.par_iter().try_for_each(|b| sink(b.clone()))
    }
}

fn internal(id: usize) -> ExecError {
    ExecError::Unsupported(format!(
        "internal: shared subplan #{id} has no rows computed before it is read"
    ))
}
