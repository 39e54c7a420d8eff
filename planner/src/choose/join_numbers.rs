//! Each `LogicalPlan::Join` of a chosen plan carries the number of its
//! decision, so that lowering finds a join's decision from the node itself
//! instead of walking the plan in the order the chooser did.
//!
//! # Design
//!
//! DataFusion's `Join` has no field for a caller's data, but its output
//! schema (`Join::schema`, a `DFSchema`) has a string map of metadata that
//! DataFusion carries unchanged: cloning a plan shares it, and rebuilding
//! the nodes above (`map_children`, as [`JoinPlan::rename_scan`] does)
//! keeps each node's schema. [`number_joins`] writes the key
//! [`DECISION_KEY`] into every join's schema, once, as the last step of
//! choosing, and [`decision_number`] reads it back. The number indexes
//! [`JoinPlan::joins`] followed by [`JoinPlan::set_operation_joins`]
//! ([`JoinPlan::decision_of`]).
//!
//! Why this is sound: nothing plans or rewrites the plan after choosing
//! (a rewrite that rebuilt a join's schema would drop its number, and
//! lowering then fails with an internal error instead of guessing); every
//! join's key is written, overwriting any value a table's own metadata
//! brought along; and tenon's physical schemas are built from fields, so
//! the key never reaches a result.
//!
//! The walk that numbers the joins is the only place where a join is
//! matched to its decision by its [`PlanPath`], the address the SQL front
//! end records ([`crate::sql::JoinRef::path`]).
//!
//! [`JoinPlan::rename_scan`]: super::JoinPlan::rename_scan
//! [`JoinPlan::joins`]: super::JoinPlan::joins
//! [`JoinPlan::set_operation_joins`]: super::JoinPlan::set_operation_joins
//! [`JoinPlan::decision_of`]: super::JoinPlan::decision_of

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{DFSchema, Result as DfResult};
use datafusion_expr::{Join, LogicalPlan};

use crate::sql::PlanPath;

/// The schema metadata key that holds a join's decision number.
pub(crate) const DECISION_KEY: &str = "tenon.join_decision";

/// The decision number [`number_joins`] wrote on `join`.
pub(crate) fn decision_number(join: &Join) -> Option<usize> {
    join.schema.metadata().get(DECISION_KEY)?.parse().ok()
}

/// `plan` with every join numbered by `number(path, join)`, where `path`
/// follows [`crate::sql::node_at`]'s convention (a node's inputs, then the
/// subquery plans of its expressions).
///
/// # Errors
/// What `number` returns, and errors of rebuilding a join's schema.
pub(super) fn number_joins(
    plan: LogicalPlan,
    number: &mut dyn FnMut(&PlanPath, &Join) -> DfResult<usize>,
) -> DfResult<LogicalPlan> {
    walk(plan, &mut PlanPath::default(), number)
}

fn walk(
    plan: LogicalPlan,
    path: &mut PlanPath,
    number: &mut dyn FnMut(&PlanPath, &Join) -> DfResult<usize>,
) -> DfResult<LogicalPlan> {
    // one counter for both: subquery plans are numbered after the inputs
    let mut index = 0;
    let mut visit = |child: LogicalPlan| {
        path.0.push(index);
        index += 1;
        let out = walk(child, path, number);
        path.0.pop();
        out.map(Transformed::yes)
    };
    let plan = plan.map_children(&mut visit)?.data;
    let plan = plan.map_subqueries(&mut visit)?.data;
    match plan {
        LogicalPlan::Join(join) => {
            let n = number(path, &join)?;
            Ok(LogicalPlan::Join(numbered(join, n)?))
        }
        other => Ok(other),
    }
}

/// `join` with decision number `n` in its schema's metadata.
fn numbered(join: Join, n: usize) -> DfResult<Join> {
    let schema = join.schema.as_ref();
    let mut metadata = schema.metadata().clone();
    metadata.insert(DECISION_KEY.to_string(), n.to_string());
    let fields = schema
        .iter()
        .map(|(q, f)| (q.cloned(), Arc::clone(f)))
        .collect();
    let schema = DFSchema::new_with_metadata(fields, metadata)?
        .with_functional_dependencies(schema.functional_dependencies().clone())?;
    Ok(Join {
        schema: Arc::new(schema),
        ..join
    })
}
