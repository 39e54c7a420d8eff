//! Join conditions out of SQL: equi keys and residuals (J02), IS NOT
//! DISTINCT FROM (J01, J06), implicit joins, key type coercion, USING.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion_common::NullEquality;
use datafusion_expr::{Expr, JoinType};
use tenon_planner::sql::{Catalog, KeyCast, PlannedQuery, join_condition};

use crate::sql_support::{joins, keys};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for t in ["t1", "t2", "t3"] {
        c.register_table(
            t,
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new("k", DataType::Int64, true),
                Field::new("v", DataType::Int64, true),
            ])),
        );
    }
    c.register_table(
        "orders",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("cust_id", DataType::Int32, true),
            Field::new("amount", DataType::Float64, true),
        ])),
    );
    c.register_table(
        "customers",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ])),
    );
    c
}

fn plan(sql: &str) -> PlannedQuery {
    catalog().plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn equi_keys_and_residual_are_split() {
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t2.id = t1.id AND t1.v < t2.v AND t1.k = 5 AND t1.k + 1 = t2.k",
    );
    let [join] = joins(&p).try_into().unwrap();
    // sides are swapped to (left, right); expressions are keys too
    assert_eq!(keys(&join), vec!["t1.id = t2.id", "t1.k + Int64(1) = t2.k"]);
    let residual = join.filter.expect("residual").to_string();
    // (t1.k = 5 uses one side only: pushed down into t1's input)
    assert_eq!(residual, "t1.v < t2.v");
    assert_eq!(join.null_equality, NullEquality::NullEqualsNothing);
}

#[test]
fn j06_is_not_distinct_from_then_and_plans() {
    // all keys IS NOT DISTINCT FROM: a null-equal join
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t1.id IS NOT DISTINCT FROM t2.id AND t1.k IS NOT DISTINCT FROM t2.k",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(keys(&join), vec!["t1.id = t2.id", "t1.k = t2.k"]);
    assert!(join.filter.is_none());
    assert_eq!(join.null_equality, NullEquality::NullEqualsNull);
}

#[test]
fn j01_mixed_keys_are_not_null_equal() {
    let p = plan("SELECT * FROM t1 JOIN t2 ON t1.id IS NOT DISTINCT FROM t2.id AND t1.k = t2.k");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(keys(&join), vec!["t1.k = t2.k"]);
    assert_eq!(join.null_equality, NullEquality::NullEqualsNothing);
    assert_eq!(
        join.filter.unwrap().to_string(),
        "t1.id IS NOT DISTINCT FROM t2.id"
    );
}

#[test]
fn implicit_join_becomes_an_equi_join() {
    let p = plan("SELECT * FROM t1, t2 WHERE t1.id = t2.id AND t1.v > 3");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::Inner);
    assert_eq!(keys(&join), vec!["t1.id = t2.id"]);
    assert!(join.filter.is_none());
    let text = p.plan.display_indent().to_string();
    assert!(text.contains("Filter: t1.v > Int64(3)"), "{text}");
}

#[test]
fn implicit_three_way_join_goes_to_the_lowest_covering_join() {
    let p = plan("SELECT * FROM t1, t2, t3 WHERE t1.id = t2.id AND t2.k = t3.k AND t1.v < t3.v");
    let js = joins(&p);
    assert_eq!(js.len(), 2);
    // post-order: (t1, t2) first
    assert_eq!(keys(&js[0]), vec!["t1.id = t2.id"]);
    assert_eq!(keys(&js[1]), vec!["t2.k = t3.k"]);
    assert_eq!(js[1].filter.as_ref().unwrap().to_string(), "t1.v < t3.v");
    let text = p.plan.display_indent().to_string();
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("Filter")),
        "{text}"
    );
}

#[test]
fn where_is_not_moved_into_an_outer_join() {
    let p = plan("SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id AND t2.v > 1 WHERE t1.v = t2.v");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::Left);
    assert_eq!(keys(&join), vec!["t1.id = t2.id"]);
    // the right-only ON conjunct is pushed into the right input
    assert!(join.filter.is_none());
    let text = p.plan.display_indent().to_string();
    assert!(text.contains("Filter: t2.v > Int64(1)"), "{text}");
    assert!(text.contains("Filter: t1.v = t2.v"), "{text}");
}

#[test]
fn cross_join_without_condition_stays_a_cross_join() {
    let p = plan("SELECT * FROM t1 CROSS JOIN t2");
    let [join] = joins(&p).try_into().unwrap();
    assert!(join.on.is_empty() && join.filter.is_none());
}

#[test]
fn key_types_are_coerced_narrow_side_cast() {
    let p = plan("SELECT * FROM orders o JOIN customers c ON o.cust_id = c.id");
    let [join] = joins(&p).try_into().unwrap();
    let (left, right) = &join.on[0];
    assert!(
        matches!(left, Expr::Cast(c) if c.field.data_type() == &DataType::Int64),
        "{left}"
    );
    assert!(matches!(right, Expr::Column(_)), "{right}");
    // the split says which side was cast
    let split = join_condition(&join).unwrap();
    assert_eq!(split.keys[0].key_type, DataType::Int64);
    assert_eq!(
        split.keys[0].cast,
        KeyCast::None,
        "already cast in the plan"
    );

    let p = plan("SELECT * FROM customers c JOIN orders o ON c.id = o.cust_id");
    let [join] = joins(&p).try_into().unwrap();
    assert!(matches!(&join.on[0].1, Expr::Cast(_)));
}

#[test]
fn incomparable_key_types_are_an_error() {
    let err = catalog()
        .plan("SELECT * FROM orders o JOIN customers c ON o.amount = c.name AND o.id = c.id")
        .map(|p| joins(&p)[0].on.len());
    // Float64 = Utf8: either a residual that fails or a clear error; never a panic
    if let Err(e) = err {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn using_join_has_keys() {
    let p = plan("SELECT * FROM t1 JOIN t2 USING (id)");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(keys(&join), vec!["t1.id = t2.id"]);
}

#[test]
fn semi_and_anti_joins_by_name() {
    let p = plan("SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    let p = plan("SELECT * FROM t1 LEFT ANTI JOIN t2 ON t1.id = t2.id AND t1.v <> t2.v");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftAnti);
    assert_eq!(keys(&join).len(), 1);
    assert!(join.filter.is_some());
}

#[test]
fn functions_and_aggregates_plan() {
    plan(
        "SELECT t1.k, count(*), count(DISTINCT t1.v), sum(t1.v), avg(t1.v), min(t1.v), max(t1.v), \
                coalesce(max(t2.v), 0), now() \
         FROM t1 JOIN t2 ON t1.id = t2.id GROUP BY t1.k ORDER BY t1.k LIMIT 10",
    );
    plan(
        "SELECT upper(name), lower(name), concat(name, 'x'), name || 'y', length(name), \
                substr(name, 1, 2), abs(amount), CAST(amount AS INT), \
                CASE WHEN amount > 1 THEN 'a' ELSE 'b' END, amount BETWEEN 1 AND 2, \
                name LIKE 'a%', cust_id IN (1, 2), current_timestamp \
         FROM orders JOIN customers ON orders.cust_id = customers.id",
    );
}

/// In a comma-join list, a table of at most `TINY_ROWS` rows with a filter
/// of its own joins as soon as a condition connects it (before the larger
/// table that FROM order puts first); without row counts, or without the
/// filter, FROM order stays.
#[test]
fn a_filtered_tiny_dimension_joins_as_soon_as_it_connects() {
    use tenon_planner::sql::{TableStats, plan_sql};
    let sql = "SELECT * FROM t1, t2, t3 WHERE t1.id = t2.id AND t1.k = t3.k AND t3.v = 7";
    let mut c = catalog();
    let plain = plan_sql(&c, sql).unwrap();
    let js = joins(&plain);
    assert_eq!(
        keys(&js[0]),
        vec!["t1.id = t2.id"],
        "no row counts: FROM order"
    );
    for (t, rows) in [("t1", 10_000u64), ("t2", 1_000_000), ("t3", 25)] {
        let schema = c.table(t).unwrap().schema.clone();
        c.register_table_with_stats(
            t,
            schema,
            TableStats {
                row_count: Some(rows),
                ..TableStats::default()
            },
        );
    }
    let p = plan_sql(&c, sql).unwrap();
    let js = joins(&p);
    assert_eq!(
        keys(&js[0]),
        vec!["t1.k = t3.k"],
        "t3 (25 rows, filtered) first"
    );
    assert_eq!(keys(&js[1]), vec!["t1.id = t2.id"]);
    // the same rows come out in the query's column order
    assert_eq!(
        p.plan.schema().fields().len(),
        plain.plan.schema().fields().len()
    );
    let unfiltered = plan_sql(
        &c,
        "SELECT * FROM t1, t2, t3 WHERE t1.id = t2.id AND t1.k = t3.k",
    )
    .unwrap();
    assert_eq!(
        keys(&joins(&unfiltered)[0]),
        vec!["t1.id = t2.id"],
        "no filter: FROM order"
    );
}
