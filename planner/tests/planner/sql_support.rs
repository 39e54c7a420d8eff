//! Helpers shared by the SQL front end's tests: the joins of a planned
//! query and their keys and residual as text.

use datafusion_expr::{Join, LogicalPlan};
use tenon_planner::sql::{PlannedQuery, node_at};

/// The joins of the query, blocks in id order, as planned.
pub fn joins(p: &PlannedQuery) -> Vec<Join> {
    p.joins()
        .map(|(_, j)| match node_at(&p.plan, &j.path) {
            Some(LogicalPlan::Join(join)) => join,
            other => panic!("no join at {:?}: {other:?}", j.path),
        })
        .collect()
}

/// The equi keys as `l = r`.
pub fn keys(join: &Join) -> Vec<String> {
    join.on.iter().map(|(l, r)| format!("{l} = {r}")).collect()
}

/// The residual condition as text.
pub fn filter(join: &Join) -> Option<String> {
    join.filter.as_ref().map(ToString::to_string)
}
