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
//!
//! It also refuses statements larger than tenon plans ([`SqlError::Limit`],
//! naming the limit): planning and running recurse over the statement's
//! trees, and past these sizes a statement could exhaust even the large
//! stack it is planned on (`tenon::Session` chooses it), which aborts the
//! process. The visitor itself stops at the depth limit, so it never
//! recurses deeper than the limit.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, JoinOperator, Query, SetExpr,
    Spanned, Statement, Value, Visit, VisitMut, Visitor, VisitorMut,
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
pub(crate) fn refuse_unsupported(statement: Statement) -> Result<Statement, SqlError> {
    // first the depth alone: positions (`Spanned::span`) recurse over the
    // whole subtree, safe only once the depth is known to be bounded
    let mut depth = Depth::default();
    if let ControlFlow::Break(e) = statement.visit(&mut depth) {
        dismantle(statement);
        return Err(e);
    }
    let mut statement = statement;
    super::quantified::rewrite_quantified(&mut statement);
    match statement.visit(&mut Refusals) {
        ControlFlow::Break(e) => {
            dismantle(statement);
            Err(e)
        }
        ControlFlow::Continue(()) => Ok(statement),
    }
}

/// Drops `statement` without recursing down its operator chains (dropping
/// a chain of `n` terms recursively takes stack in proportion to `n`; a
/// refused statement can be deeper than any stack).
fn dismantle(mut statement: Statement) {
    struct Chains;
    impl VisitorMut for Chains {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            let mut pending = vec![std::mem::replace(expr, Expr::value(Value::Null))];
            while let Some(e) = pending.pop() {
                match e {
                    Expr::BinaryOp { left, right, .. } => {
                        pending.push(*left);
                        pending.push(*right);
                    }
                    Expr::UnaryOp { expr, .. }
                    | Expr::Nested(expr)
                    | Expr::IsNull(expr)
                    | Expr::IsNotNull(expr)
                    | Expr::IsTrue(expr)
                    | Expr::IsFalse(expr)
                    | Expr::Cast { expr, .. } => pending.push(*expr),
                    other => drop(other),
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = VisitMut::visit(&mut statement, &mut Chains);
}

/// The deepest expression tree planned: a chain of `n` `OR` / `AND` / `+`
/// terms is `n` deep.
pub const EXPRESSION_DEPTH_LIMIT: usize = 4096;

/// The most `UNION` / `INTERSECT` / `EXCEPT` branches of one query.
pub const SET_OPERATION_LIMIT: usize = 4000;

/// The most tables (and derived tables) in one FROM clause, joined or
/// comma-separated.
pub const FROM_TABLES_LIMIT: usize = 1000;

/// The most WITH clauses of one query.
///
/// DataFusion's planner inlines a CTE's plan where it is read and walks
/// the whole inlined plan there, so a chain of `n` CTEs each reading the
/// one before costs `n²`. The limit is the length whose planning stays
/// near a second in a release build.
pub const WITH_CLAUSES_LIMIT: usize = 1000;

/// The deepest nesting of arithmetic operators (`+`, `-`, `*`, `/`, `%`,
/// `||`): a chain of `n` terms `a + b + ...` is `n - 1` deep.
///
/// DataFusion names a computed column by rendering its expression, and
/// while it finds the column's type it renders every level's operand again
/// (`Expr::to_field`), so a chain of `n` terms in a SELECT list or an
/// aggregate costs `n²`; the limit is the depth whose planning stays under
/// a second in a release build. Unlike `OR` /
/// `AND` chains (rebalancing gives the same result), a chain of `+` cannot
/// be regrouped by tenon: integer overflow and float rounding depend on the
/// grouping the query wrote.
pub const ARITHMETIC_DEPTH_LIMIT: usize = 2000;

/// The depth check.
#[derive(Default)]
struct Depth {
    /// The depth of the expression being visited.
    depth: usize,
    /// How many arithmetic operators enclose it.
    arithmetic: usize,
}

/// An operator whose chains `ARITHMETIC_DEPTH_LIMIT` bounds.
fn is_arithmetic(expr: &Expr) -> bool {
    use sqlparser::ast::BinaryOperator as Op;
    matches!(
        expr,
        Expr::BinaryOp {
            op: Op::Plus | Op::Minus | Op::Multiply | Op::Divide | Op::Modulo | Op::StringConcat,
            ..
        }
    )
}

/// The other checks.
struct Refusals;

impl Visitor for Depth {
    type Break = SqlError;

    fn post_visit_expr(&mut self, expr: &Expr) -> ControlFlow<SqlError> {
        self.depth -= 1;
        if is_arithmetic(expr) {
            self.arithmetic -= 1;
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<SqlError> {
        self.depth += 1;
        if is_arithmetic(expr) {
            self.arithmetic += 1;
            if self.arithmetic > ARITHMETIC_DEPTH_LIMIT {
                return too_large(
                    format!(
                        "an arithmetic expression nests more than {ARITHMETIC_DEPTH_LIMIT} \
                         operators (+, -, *, /, %, ||) deep (a chain of n terms is n - 1 deep; \
                         its planning time grows with the square of that depth)"
                    ),
                    ARITHMETIC_DEPTH_LIMIT,
                    "group the terms in parentheses, `(a + b + ...) + (c + d + ...)` (the \
                     grouping decides where integers overflow), or sum the values as rows \
                     with sum()",
                );
            }
        }
        if self.depth > EXPRESSION_DEPTH_LIMIT {
            return too_large(
                format!(
                    "an expression is nested more than {EXPRESSION_DEPTH_LIMIT} levels deep \
                     (each term of a chain of OR, AND, + ... is a level)"
                ),
                EXPRESSION_DEPTH_LIMIT,
                "write `x IN (a, b, ...)` for a chain of `x = a OR x = b ...`, or split the \
                 expression",
            );
        }
        ControlFlow::Continue(())
    }
}

fn too_large(what: String, limit: usize, advice: &str) -> ControlFlow<SqlError> {
    ControlFlow::Break(SqlError::Limit(format!(
        "{what}; tenon plans at most {limit}: {advice}"
    )))
}

/// ` (line L, column C)` of a node (empty when it has no position).
pub(crate) fn at(node: &impl Spanned) -> String {
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
        if let Some(with) = &query.with
            && with.cte_tables.len() > WITH_CLAUSES_LIMIT
        {
            return too_large(
                format!("the query has {} WITH clauses", with.cte_tables.len()),
                WITH_CLAUSES_LIMIT,
                "a chain of CTEs costs time in the square of its length to plan; split it \
                 into several statements (a CREATE VIEW for a part of the chain)",
            );
        }
        // a set operation's branches are selects of this query, not queries
        let mut pending = vec![query.body.as_ref()];
        let mut branches = 1;
        while let Some(body) = pending.pop() {
            match body {
                SetExpr::SetOperation { left, right, .. } => {
                    branches += 1;
                    if branches > SET_OPERATION_LIMIT {
                        return too_large(
                            format!(
                                "the query has more than {SET_OPERATION_LIMIT} UNION / \
                                 INTERSECT / EXCEPT branches"
                            ),
                            SET_OPERATION_LIMIT,
                            "put the rows in a table (or a VALUES list) instead",
                        );
                    }
                    pending.push(right);
                    pending.push(left);
                }
                SetExpr::Select(select) => {
                    let tables: usize = select.from.iter().map(|t| 1 + t.joins.len()).sum();
                    if tables > FROM_TABLES_LIMIT {
                        return too_large(
                            format!("a FROM clause{} joins {tables} tables", at(&**select)),
                            FROM_TABLES_LIMIT,
                            "join fewer tables per query (a view can join a part of them)",
                        );
                    }
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
        let reserved = match expr {
            Expr::Identifier(i) => Some(i),
            Expr::CompoundIdentifier(parts) => parts.last(),
            Expr::Function(f) => match f.name.0.last() {
                Some(sqlparser::ast::ObjectNamePart::Identifier(i)) => Some(i),
                _ => None,
            },
            _ => None,
        };
        // the tombstone column of a change log's versions may be read
        // (`SELECT * FROM t$versions`), but not in a temporal join (the
        // time-join rewrite says so)
        if let Some(name) = reserved.filter(|i| {
            let v = i.value.to_lowercase();
            v.starts_with("__tenon_") && v != crate::sql::catalog::DELETED_COLUMN
        }) {
            return unsupported(format!(
                "`{name}`{}: names starting with __tenon_ are tenon's own (markers and hidden \
                 columns) and cannot be used in SQL",
                at(expr)
            ));
        }
        match expr {
            Expr::Function(f) => refuse_function(f),
            Expr::AnyOp { right, .. } | Expr::AllOp { right, .. }
                if matches!(right.as_ref(), Expr::Subquery(_)) =>
            {
                let any = matches!(expr, Expr::AnyOp { .. });
                unsupported(format!(
                    "a comparison with {} (subquery){}: tenon plans it as a condition of a \
                     WHERE clause (alone or ANDed with others); elsewhere write `x IN (SELECT \
                     ...)` for `x = ANY (SELECT ...)`, `x NOT IN (SELECT ...)` for `x <> ALL \
                     (SELECT ...)`, and EXISTS with a correlated condition for other comparisons",
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
