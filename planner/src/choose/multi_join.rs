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
//! - tenon runs a valid group as one multi-way join (the kernel's
//!   `MultiJoin`: every input but the first grouped by the key once, the
//!   first streamed, no intermediate result) when its joins form one
//!   chain `t1 JOIN t2 ON .. JOIN t3 ON ..` (each join adding one listed
//!   input), every condition is an equality of key columns common to all
//!   of them, the strategy of none of its joins is hinted, and no
//!   `memory_limit` is set (the multi-way join does not spill; the binary
//!   joins do). Its joins then say so in EXPLAIN's list
//!   ([`PlannedJoin::multi_join`]) and the operator tree shows one
//!   `MultiJoin`. A hint that cannot be applied is listed under its block
//!   with the reason, and its joins run as binary joins; in strict mode
//!   (H17) it is an error.

use datafusion_common::Column;
use datafusion_expr::{Expr, JoinType as DfJoinType};

use datafusion_common::NullEquality;

use super::sites::BlockToDecide;
use super::{PlannedJoin, UnusedHint};
use crate::config::Config;
use crate::hints::{
    DecisionSource, HintArgs, HintError, HintName, IgnoreReason, check_names_in_scope,
};
use tenon_kernels::JoinType;

/// A MULTI_JOIN group that runs as one multi-way join: its joins, and what
/// lowering needs to build the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiJoinGroup {
    /// The hint, as written (`MULTI_JOIN(t1, t2, t3)`).
    pub hint: String,
    /// The decision numbers of the group's joins, bottom-up: join `i`
    /// adds input `i + 1` ([`super::JoinPlan::joins`] indexes).
    pub joins: Vec<usize>,
    /// The inputs' names in chain order.
    pub names: Vec<String>,
    /// Per input, its key columns, one per common key class, in one order
    /// for all inputs.
    pub keys: Vec<Vec<Column>>,
    /// Per input after the first: its join type (INNER or LEFT) and the
    /// earlier inputs its condition names.
    pub steps: Vec<(JoinType, Vec<usize>)>,
}

/// Checks the block's MULTI_JOIN hints: a group that can run as one
/// multi-way join is returned and its joins marked in `planned` (the
/// block's joins); every other hint is listed in `unused` with the reason
/// (module docs). `global_id` gives a block join's decision number.
pub(super) fn check_multi_join_hints(
    decided: &BlockToDecide<'_>,
    config: &Config,
    planned: &mut [PlannedJoin],
    global_id: &dyn Fn(usize) -> usize,
    unused: &mut Vec<UnusedHint>,
    block: usize,
) -> Result<Vec<MultiJoinGroup>, HintError> {
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
    let mut groups = Vec::new();
    for hint in hints {
        let names: Vec<String> = hint.names().iter().map(|n| n.to_string()).collect();
        let text = hint.to_string();
        let chain = match group_problem(decided, &names) {
            Some(problem) => Err(problem),
            None => chain_of(decided, planned, &names, config),
        };
        let chain = chain.and_then(|c| match planned[c.joins[0]].multi_join.as_ref() {
            Some(other) => Err(format!("its joins are in {other} already")),
            None => Ok(c),
        });
        match chain {
            Ok(chain) => {
                for &j in &chain.joins {
                    planned[j].multi_join = Some(text.clone());
                }
                groups.push(MultiJoinGroup {
                    hint: text,
                    joins: chain.joins.iter().map(|&j| global_id(j)).collect(),
                    names: chain.names,
                    keys: chain.keys,
                    steps: chain.steps,
                });
            }
            Err(problem) => {
                let why = format!("{problem}, so its joins run as binary joins");
                let reason = IgnoreReason::MultiJoin { why };
                super::ignore_hint(config, unused, block, text, reason)?;
            }
        }
    }
    Ok(groups)
}

/// A group's chain of joins as found in the block: [`MultiJoinGroup`]
/// with the block's join indices.
struct Chain {
    joins: Vec<usize>,
    names: Vec<String>,
    keys: Vec<Vec<Column>>,
    steps: Vec<(JoinType, Vec<usize>)>,
}

/// The listed inputs' joins as one chain the multi-way join runs, or what
/// keeps them from being one (the group already shares a key: checked by
/// [`group_problem`]).
fn chain_of(
    decided: &BlockToDecide<'_>,
    planned: &[PlannedJoin],
    names: &[String],
    config: &Config,
) -> Result<Chain, String> {
    if config.memory_limit.is_some() {
        return Err(
            "tenon's multi-way join does not spill, and a memory_limit is set (binary \
                    joins spill where they must)"
                .into(),
        );
    }
    let sites = &decided.joins.joins;
    let listed = |n: &Option<String>| n.as_ref().is_some_and(|n| names.contains(n));
    let not_chain = || {
        format!(
            "the joins of {} are not one chain adding one listed input each (t1 JOIN t2 ON .. \
             JOIN t3 ON ..)",
            names.join(", ")
        )
    };
    let bottom = (0..sites.len())
        .find(|&j| listed(&sites[j].left.name) && listed(&sites[j].right.name))
        .ok_or_else(not_chain)?;
    let mut joins = vec![bottom];
    let mut order: Vec<String> = vec![
        sites[bottom].left.name.clone().unwrap_or_default(),
        sites[bottom].right.name.clone().unwrap_or_default(),
    ];
    while order.len() < names.len() {
        let below = decided.path(*joins.last().unwrap_or(&bottom));
        let parent = (below.0.last() == Some(&0))
            .then(|| {
                (0..sites.len()).find(|&j| decided.path(j).0[..] == below.0[..below.0.len() - 1])
            })
            .flatten()
            .ok_or_else(not_chain)?;
        let right = sites[parent].right.name.clone();
        match right {
            Some(r) if names.contains(&r) && !order.contains(&r) => order.push(r),
            _ => return Err(not_chain()),
        }
        joins.push(parent);
    }
    let mut steps = Vec::new();
    let mut classes: Option<Vec<Vec<Column>>> = None;
    let mut keys: Vec<Vec<Column>> = vec![Vec::new(); order.len()];
    let all = common_classes(decided, names);
    for (s, &j) in joins.iter().enumerate() {
        let (site, node, plan) = (&sites[j], decided.node(j), &planned[j]);
        let between = format!(
            "its join of {} and {}",
            site.left.name.as_deref().unwrap_or("(join)"),
            site.right.name.as_deref().unwrap_or("(join)")
        );
        if let DecisionSource::Hint(_) = plan.source {
            return Err(format!(
                "{between} has its strategy hinted ({}), which the multi-way join would \
                 override",
                plan.strategy
            ));
        }
        if site.time_join || site.from_subquery || plan.lookup.is_some() {
            return Err(format!("{between} is not a regular INNER or LEFT join"));
        }
        let join_type = match site.join_type {
            JoinType::Inner => JoinType::Inner,
            JoinType::Left => JoinType::Left,
            _ => return Err(format!("{between} is neither INNER nor LEFT")),
        };
        if node.filter.is_some() || node.null_equality != NullEquality::NullEqualsNothing {
            return Err(format!(
                "{between} has conditions besides equalities of the common key"
            ));
        }
        // the step's pairs, by the class of columns they equate
        let mut pairs: Vec<(usize, Column, Column)> = Vec::new();
        for (l, r) in &node.on {
            let (Expr::Column(a), Expr::Column(b)) = (l, r) else {
                return Err(format!(
                    "{between} has conditions besides equalities of the common key"
                ));
            };
            let Some(class) = all.iter().position(|c| c.contains(a) && c.contains(b)) else {
                return Err(format!(
                    "{between} has conditions besides equalities of the common key"
                ));
            };
            pairs.push((class, a.clone(), b.clone()));
        }
        pairs.sort_by_key(|p| p.0);
        let used: Vec<usize> = {
            let mut u: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            u.dedup();
            u
        };
        let used_cols: Vec<Vec<Column>> = used.iter().map(|&c| all[c].clone()).collect();
        match &classes {
            None => classes = Some(used_cols),
            Some(c) if *c == used_cols => {}
            Some(_) => {
                return Err(format!(
                    "its joins do not all join on the same key columns ({between} differs)"
                ));
            }
        }
        let input_of = |c: &Column| {
            c.relation
                .as_ref()
                .and_then(|r| order.iter().position(|n| n == r.table()))
        };
        let me = s + 1;
        let mut refers: Vec<usize> = Vec::new();
        let mut mine: Vec<Column> = Vec::new();
        for (k, &class) in used.iter().enumerate() {
            if s == 0 {
                // input 0's key column of the class: the first one named
                let left = pairs
                    .iter()
                    .find(|p| p.0 == class && input_of(&p.1) == Some(0))
                    .map(|p| p.1.clone());
                keys[0].extend(left);
            }
            let of_class = pairs.iter().filter(|p| p.0 == class);
            let mut right: Option<&Column> = None;
            for (_, a, b) in of_class {
                for (c, side) in [(a, false), (b, true)] {
                    match (input_of(c), side) {
                        (Some(i), true) if i == me => match right {
                            Some(x) if x != c => {
                                return Err(format!(
                                    "{between} equates two of {}'s columns with the key",
                                    order[me]
                                ));
                            }
                            _ => right = Some(c),
                        },
                        // an earlier input's column must be its key column
                        // (the kernel compares keys only)
                        (Some(i), false) if i < me && keys[i].get(k) == Some(c) => refers.push(i),
                        (Some(i), false) if i < me => {
                            return Err(format!(
                                "{between} equates another column of {} with the key",
                                order[i]
                            ));
                        }
                        _ => return Err(not_chain()),
                    }
                }
            }
            mine.extend(right.cloned());
        }
        refers.sort_unstable();
        refers.dedup();
        keys[me] = mine;
        steps.push((join_type, refers));
    }
    if keys.iter().any(|k| k.len() != keys[0].len()) {
        return Err(not_chain());
    }
    Ok(Chain {
        joins,
        names: order,
        keys,
        steps,
    })
}

/// The listed inputs' joins (those with an equi condition between two
/// listed inputs) and the classes of key columns their equi conditions
/// make equal.
fn key_classes_and_joins(
    decided: &BlockToDecide<'_>,
    names: &[String],
) -> (Vec<Vec<Column>>, Vec<usize>) {
    let listed = |c: &Column| {
        c.relation
            .as_ref()
            .is_some_and(|r| names.iter().any(|n| n == r.table()))
    };
    let mut classes: Vec<Vec<Column>> = Vec::new();
    let mut joins = Vec::new();
    for j in 0..decided.joins.joins.len() {
        let pairs: Vec<(&Column, &Column)> = decided
            .node(j)
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
        joins.push(j);
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
    classes.retain(|k| !k.is_empty());
    (classes, joins)
}

/// The classes of key columns of [`key_classes_and_joins`] that have a
/// column of every listed input.
fn common_classes(decided: &BlockToDecide<'_>, names: &[String]) -> Vec<Vec<Column>> {
    let (classes, _) = key_classes_and_joins(decided, names);
    classes
        .into_iter()
        .filter(|class| {
            names.iter().all(|n| {
                class
                    .iter()
                    .any(|c| c.relation.as_ref().is_some_and(|r| r.table() == n))
            })
        })
        .collect()
}

/// What keeps the group `names` from running as one multi-way join by the
/// seed's rules, `None` when nothing does.
fn group_problem(decided: &BlockToDecide<'_>, names: &[String]) -> Option<String> {
    let (_, joins) = key_classes_and_joins(decided, names);
    for &j in &joins {
        let join = decided.node(j);
        if !matches!(join.join_type, DfJoinType::Inner | DfJoinType::Left) {
            return Some(format!(
                "its {} JOIN is neither INNER nor LEFT",
                join.join_type.to_string().to_uppercase()
            ));
        }
    }
    if joins.len() + 1 < names.len() {
        return Some(format!(
            "the listed inputs ({}) are not joined to each other by equality conditions",
            names.join(", ")
        ));
    }
    common_classes(decided, names).is_empty().then(|| {
        format!(
            "the joins of {} share no common key (every listed input needs a key column \
             equal, through the join conditions, to one of every other's, e.g. t1.id = \
             t2.id AND t2.id = t3.id)",
            names.join(", ")
        )
    })
}
