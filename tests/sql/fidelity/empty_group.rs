//! A correlated scalar subquery over an outer row that no subquery row
//! matches: its value is the SELECT expression over the empty group (a
//! `count` 0, other aggregates NULL), not NULL (the "count bug").
//!
//! Tables: `t1(id, k) = (1, 10), (2, 20), (3, NULL)`, `t2(k, v) = (10, 5),
//! (10, NULL), (30, 7)`. Expected rows worked out by hand from SQL's
//! definition of a scalar subquery (evaluated once per outer row) and
//! checked with DuckDB 2.0.1.

use crate::common::ColType::I64;
use crate::common::*;

fn tables() -> Vec<Table> {
    vec![
        Table::new(
            "t1",
            &[("id", I64), ("k", I64)],
            vec![
                vec![Some(1), Some(10)],
                vec![Some(2), Some(20)],
                vec![Some(3), None],
            ],
        ),
        Table::new(
            "t2",
            &[("k", I64), ("v", I64)],
            vec![
                vec![Some(10), Some(5)],
                vec![Some(10), None],
                vec![Some(30), Some(7)],
            ],
        ),
    ]
}

/// `sql`'s rows in result order under every thread count and batch size.
fn rows(sql: &str) -> Vec<String> {
    let mut answers = CONFIGS
        .iter()
        .map(|&(t, bs)| run_ordered(&session_with(&tables(), t, bs), sql));
    let first = answers.next().unwrap();
    for other in answers {
        assert_eq!(
            other, first,
            "{sql}: the answer depends on the configuration"
        );
    }
    first
}

fn strings(rows: &[&str]) -> Vec<String> {
    rows.iter().map(|r| r.to_string()).collect()
}

#[test]
fn correlated_coalesce_of_an_aggregate_over_no_rows_is_the_fallback() {
    assert_eq!(
        rows(
            "SELECT id, (SELECT coalesce(max(t2.v), -1) FROM t2 WHERE t2.k = t1.k) AS m \
             FROM t1 ORDER BY id"
        ),
        strings(&["1|5", "2|-1", "3|-1"])
    );
}

#[test]
fn correlated_is_null_of_an_aggregate_over_no_rows_is_true() {
    assert_eq!(
        rows("SELECT id, (SELECT max(v) IS NULL FROM t2 WHERE t2.k = t1.k) FROM t1 ORDER BY id"),
        strings(&["1|false", "2|true", "3|true"])
    );
}

#[test]
fn correlated_coalesce_in_where_keeps_rows_without_matches() {
    assert_eq!(
        rows(
            "SELECT id FROM t1 WHERE (SELECT coalesce(max(v), 0) FROM t2 WHERE t2.k = t1.k) = 0 \
             ORDER BY id"
        ),
        strings(&["2", "3"])
    );
}

#[test]
fn correlated_count_over_no_rows_is_zero() {
    assert_eq!(
        rows(
            "SELECT id, (SELECT count(*) FROM t2 WHERE t2.k = t1.k) AS n, \
             (SELECT count(v) FROM t2 WHERE t2.k = t1.k) AS nv FROM t1 ORDER BY id"
        ),
        strings(&["1|2|1", "2|0|0", "3|0|0"])
    );
}

#[test]
fn correlated_count_in_where_and_case_over_no_rows() {
    assert_eq!(
        rows("SELECT id FROM t1 WHERE (SELECT count(*) FROM t2 WHERE t2.k = t1.k) = 0 ORDER BY id"),
        strings(&["2", "3"])
    );
    assert_eq!(
        rows(
            "SELECT id, (SELECT CASE WHEN count(*) > 1 THEN 'many' ELSE 'few' END \
             FROM t2 WHERE t2.k = t1.k) AS c FROM t1 ORDER BY id"
        ),
        strings(&["1|many", "2|few", "3|few"])
    );
}

#[test]
fn correlated_count_plus_sum_over_no_rows() {
    // count(*) + sum(v): 0 + NULL is NULL over the empty group.
    assert_eq!(
        rows(
            "SELECT id, (SELECT count(*) + sum(v) FROM t2 WHERE t2.k = t1.k) AS x, \
             (SELECT count(*) + coalesce(sum(v), 100) FROM t2 WHERE t2.k = t1.k) AS y \
             FROM t1 ORDER BY id"
        ),
        strings(&["1|7|7", "2|NULL|100", "3|NULL|100"])
    );
}

#[test]
fn correlated_plain_max_over_no_rows_stays_null() {
    assert_eq!(
        rows("SELECT id, (SELECT max(v) FROM t2 WHERE t2.k = t1.k) FROM t1 ORDER BY id"),
        strings(&["1|5", "2|NULL", "3|NULL"])
    );
}
