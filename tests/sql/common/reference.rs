//! A naive reference join.

#![allow(unused_imports)]

use super::*;

// ------------------------------------------------------------ reference

/// The join types of the reference join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefJoin {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one match (left columns only).
    Semi,
    /// Left rows without a match (left columns only).
    Anti,
}

impl RefJoin {
    /// The engine's join type for this reference join.
    pub fn join_type(self) -> JoinType {
        match self {
            RefJoin::Inner => JoinType::Inner,
            RefJoin::Left => JoinType::Left,
            RefJoin::Right => JoinType::Right,
            RefJoin::Full => JoinType::Full,
            RefJoin::Semi => JoinType::LeftSemi,
            RefJoin::Anti => JoinType::LeftAnti,
        }
    }
}

/// SQL `=`: unknown when either side is NULL.
pub fn eq(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? == b?)
}

/// SQL `<`.
pub fn lt(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? < b?)
}

/// SQL `>`.
pub fn gt(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? > b?)
}

/// SQL `IS NOT DISTINCT FROM`: never unknown, NULL equals NULL.
pub fn not_distinct(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a == b)
}

/// SQL three-valued AND.
pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// The naive nested-loop reference join: a pair matches when `on` is
/// `Some(true)`; outer joins add the unmatched rows NULL-extended.
pub fn ref_join(l: &Rel, r: &Rel, jt: RefJoin, on: impl Fn(&Row, &Row) -> Option<bool>) -> Rel {
    let mut rows = Vec::new();
    let mut right_matched = vec![false; r.rows.len()];
    for lr in &l.rows {
        let mut matched = false;
        for (j, rr) in r.rows.iter().enumerate() {
            if on(lr, rr) == Some(true) {
                matched = true;
                right_matched[j] = true;
                if matches!(
                    jt,
                    RefJoin::Inner | RefJoin::Left | RefJoin::Right | RefJoin::Full
                ) {
                    rows.push(lr.iter().chain(rr).copied().collect());
                }
            }
        }
        match jt {
            RefJoin::Left | RefJoin::Full if !matched => rows.push(
                lr.iter()
                    .copied()
                    .chain(std::iter::repeat_n(None, r.width()))
                    .collect(),
            ),
            RefJoin::Semi if matched => rows.push(lr.clone()),
            RefJoin::Anti if !matched => rows.push(lr.clone()),
            _ => {}
        }
    }
    if matches!(jt, RefJoin::Right | RefJoin::Full) {
        for (j, rr) in r.rows.iter().enumerate() {
            if !right_matched[j] {
                rows.push(
                    std::iter::repeat_n(None, l.width())
                        .chain(rr.iter().copied())
                        .collect(),
                );
            }
        }
    }
    let cols = match jt {
        RefJoin::Semi | RefJoin::Anti => l.cols.clone(),
        _ => l.cols.iter().chain(&r.cols).cloned().collect(),
    };
    Rel { cols, rows }
}

/// The reference of `l.key NOT IN (SELECT value FROM r)` with SQL's NULL
/// rules: an empty subquery keeps every row (NULL keys too); a NULL in the
/// subquery keeps none; otherwise a row is kept when its key is not NULL
/// and equals no value.
pub fn ref_not_in(l: &Rel, key: usize, values: &[Option<i64>]) -> Rel {
    let rows = if values.is_empty() {
        l.rows.clone()
    } else if values.iter().any(Option::is_none) {
        Vec::new()
    } else {
        l.rows
            .iter()
            .filter(|r| r[key].is_some_and(|k| !values.contains(&Some(k))))
            .cloned()
            .collect()
    };
    Rel {
        cols: l.cols.clone(),
        rows,
    }
}
