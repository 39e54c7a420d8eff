//! Constructs the front end refuses before planning, each with what is
//! wrong, where (line and column) and what to write instead.
//!
//! Left to DataFusion's planner (or to tenon's later stages), these fail
//! with messages in their words: a Rust `Debug` dump of the syntax tree
//! (`ASOF JOIN`), a type error about `Null` (`sum(*)`), a suggestion of an
//! unrelated function (`row_number()`), an Arrow error while running
//! (`SELECT DISTINCT FROM t`), or internal wording about the order of
//! planning stages (`= ANY (subquery)`). [`refuse_unsupported`] finds them
//! in the parsed statement first.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, JoinOperator, Query, SetExpr,
    Spanned, Statement, Visit, Visitor,
};

use super::error::SqlError;

/// Functions that only exist as window functions (`... OVER (...)`).
const WINDOW_FUNCTIONS: &[&str] = &[
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// The first construct of `statement` that tenon does not plan, as an
/// error with its position.
///
/// # Errors
/// [`SqlError::Unsupported`] naming the construct, its line and column,
/// and what to write instead; [`SqlError::Syntax`] for a SELECT without
/// columns.
pub(crate) fn refuse_unsupported(statement: &Statement) -> Result<(), SqlError> {
    match statement.visit(&mut Refusals) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

struct Refusals;

/// `at line L, column C` of a node.
fn at(node: &impl Spanned) -> String {
    let start = node.span().start;
    if start.line == 0 {
        String::new()
    } else {
        format!(" (line {}, column {})", start.line, start.column)
    }
}

fn unsupported(message: String) -> ControlFlow<SqlError> {
    ControlFlow::Break(SqlError::Unsupported(message))
}

impl Visitor for Refusals {
    type Break = SqlError;

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<SqlError> {
        // a set operation's branches are selects of this query, not queries
        let mut pending = vec![query.body.as_ref()];
        while let Some(body) = pending.pop() {
            match body {
                SetExpr::SetOperation { left, right, .. } => {
                    pending.push(right);
                    pending.push(left);
                }
                SetExpr::Select(select) => {
                    if select.projection.is_empty() {
                        let start = select.select_token.0.span.start;
                        return ControlFlow::Break(SqlError::syntax(
                            "the SELECT list is empty: name the columns or expressions to \
                             return (or `*` for all)",
                            start.line,
                            start.column,
                        ));
                    }
                    for table in &select.from {
                        for join in &table.joins {
                            if let Some(name) = unsupported_join(&join.join_operator) {
                                return unsupported(format!(
                                    "{name}{}: tenon runs [INNER] JOIN, LEFT / RIGHT / FULL \
                                     [OUTER] JOIN, CROSS JOIN and [LEFT / RIGHT] SEMI / ANTI \
                                     JOIN; write the condition of an as-of join as a join \
                                     condition and a filter",
                                    at(join)
                                ));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<SqlError> {
        match expr {
            Expr::Function(f) => refuse_function(f),
            Expr::AnyOp { right, .. } | Expr::AllOp { right, .. }
                if matches!(right.as_ref(), Expr::Subquery(_)) =>
            {
                let any = matches!(expr, Expr::AnyOp { .. });
                unsupported(format!(
                    "a comparison with {} (subquery){}: write `x IN (SELECT ...)` for \
                     `x = ANY (SELECT ...)`, `x NOT IN (SELECT ...)` for `x <> ALL (SELECT \
                     ...)`, and EXISTS with a correlated condition for other comparisons",
                    if any { "ANY" } else { "ALL" },
                    at(expr)
                ))
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

/// The name of a join operator tenon does not run (`None` for one it runs).
fn unsupported_join(op: &JoinOperator) -> Option<&'static str> {
    match op {
        JoinOperator::AsOf { .. } => Some("ASOF JOIN"),
        JoinOperator::CrossApply => Some("CROSS APPLY"),
        JoinOperator::OuterApply => Some("OUTER APPLY"),
        JoinOperator::StraightJoin(_) => Some("STRAIGHT_JOIN"),
        JoinOperator::ArrayJoin | JoinOperator::LeftArrayJoin | JoinOperator::InnerArrayJoin => {
            Some("ARRAY JOIN")
        }
        _ => None,
    }
}

fn refuse_function(f: &Function) -> ControlFlow<SqlError> {
    let name = f.name.to_string().to_lowercase();
    if f.over.is_some() || WINDOW_FUNCTIONS.contains(&name.as_str()) {
        return unsupported(format!(
            "window function `{name}`{}: tenon does not run window functions (`... OVER \
             (...)`) yet; compute the value with GROUP BY and a join, or in the program \
             that reads the result",
            at(f)
        ));
    }
    if name != "count"
        && let FunctionArguments::List(list) = &f.args
        && list.args.iter().any(|a| {
            matches!(
                a,
                FunctionArg::Unnamed(
                    FunctionArgExpr::Wildcard | FunctionArgExpr::QualifiedWildcard(_)
                )
            )
        })
    {
        return unsupported(format!(
            "`{name}(*)`{}: `*` is an argument only of count(*); give `{name}` a column or an \
             expression",
            at(f)
        ));
    }
    ControlFlow::Continue(())
}
