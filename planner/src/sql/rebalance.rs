//! Long chains of `UNION ALL` (and of `UNION`) rebuilt as balanced trees
//! before planning, so that planning them takes time near-linear in their
//! length.
//!
//! The parser builds `a UNION ALL b UNION ALL c ...` left-deep: branch `n`
//! sits `n` levels down. DataFusion's `SqlToRel` computes the source span
//! of every set operation's operands (a walk over the whole operand) at
//! every level, which makes a left-deep chain of `n` branches cost `n²`.
//! A balanced tree of the same branches in the same order costs
//! `n log n`.
//!
//! The result is the same: `UNION ALL` is associative on bags (and `UNION`
//! on sets), the column names and the first branch's types are still the
//! leftmost branch's, nullability is that of any branch, and the branches
//! keep their order (so their query blocks keep their numbers). Only runs
//! of one operator with one quantifier are rebuilt: a parenthesized
//! operand (`(a UNION b) UNION ALL c`), which may have its own ORDER BY or
//! LIMIT, is one branch. Where the branches' column types differ, the
//! lowering casts them to a common type pairwise, up the tree; for
//! unusual mixes (decimals of several scales) a different grouping could
//! meet at a different type, so a chain shorter than
//! [`REBALANCE_MIN_BRANCHES`] (every hand-written query) keeps the parser's
//! shape exactly.

use std::ops::ControlFlow;

use sqlparser::ast::VisitorMut;
use sqlparser::ast::{Query, SetExpr, SetOperator, SetQuantifier, Statement, Values, VisitMut};

/// Chains of fewer branches are left as parsed.
pub const REBALANCE_MIN_BRANCHES: usize = 64;

/// Rebuilds every long `UNION ALL` / `UNION` chain of `statement` (in
/// subqueries, CTEs and view bodies too) as a balanced tree.
pub(crate) fn rebalance_set_operations(statement: &mut Statement) {
    struct Chains;
    impl VisitorMut for Chains {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            rebalance_body(&mut query.body);
            ControlFlow::Continue(())
        }
    }
    let _ = VisitMut::visit(statement, &mut Chains);
}

/// The operator and quantifier of a union run.
fn union_kind(body: &SetExpr) -> Option<SetQuantifier> {
    match body {
        SetExpr::SetOperation {
            op: SetOperator::Union,
            set_quantifier: q @ (SetQuantifier::All | SetQuantifier::Distinct | SetQuantifier::None),
            ..
        } => Some(*q),
        _ => None,
    }
}

/// The number of branches of the run of `quantifier` unions at `body`.
fn branch_count(body: &SetExpr, quantifier: SetQuantifier) -> usize {
    let mut pending = vec![body];
    let mut branches = 0;
    while let Some(e) = pending.pop() {
        match e {
            SetExpr::SetOperation { left, right, .. } if union_kind(e) == Some(quantifier) => {
                pending.push(right);
                pending.push(left);
            }
            _ => branches += 1,
        }
    }
    branches
}

fn placeholder() -> SetExpr {
    SetExpr::Values(Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    })
}

/// Rebuilds the union run at `body` (if long enough) as a balanced tree,
/// and the runs inside its branches.
fn rebalance_body(body: &mut SetExpr) {
    let Some(quantifier) = union_kind(body) else {
        if let SetExpr::SetOperation { left, right, .. } = body {
            rebalance_body(left);
            rebalance_body(right);
        }
        return;
    };
    if branch_count(body, quantifier) < REBALANCE_MIN_BRANCHES {
        let mut pending = vec![body];
        while let Some(e) = pending.pop() {
            if union_kind(e) == Some(quantifier)
                && let SetExpr::SetOperation { left, right, .. } = e
            {
                pending.push(right);
                pending.push(left);
            } else {
                rebalance_body(e);
            }
        }
        return;
    }
    let mut branches = Vec::new();
    let mut pending = vec![std::mem::replace(body, placeholder())];
    while let Some(e) = pending.pop() {
        if union_kind(&e) == Some(quantifier)
            && let SetExpr::SetOperation { left, right, .. } = e
        {
            pending.push(*right);
            pending.push(*left);
        } else {
            let mut e = e;
            rebalance_body(&mut e);
            branches.push(e);
        }
    }
    *body = balanced(branches, quantifier);
}

/// `branches` (two or more) joined by unions as a balanced tree, in order.
fn balanced(mut branches: Vec<SetExpr>, quantifier: SetQuantifier) -> SetExpr {
    if branches.len() == 1 {
        return branches.pop().unwrap_or_else(placeholder);
    }
    let right = branches.split_off(branches.len().div_ceil(2));
    SetExpr::SetOperation {
        left: Box::new(balanced(branches, quantifier)),
        op: SetOperator::Union,
        set_quantifier: quantifier,
        right: Box::new(balanced(right, quantifier)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(e: &SetExpr) -> usize {
        match e {
            SetExpr::SetOperation { left, right, .. } => 1 + depth(left).max(depth(right)),
            _ => 0,
        }
    }

    fn parse(sql: &str) -> Statement {
        let mut statements = crate::sql::dialect::parser()
            .try_with_sql(sql)
            .expect("tokenizes")
            .parse_statements()
            .expect("parses");
        statements.remove(0)
    }

    fn body(statement: &Statement) -> &SetExpr {
        let Statement::Query(q) = statement else {
            panic!("a query")
        };
        &q.body
    }

    #[test]
    fn union_all_of_1750_branches_planned_in_quadratic_time_is_balanced() {
        // the left-deep chain of the parser is 1749 levels deep; balanced,
        // every level's span walk covers a half as long operand
        let branches: Vec<String> = (0..1750).map(|i| format!("SELECT {i} AS x")).collect();
        let sql = branches.join(" UNION ALL ");
        let mut statement = parse(&sql);
        assert_eq!(depth(body(&statement)), 1749);
        rebalance_set_operations(&mut statement);
        assert_eq!(depth(body(&statement)), 11);
        // same branches, same order
        assert_eq!(statement.to_string(), parse(&sql).to_string());
    }

    #[test]
    fn short_and_mixed_chains_keep_their_shape() {
        let short: Vec<String> = (0..10).map(|i| format!("SELECT {i}")).collect();
        let mut statement = parse(&short.join(" UNION ALL "));
        rebalance_set_operations(&mut statement);
        assert_eq!(depth(body(&statement)), 9);
        // a UNION (distinct) in a UNION ALL chain is a boundary of the run
        let mut mixed: Vec<String> = (0..200).map(|i| format!("SELECT {i}")).collect();
        mixed[100] = format!("{} UNION SELECT 100", mixed[100]);
        let sql = mixed.join(" UNION ALL ");
        let mut statement = parse(&sql);
        rebalance_set_operations(&mut statement);
        assert_eq!(statement.to_string(), parse(&sql).to_string());
        // both runs (0..=100 inside the UNION, and the UNION with 101..200)
        // are balanced
        assert!(depth(body(&statement)) < 20, "{}", depth(body(&statement)));
    }
}
