//! `x <op> ANY (subquery)` and `x <op> ALL (subquery)` as conditions of a
//! WHERE clause: rewritten in the syntax tree into the EXISTS forms that
//! tenon decorrelates (module `exists`).
//!
//! A WHERE clause keeps a row only when its condition is true, so for a
//! top-level AND conjunct of it:
//!
//! ```text
//! x > ANY (SELECT y ...)  ──►  EXISTS (SELECT 1 FROM (SELECT y ...) AS "any subquery"("any value")
//!                                      WHERE x > "any subquery"."any value")
//! x > ALL (SELECT y ...)  ──►  NOT EXISTS (SELECT 1 FROM (SELECT y ...) AS "any subquery"("any value")
//!                                          WHERE (x > "any subquery"."any value") IS NOT TRUE)
//! ```
//!
//! ANY is true when one comparison is true (a NULL or an empty subquery
//! keeps nothing, as the EXISTS does); ALL is true when no comparison is
//! false or unknown (an empty subquery keeps every row, a NULL on either
//! side none). Elsewhere (under NOT or OR, in a SELECT list) ANY and ALL
//! can be unknown where EXISTS is false, so they are left for
//! `unsupported` to refuse.

use sqlparser::ast::{
    BinaryOperator, Expr, Ident, Query, SetExpr, Statement, TableAlias, TableAliasColumnDef,
    TableFactor, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// The alias of the subquery's derived table and its one column (quoted
/// names with a space, which no unquoted name can meet).
const TABLE: &str = "any subquery";
const COLUMN: &str = "any value";

/// Rewrites the ANY / ALL subquery comparisons that are top-level AND
/// conjuncts of a WHERE clause (module docs).
pub(super) fn rewrite_quantified(statement: &mut Statement) {
    struct Rewrite;
    impl VisitorMut for Rewrite {
        type Break = ();
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            rewrite_body(&mut query.body);
            ControlFlow::Continue(())
        }
    }
    let _ = statement.visit(&mut Rewrite);
}

fn rewrite_body(body: &mut SetExpr) {
    match body {
        SetExpr::Select(select) => {
            if let Some(selection) = &mut select.selection {
                rewrite_conjuncts(selection);
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            rewrite_body(left);
            rewrite_body(right);
        }
        _ => {}
    }
}

fn rewrite_conjuncts(expr: &mut Expr) {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            rewrite_conjuncts(left);
            rewrite_conjuncts(right);
        }
        Expr::Nested(inner) => rewrite_conjuncts(inner),
        Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        } if matches!(right.as_ref(), Expr::Subquery(_)) => {
            if let Some(e) = exists(left, compare_op, right, false) {
                *expr = e;
            }
        }
        Expr::AllOp {
            left,
            compare_op,
            right,
        } if matches!(right.as_ref(), Expr::Subquery(_)) => {
            if let Some(e) = exists(left, compare_op, right, true) {
                *expr = e;
            }
        }
        _ => {}
    }
}

/// The EXISTS form of `left <op> ANY|ALL (right)` (module docs).
fn exists(left: &Expr, op: &BinaryOperator, right: &Expr, all: bool) -> Option<Expr> {
    let Expr::Subquery(subquery) = right else {
        return None;
    };
    let value = Expr::CompoundIdentifier(vec![
        Ident::with_quote('"', TABLE),
        Ident::with_quote('"', COLUMN),
    ]);
    let compare = Expr::BinaryOp {
        left: Box::new(left.clone()),
        op: op.clone(),
        right: Box::new(value),
    };
    let condition = if all {
        Expr::IsNotTrue(Box::new(Expr::Nested(Box::new(compare))))
    } else {
        compare
    };
    // A template for the outer SELECT: its tokens come from no text of the
    // user's (empty spans), so no hint comment is matched to it.
    let mut query = *super::dialect::parser()
        .try_with_sql("SELECT 1 FROM t")
        .ok()?
        .parse_query()
        .ok()?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return None;
    };
    select.select_token = sqlparser::ast::helpers::attached_token::AttachedToken::empty();
    let from = select.from.first_mut()?;
    from.relation = TableFactor::Derived {
        lateral: false,
        subquery: subquery.clone(),
        alias: Some(TableAlias {
            explicit: true,
            name: Ident::with_quote('"', TABLE),
            columns: vec![TableAliasColumnDef {
                name: Ident::with_quote('"', COLUMN),
                data_type: None,
            }],
            at: None,
        }),
        sample: None,
    };
    select.selection = Some(condition);
    Some(Expr::Exists {
        subquery: Box::new(query),
        negated: all,
    })
}
