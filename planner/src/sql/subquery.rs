//! `IN` / `NOT IN` subqueries in WHERE as semi / anti joins (J03).
//!
//! `SqlToRel` keeps a subquery predicate as an expression of the WHERE
//! `Filter`: `Expr::InSubquery { expr, subquery, negated }`,
//! `Expr::Exists { subquery, negated }` or `Expr::ScalarSubquery`, with the
//! subquery's plan in `Subquery.subquery` and its references to the outer
//! query as `Expr::OuterReferenceColumn` (listed in
//! `Subquery.outer_ref_columns`).
//!
//! This rewrite handles the *uncorrelated* `IN` / `NOT IN` that is a
//! top-level conjunct of a WHERE clause:
//!
//! ```text
//! Filter: p AND x IN (<subquery>)          Filter: p
//!   <input>                          ──►     LeftSemi Join: on x = __sq_1.c
//!                                              <input>
//!                                              SubqueryAlias: __sq_1
//!                                                <subquery>
//! ```
//!
//! `NOT IN` becomes a *null-aware* `LeftAnti` join (`Join.null_aware`):
//! a NULL on the subquery side, or a NULL `x`, means no row, as SQL's
//! three-valued `NOT IN` says (unless the subquery is empty). The new join
//! sits under the block's marker filter, so it belongs to the outer block;
//! the subquery keeps its own block. Correlated subqueries and `EXISTS` /
//! `NOT EXISTS` are left to [`decorrelate_subqueries`](super::decorrelate_subqueries).

use std::sync::Arc;

use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{Column, NullEquality, Result};
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    Expr, Filter, Join, JoinConstraint, JoinType, LogicalPlan, SubqueryAlias, expr::InSubquery,
};

/// Rewrites uncorrelated `IN` / `NOT IN` WHERE conjuncts into semi /
/// null-aware anti joins, everywhere in `plan` (see the module docs).
///
/// # Errors
/// Only if building a join fails (a bug).
pub fn in_subqueries_to_joins(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut counter = 0usize;
    plan.transform_up_with_subqueries(|node| {
        let LogicalPlan::Filter(filter) = node else {
            return Ok(Transformed::no(node));
        };
        let conjuncts = split_conjunction_owned(filter.predicate.clone());
        if !conjuncts.iter().any(is_uncorrelated_in) {
            return Ok(Transformed::no(LogicalPlan::Filter(filter)));
        }
        let mut input = Arc::clone(&filter.input);
        let mut rest = Vec::new();
        for conjunct in conjuncts {
            if !is_uncorrelated_in(&conjunct) {
                rest.push(conjunct);
                continue;
            }
            let Expr::InSubquery(InSubquery {
                expr,
                subquery,
                negated,
                ..
            }) = conjunct
            else {
                continue;
            };
            counter += 1;
            let alias = format!("__sq_{counter}");
            let right = LogicalPlan::SubqueryAlias(SubqueryAlias::try_new(
                Arc::clone(&subquery.subquery),
                alias.as_str(),
            )?);
            let field = right.schema().field(0).name().clone();
            let key = Expr::Column(Column::new(Some(alias), field));
            let join = Join::try_new(
                input,
                Arc::new(right),
                vec![(*expr, key)],
                None,
                if negated {
                    JoinType::LeftAnti
                } else {
                    JoinType::LeftSemi
                },
                JoinConstraint::On,
                NullEquality::NullEqualsNothing,
                negated,
            )?;
            input = Arc::new(LogicalPlan::Join(join));
        }
        let plan = match conjunction(rest) {
            Some(predicate) => LogicalPlan::Filter(Filter::try_new(predicate, input)?),
            None => Arc::unwrap_or_clone(input),
        };
        Ok(Transformed::yes(plan))
    })
    .map(|t| t.data)
}

/// `x IN (subquery)` with `x` over columns of the filter's input and a
/// one-column subquery that does not refer to the outer query.
fn is_uncorrelated_in(expr: &Expr) -> bool {
    let Expr::InSubquery(InSubquery { expr, subquery, .. }) = expr else {
        return false;
    };
    let plain_key = !expr.column_refs().is_empty()
        && !expr
            .exists(|e| {
                Ok(matches!(
                    e,
                    Expr::OuterReferenceColumn(..)
                        | Expr::Exists(_)
                        | Expr::InSubquery(_)
                        | Expr::ScalarSubquery(_)
                ))
            })
            .unwrap_or(true);
    plain_key
        && subquery.outer_ref_columns.is_empty()
        && subquery.subquery.schema().fields().len() == 1
}
