//! EXISTS / NOT EXISTS and correlated IN / NOT IN as semi / anti joins
//! (J03): SQL in, join type, keys and filter out; the shapes that are
//! rejected say what is wrong.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion_expr::{Expr, Join, JoinType, LogicalPlan};
use tenon_kernels::{JoinType as KernelJoinType, Strategy};
use tenon_planner::choose::plan_joins;
use tenon_planner::config::Config;
use tenon_planner::hints::{DecisionSource, IgnoreReason};
use tenon_planner::sql::{Catalog, InputKind, PlannedQuery, SqlError, node_at};

use crate::sql_support::{filter, keys};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for t in ["t1", "t2", "t3", "t4"] {
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
        "narrow",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("v", DataType::Int64, true),
        ])),
    );
    c
}

fn plan(sql: &str) -> PlannedQuery {
    catalog().plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn unsupported(sql: &str) -> String {
    match catalog().plan(sql) {
        Err(SqlError::Unsupported(message)) => message,
        Err(other) => panic!("{sql}: expected Unsupported, got {other:?}"),
        Ok(p) => panic!("{sql}: expected an error, got\n{}", p.plan.display_indent()),
    }
}

/// The joins of block `b`, as planned.
fn block_joins(p: &PlannedQuery, b: usize) -> Vec<Join> {
    p.blocks[b]
        .joins
        .iter()
        .map(|j| match node_at(&p.plan, &j.path) {
            Some(LogicalPlan::Join(join)) => join,
            other => panic!("no join at {:?}: {other:?}", j.path),
        })
        .collect()
}

fn text(p: &PlannedQuery) -> String {
    p.plan.display_indent().to_string()
}

/// No subquery expression is left in the plan.
fn assert_no_subquery_expr(p: &PlannedQuery) {
    let t = text(p);
    assert!(
        !t.contains("EXISTS") && !t.contains("IN (<subquery>)"),
        "{t}"
    );
    assert!(!t.contains("outer_ref"), "{t}");
}

#[test]
fn j03_exists_is_a_semi_join_on_the_correlation_keys() {
    let p =
        plan("SELECT t1.v FROM t1 WHERE t1.v > 0 AND EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    assert!(!join.null_aware);
    assert_eq!(keys(&join), ["t1.id = __sq_1.k"]);
    assert_eq!(filter(&join), None);
    let jref = &p.blocks[0].joins[0];
    assert_eq!(jref.left.name.as_deref(), Some("t1"));
    assert_eq!(jref.right.name.as_deref(), Some("__sq_1"));
    // the subquery reads one table: the chooser can size it
    assert_eq!(jref.right.kind, InputKind::Alias);
    assert_eq!(jref.right.table.as_deref(), Some("t2"));
    // the outer WHERE conjunct went below the semi join, onto the scan
    assert!(
        matches!(join.left.as_ref(), LogicalPlan::Filter(f) if f.predicate.to_string() == "t1.v > Int64(0)")
    );
    assert_no_subquery_expr(&p);
}

#[test]
fn j03_not_exists_is_an_anti_join() {
    let p = plan(
        "SELECT * FROM t1 WHERE NOT EXISTS (SELECT * FROM t2 WHERE t1.id = t2.k AND t1.k = t2.v)",
    );
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftAnti);
    assert!(!join.null_aware, "NOT EXISTS has no NOT IN null rules");
    assert_eq!(keys(&join), ["t1.id = __sq_1.k", "t1.k = __sq_1.v"]);
    assert_eq!(filter(&join), None);
    // NOT (EXISTS ...) is the same
    let p = plan("SELECT * FROM t1 WHERE NOT (EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id))");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftAnti);
    assert_eq!(keys(&join), ["t1.id = __sq_1.k"]);
}

#[test]
fn j03_non_equality_correlation_goes_to_the_join_filter() {
    let p = plan(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT 1 FROM t2 WHERE t2.k = t1.id AND t2.v > t1.v AND t2.v + t1.k = 3 AND t2.id < 10)",
    );
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    assert_eq!(keys(&join), ["t1.id = __sq_1.k"]);
    assert_eq!(
        filter(&join).as_deref(),
        Some("__sq_1.v > t1.v AND __sq_1.v + t1.k = Int64(3)")
    );
    // the subquery's own condition stays in the subquery (on its scan)
    assert!(
        text(&p).contains("Filter: t2.id < Int64(10)"),
        "{}",
        text(&p)
    );
}

#[test]
fn j03_correlated_in_is_a_semi_join_on_value_and_correlation() {
    let p = plan("SELECT * FROM t1 WHERE t1.id IN (SELECT t2.k FROM t2 WHERE t2.v = t1.v)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    assert!(!join.null_aware);
    assert_eq!(keys(&join), ["t1.id = __sq_1.k", "t1.v = __sq_1.v"]);
    assert_eq!(filter(&join), None);
    // a computed value
    let p = plan("SELECT * FROM t1 WHERE t1.id + 1 IN (SELECT t2.k * 2 FROM t2 WHERE t2.v = t1.v)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(
        keys(&join),
        ["t1.id + Int64(1) = __sq_1.__sq_value", "t1.v = __sq_1.v"]
    );
    assert_no_subquery_expr(&p);
}

#[test]
fn j03_correlated_not_in_is_a_null_aware_anti_join_with_one_key() {
    let p = plan(
        "SELECT * FROM t1 WHERE t1.id NOT IN (SELECT t2.k FROM t2 WHERE t2.v = t1.v AND t2.id > t1.k)",
    );
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftAnti);
    assert!(join.null_aware);
    // the kernels' NOT IN takes one key; the correlation is a filter that
    // never counts as "unknown"
    assert_eq!(keys(&join), ["t1.id = __sq_1.k"]);
    assert_eq!(
        filter(&join).as_deref(),
        Some("__sq_1.v = t1.v IS TRUE AND __sq_1.id > t1.k IS TRUE")
    );
    // NOT (x IN ...) is the same
    let p = plan("SELECT * FROM t1 WHERE NOT (t1.id IN (SELECT t2.k FROM t2 WHERE t2.v = t1.v))");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert!(join.null_aware && join.join_type == JoinType::LeftAnti);
    // and the chooser sees NOT IN
    let jp = plan_joins(
        "SELECT * FROM t1 WHERE t1.id NOT IN (SELECT t2.k FROM t2 WHERE t2.v = t1.v)",
        &catalog(),
        &Config::default(),
    )
    .unwrap();
    assert_eq!(jp.joins[0].join_type, KernelJoinType::LeftAntiNullAware);
    assert_eq!(jp.joins[0].keys.len(), 1);
}

#[test]
fn j03_uncorrelated_exists_is_a_semi_join_without_condition() {
    let p = plan("SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.v > 5)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    assert!(join.on.is_empty() && join.filter.is_none());
    assert_eq!(p.blocks[0].joins[0].right.name.as_deref(), Some("__sq_1"));
    let p = plan("SELECT * FROM t1 WHERE NOT EXISTS (SELECT * FROM t2 JOIN t3 ON t2.id = t3.id)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftAnti);
    assert!(join.on.is_empty() && join.filter.is_none());
    // the subquery's join is its own block's
    assert_eq!(p.blocks[1].joins.len(), 1);
}

#[test]
fn correlation_keys_are_cast_to_a_common_type() {
    let p = plan("SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM narrow n WHERE n.id = t1.id)");
    let [join] = block_joins(&p, 0).try_into().unwrap();
    let (left, right) = &join.on[0];
    assert!(matches!(left, Expr::Column(_)), "{left}");
    assert!(
        matches!(right, Expr::Cast(c) if c.field.data_type() == &DataType::Int64),
        "{right}"
    );
}

#[test]
fn subqueries_keep_their_blocks_and_aliases_are_unique() {
    let p = plan(
        "SELECT * FROM t1 \
         WHERE t1.k IN (SELECT t4.k FROM t4) \
           AND EXISTS (SELECT /*+ BROADCAST(t3) */ 1 FROM t2 JOIN t3 ON t2.id = t3.id WHERE t2.k = t1.id) \
           AND t1.v NOT IN (SELECT t4.v FROM t4 WHERE t4.id = t1.id)",
    );
    assert_eq!(p.blocks.len(), 4);
    let outer: Vec<_> = p.blocks[0]
        .joins
        .iter()
        .map(|j| (j.join_type, j.right.name.clone().unwrap()))
        .collect();
    assert_eq!(
        outer,
        [
            (JoinType::LeftSemi, "__sq_1".to_string()),
            (JoinType::LeftSemi, "__sq_2".to_string()),
            (JoinType::LeftAnti, "__sq_3".to_string()),
        ]
    );
    // the EXISTS subquery's join is in block 2 with its hint
    assert_eq!(p.blocks[2].joins.len(), 1);
    assert_eq!(p.blocks[2].joins[0].left.name.as_deref(), Some("t2"));
    assert_eq!(p.blocks[2].hints[0].text.trim(), "BROADCAST(t3)");
    let jp = plan_joins(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT /*+ BROADCAST(t3) */ 1 FROM t2 JOIN t3 ON t2.id = t3.id WHERE t2.k = t1.id)",
        &catalog(),
        &Config::default(),
    )
    .unwrap();
    assert_eq!(jp.joins.len(), 2, "{jp}");
    assert_eq!(jp.joins[0].strategy, Strategy::Broadcast);
    assert_eq!(jp.joins[0].build.as_deref(), Some("t3"));
    assert_eq!(jp.joins[0].source, DecisionSource::Hint(0));
    assert_eq!(jp.joins[1].join_type, KernelJoinType::LeftSemi);
}

#[test]
fn h14_exists_semi_joins_take_no_hints() {
    let sql =
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id)";
    let jp = plan_joins(sql, &catalog(), &Config::default()).unwrap();
    let [j] = jp.joins.as_slice() else {
        panic!("{jp}")
    };
    assert_eq!(j.join_type, KernelJoinType::LeftSemi);
    assert_eq!((j.left.as_deref(), j.right.as_deref()), (Some("t1"), None));
    assert_eq!(j.keys, ["t1.id = __sq_1.k"]);
    assert_eq!(j.source, DecisionSource::Default);
    assert_eq!(j.ignored_hints[0].reason, IgnoreReason::SubqueryJoin);
    // the generated alias is not a name hints may use
    assert!(
        plan_joins(
            "SELECT /*+ BROADCAST(__sq_1) */ * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id)",
            &catalog(),
            &Config::default(),
        )
        .is_err()
    );
}

#[test]
fn nested_correlated_subqueries_decorrelate_level_by_level() {
    let p = plan(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT 1 FROM t2 WHERE t2.k = t1.id AND NOT EXISTS \
              (SELECT 1 FROM t3 WHERE t3.v = t2.v))",
    );
    let [outer] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(outer.join_type, JoinType::LeftSemi);
    assert_eq!(keys(&outer), ["t1.id = __sq_2.k"]);
    let [inner] = block_joins(&p, 1).try_into().unwrap();
    assert_eq!(inner.join_type, JoinType::LeftAnti);
    assert_eq!(keys(&inner), ["t2.v = __sq_1.v"]);
    assert_no_subquery_expr(&p);
}

#[test]
fn exists_with_distinct_order_and_limit_in_the_subquery() {
    let p = plan(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT DISTINCT t2.v FROM t2 WHERE t2.k = t1.id ORDER BY t2.v LIMIT 1)",
    );
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(keys(&join), ["t1.id = __sq_1.k"]);
    // a correlated HAVING is above the aggregate: fine
    let p = plan(
        "SELECT * FROM t1 WHERE t1.v IN \
           (SELECT max(t2.v) FROM t2 GROUP BY t2.k HAVING t2.k = t1.k)",
    );
    let [join] = block_joins(&p, 0).try_into().unwrap();
    assert_eq!(join.on.len(), 2, "{:?}", keys(&join));
}

#[test]
fn rejected_subquery_predicate_outside_a_where_conjunct() {
    let m = unsupported(
        "SELECT * FROM t1 WHERE t1.v > 1 OR EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id)",
    );
    assert!(m.contains("EXISTS") && m.contains("OR"), "{m}");
    let m = unsupported("SELECT * FROM t1 WHERE t1.v > 1 OR t1.id IN (SELECT k FROM t2)");
    assert!(m.contains("IN (subquery)") && m.contains("OR"), "{m}");
    let m = unsupported("SELECT t1.id, EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.id) FROM t1");
    assert!(m.contains("EXISTS") && m.contains("SELECT list"), "{m}");
    let m = unsupported(
        "SELECT * FROM t1 JOIN t3 ON t1.id = t3.id AND EXISTS (SELECT 1 FROM t2 WHERE t2.k = t3.id)",
    );
    assert!(m.contains("ON condition"), "{m}");
    let m = unsupported(
        "SELECT t1.k, count(*) FROM t1 GROUP BY t1.k HAVING EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k)",
    );
    assert!(m.contains("HAVING"), "{m}");
}

#[test]
fn rejected_correlation_outside_the_subquerys_where() {
    // below an aggregate
    let m =
        unsupported("SELECT * FROM t1 WHERE t1.v IN (SELECT max(t2.v) FROM t2 WHERE t2.k = t1.k)");
    assert!(m.contains("aggregate") && m.contains("t1.k"), "{m}");
    let m =
        unsupported("SELECT * FROM t1 WHERE EXISTS (SELECT count(*) FROM t2 WHERE t2.k = t1.k)");
    assert!(m.contains("aggregate"), "{m}");
    // in a JOIN condition inside the subquery
    let m = unsupported(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT 1 FROM t2 JOIN t3 ON t2.id = t3.id AND t3.v = t1.v)",
    );
    assert!(m.contains("JOIN condition") && m.contains("t1.v"), "{m}");
    // in the IN subquery's SELECT list
    let m = unsupported("SELECT * FROM t1 WHERE t1.v IN (SELECT t2.v + t1.k FROM t2)");
    assert!(m.contains("SELECT list"), "{m}");
    // inside a derived table of the subquery
    let m = unsupported(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT 1 FROM (SELECT t2.k FROM t2 WHERE t2.v = t1.v) s)",
    );
    assert!(m.contains("derived table"), "{m}");
    // below LIMIT in an IN subquery
    let m = unsupported(
        "SELECT * FROM t1 WHERE t1.v IN (SELECT t2.v FROM t2 WHERE t2.k = t1.k LIMIT 3)",
    );
    assert!(m.contains("LIMIT"), "{m}");
}

#[test]
fn rejected_reference_two_levels_out() {
    let m = unsupported(
        "SELECT * FROM t1 WHERE EXISTS \
           (SELECT 1 FROM t2 WHERE t2.k = t1.id AND EXISTS \
              (SELECT 1 FROM t3 WHERE t3.v = t1.v))",
    );
    assert!(
        m.contains("t1.v") && m.contains("more than one level"),
        "{m}"
    );
}
