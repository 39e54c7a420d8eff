//! Hinted TPC-H queries: each multi-join query with a strategy hint in its
//! outer SELECT is accepted, EXPLAIN shows every join's strategy with the
//! hinted one applied, and the answer is still the expected one.

use tenon::Strategy;
use tenon::planner::hints::DecisionSource;

use super::tpch::{check_sql, query_text, session};

/// `sql` with `hint` inserted after its `nth` `select` (1: the outer
/// block's; Q7, Q8 and Q9 join in the derived table of their second).
fn with_hint(sql: &str, hint: &str, nth: usize) -> String {
    let at = sql
        .to_lowercase()
        .lines()
        .scan(0, |offset, line| {
            let start = *offset;
            *offset += line.len() + 1;
            Some((start, line.to_string()))
        })
        .filter(|(_, line)| !line.trim_start().starts_with("--"))
        .filter_map(|(start, line)| line.find("select").map(|i| start + i + "select".len()))
        .nth(nth - 1)
        .expect("a SELECT");
    format!("{} /*+ {hint} */{}", &sql[..at], &sql[at..])
}

/// Query `q` with `hint` (naming `table`) in its `nth` SELECT: EXPLAIN
/// shows every join with a strategy, a join with `table` as an input takes
/// `strategy` from the hint, and the rows are the expected ones.
fn hinted(q: &str, nth: usize, hint: &str, table: &str, strategy: Strategy) {
    let sql = with_hint(&query_text(q), hint, nth);
    let explain = session()
        .explain(&sql)
        .unwrap_or_else(|e| panic!("{q} with {hint}: {e}"));
    assert!(
        explain.joins.len() >= 2,
        "{q}: {} joins",
        explain.joins.len()
    );
    let named = |n: &Option<String>| n.as_deref() == Some(table);
    let join = explain
        .joins
        .iter()
        .filter(|j| named(&j.left) || named(&j.right))
        .find(|j| matches!(j.source, DecisionSource::Hint(_)))
        .unwrap_or_else(|| {
            panic!(
                "{q}: no join reading {table} took {hint}:\n{}",
                explain.to_text()
            )
        });
    assert_eq!(
        join.strategy,
        strategy,
        "{q} with {hint}:\n{}",
        explain.to_text()
    );
    assert!(
        matches!(join.source, DecisionSource::Hint(_)),
        "{q} with {hint}: {}",
        join.reason
    );
    assert!(join.reason.contains(hint), "{q}: reason {}", join.reason);
    assert!(
        join.ignored_hints.is_empty(),
        "{q}: {:?}",
        join.ignored_hints
    );
    check_sql(q, &sql);
}

#[test]
fn q02_with_shuffle_merge_on_partsupp() {
    hinted(
        "q02",
        1,
        "SHUFFLE_MERGE(partsupp)",
        "partsupp",
        Strategy::ShuffleMerge,
    );
}

#[test]
fn q03_with_shuffle_hash_on_customer() {
    hinted(
        "q03",
        1,
        "SHUFFLE_HASH(customer)",
        "customer",
        Strategy::ShuffleHash,
    );
}

#[test]
fn q05_with_shuffle_merge_on_orders() {
    hinted(
        "q05",
        1,
        "SHUFFLE_MERGE(orders)",
        "orders",
        Strategy::ShuffleMerge,
    );
}

#[test]
fn q07_with_broadcast_on_supplier() {
    hinted(
        "q07",
        2,
        "BROADCAST(supplier)",
        "supplier",
        Strategy::Broadcast,
    );
}

#[test]
fn q08_with_shuffle_hash_on_part() {
    hinted(
        "q08",
        2,
        "SHUFFLE_HASH(part)",
        "part",
        Strategy::ShuffleHash,
    );
}

#[test]
fn q09_with_shuffle_merge_on_partsupp() {
    hinted(
        "q09",
        2,
        "SHUFFLE_MERGE(partsupp)",
        "partsupp",
        Strategy::ShuffleMerge,
    );
}

#[test]
fn q10_with_broadcast_on_nation() {
    hinted("q10", 1, "BROADCAST(nation)", "nation", Strategy::Broadcast);
}

#[test]
fn q18_with_shuffle_merge_on_customer() {
    hinted(
        "q18",
        1,
        "SHUFFLE_MERGE(customer)",
        "customer",
        Strategy::ShuffleMerge,
    );
}

#[test]
fn q21_with_shuffle_hash_on_supplier() {
    hinted(
        "q21",
        1,
        "SHUFFLE_HASH(supplier)",
        "supplier",
        Strategy::ShuffleHash,
    );
}
