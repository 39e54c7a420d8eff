//! `MULTI_JOIN` hints (docs/hints.md H50): the listed inputs of a query
//! block, joined on a key they all share, run as one multi-way join in
//! Flink (no intermediate join result kept). tenon checks the hint as the
//! seed documents say and tells, in EXPLAIN, what becomes of it:
//!
//! - the arguments are names of the block's inputs, by alias when a table
//!   has one (H10, H11, H32: the join hints' errors);
//! - the group's joins (those between two listed inputs) must be INNER or
//!   LEFT and share at least one key, transitively (`t1.id = t2.id AND
//!   t2.id = t3.id`): a key column of every listed input in one class of
//!   columns the equi conditions make equal;
//! - tenon has no multi-way join operator yet, so a valid group runs as
//!   its binary joins too. Every MULTI_JOIN is listed under its block with
//!   the reason; in strict mode (H17) a hint that cannot be applied is an
//!   error.

use datafusion_common::Column;
use datafusion_expr::{Expr, JoinType as DfJoinType};

use super::UnusedHint;
use super::sites::BlockToDecide;
use crate::config::Config;
use crate::hints::{HintArgs, HintError, HintName, IgnoreReason, check_names_in_scope};

/// Checks the block's MULTI_JOIN hints and lists each in `unused` with what
/// becomes of it (module docs).
pub(super) fn check_multi_join_hints(
    decided: &BlockToDecide<'_>,
    config: &Config,
    unused: &mut Vec<UnusedHint>,
    block: usize,
) -> Result<(), HintError> {
    let hints = decided.hints_named(HintName::MultiJoin);
    for hint in &hints {
        let bad = |message: String| HintError::JoinHintArguments {
            hint: hint.to_string(),
            position: hint.position,
            message,
        };
        match &hint.args {
            HintArgs::List(opts) if opts.iter().all(|o| o.value.as_name().is_some()) => {}
            _ => {
                return Err(bad(
                    "MULTI_JOIN takes the names of two or more inputs of its query block, \
                     e.g. MULTI_JOIN(t1, t2, t3)"
                        .into(),
                ));
            }
        }
        if hint.names().len() < 2 {
            return Err(bad(
                "MULTI_JOIN needs two or more inputs: a multi-way join of one is none".into(),
            ));
        }
    }
    check_names_in_scope(&decided.joins, hints.iter().copied())?;
    for hint in hints {
        let names: Vec<String> = hint.names().iter().map(|n| n.to_string()).collect();
        let why = match group_problem(decided, &names) {
            Some(problem) => format!("{problem}, so its joins run as binary joins"),
            None => "tenon has no multi-way join operator yet: the listed joins run as binary \
                     joins (their result is the same)"
                .to_string(),
        };
        let reason = IgnoreReason::MultiJoin { why };
        super::ignore_hint(config, unused, block, hint.to_string(), reason)?;
    }
    Ok(())
}

/// What keeps the group `names` from running as one multi-way join by the
/// seed's rules, `None` when nothing does.
fn group_problem(decided: &BlockToDecide<'_>, names: &[String]) -> Option<String> {
    let listed = |c: &Column| {
        c.relation
            .as_ref()
            .is_some_and(|r| names.iter().any(|n| n == r.table()))
    };
    // Classes of key columns the group's equi conditions make equal.
    let mut classes: Vec<Vec<Column>> = Vec::new();
    let mut joins = 0;
    for j in 0..decided.joins.joins.len() {
        let join = decided.node(j);
        let pairs: Vec<(&Column, &Column)> = join
            .on
            .iter()
            .filter_map(|(l, r)| match (l, r) {
                (Expr::Column(a), Expr::Column(b)) if listed(a) && listed(b) => Some((a, b)),
                _ => None,
            })
            .collect();
        if pairs.is_empty() {
            continue;
        }
        joins += 1;
        if !matches!(join.join_type, DfJoinType::Inner | DfJoinType::Left) {
            return Some(format!(
                "its {} JOIN is neither INNER nor LEFT",
                join.join_type.to_string().to_uppercase()
            ));
        }
        for (a, b) in pairs {
            let find =
                |c: &Column, classes: &[Vec<Column>]| classes.iter().position(|k| k.contains(c));
            match (find(a, &classes), find(b, &classes)) {
                (Some(x), Some(y)) if x != y => {
                    let moved = std::mem::take(&mut classes[y]);
                    classes[x].extend(moved);
                }
                (Some(_), Some(_)) => {}
                (Some(x), None) => classes[x].push(b.clone()),
                (None, Some(y)) => classes[y].push(a.clone()),
                (None, None) => classes.push(vec![a.clone(), b.clone()]),
            }
        }
    }
    if joins + 1 < names.len() {
        return Some(format!(
            "the listed inputs ({}) are not joined to each other by equality conditions",
            names.join(", ")
        ));
    }
    let common = classes.iter().any(|class| {
        names.iter().all(|n| {
            class
                .iter()
                .any(|c| c.relation.as_ref().is_some_and(|r| r.table() == n))
        })
    });
    (!common).then(|| {
        format!(
            "the joins of {} share no common key (every listed input needs a key column \
             equal, through the join conditions, to one of every other's, e.g. t1.id = \
             t2.id AND t2.id = t3.id)",
            names.join(", ")
        )
    })
}
