//! Joins whose ON condition has an OR at the top (issue 14: an outer join
//! with `(k AND x) OR (k AND y)` ran as a nested loop over every pair of
//! rows). A conjunct in every branch is factored out and becomes a key, for
//! outer joins as for inner ones; an OR of different keys stays a nested
//! loop and EXPLAIN says why. Results are checked against the naive
//! reference join on tables `a` and `b` under 1 and 4 threads and batches
//! of 1 and 8192 rows.

use tenon::kernels::Strategy;

use crate::common::*;

/// `a.k = b.k AND (a.v < b.v OR b.v > 30)`, written as an OR of two
/// branches that both carry the key.
const FACTORED: &str = "(a.k = b.k AND a.v < b.v) OR (a.k = b.k AND b.v > 30)";

fn factored(l: &Row, r: &Row) -> Option<bool> {
    let or = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    };
    and(eq(l[0], r[0]), or(lt(l[1], r[1]), gt(r[1], Some(30))))
}

#[test]
fn outer_join_with_a_key_in_every_or_branch_is_a_hash_join() {
    let (a, b) = (table_a(), table_b());
    for (jt, sql_jt) in [
        (RefJoin::Left, "LEFT JOIN"),
        (RefJoin::Right, "RIGHT JOIN"),
        (RefJoin::Full, "FULL JOIN"),
        (RefJoin::Inner, "JOIN"),
    ] {
        let sql = format!("SELECT * FROM a {sql_jt} b ON {FACTORED}");
        let s = session(1, 8192);
        let chosen = strategies(&s, &sql);
        assert_eq!(chosen.len(), 1, "{sql}");
        assert_ne!(chosen[0].0, Strategy::NestLoop, "{sql}: {chosen:?}");
        let expected = ref_join(&a.rel(), &b.rel(), jt, factored).strings();
        assert_rows_in_every_config(&sql, &expected);
    }
}

#[test]
fn or_of_different_keys_explains_its_nested_loop() {
    let sql = "SELECT * FROM a LEFT JOIN b ON a.k = b.k OR a.v = b.v";
    let s = session(1, 8192);
    let explain = s.explain(sql).unwrap();
    assert_eq!(explain.joins.len(), 1);
    let join = &explain.joins[0];
    assert_eq!(join.strategy, Strategy::NestLoop);
    assert!(
        join.reason
            .contains("OR of 2 branches with a different equi key each"),
        "{}",
        join.reason
    );
    let expected = ref_join(
        &table_a().rel(),
        &table_b().rel(),
        RefJoin::Left,
        |l, r| match (eq(l[0], r[0]), eq(l[1], r[1])) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
    )
    .strings();
    assert_rows_in_every_config(sql, &expected);
}

/// `a.k = b.k AND ((a.v < 25 AND b.v > 10) OR (a.v > 30 AND b.v < 33))`:
/// the OR over both inputs also filters each input it may (the inputs of
/// an inner join, the NULL-extended side of an outer one) by the OR of its
/// own conditions (`a.v < 25 OR a.v > 30`); the rows are the reference
/// join's, with NULLs in both columns, under every join type.
#[test]
fn an_or_over_both_inputs_filters_each_input_with_the_same_rows() {
    const ON: &str = "a.k = b.k AND ((a.v < 25 AND b.v > 10) OR (a.v > 30 AND b.v < 33))";
    fn on(l: &Row, r: &Row) -> Option<bool> {
        let or = |x: Option<bool>, y: Option<bool>| match (x, y) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        };
        let first = and(lt(l[1], Some(25)), gt(r[1], Some(10)));
        let second = and(gt(l[1], Some(30)), lt(r[1], Some(33)));
        and(eq(l[0], r[0]), or(first, second))
    }
    let (a, b) = (table_a(), table_b());
    for (jt, sql_jt) in [
        (RefJoin::Inner, "JOIN"),
        (RefJoin::Left, "LEFT JOIN"),
        (RefJoin::Right, "RIGHT JOIN"),
        (RefJoin::Full, "FULL JOIN"),
    ] {
        let sql = format!("SELECT * FROM a {sql_jt} b ON {ON}");
        let expected = ref_join(&a.rel(), &b.rel(), jt, on).strings();
        assert_rows_in_every_config(&sql, &expected);
    }
    // The inner join's inputs are filtered below it.
    let s = session(1, 8192);
    let text = s
        .explain(&format!("SELECT * FROM a JOIN b ON {ON}"))
        .unwrap()
        .to_text();
    assert!(text.contains("Filter: a.v < 25 OR a.v > 30"), "{text}");
    assert!(text.contains("Filter: b.v > 10 OR b.v < 33"), "{text}");
}
