//! Filter pushdown: WHERE and ON conjuncts as far down as is correct (J02:
//! never across the preserved side of an outer join), the block markers
//! and join hints unaffected.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion_expr::{JoinType, LogicalPlan};
use tenon_kernels::Strategy;
use tenon_planner::choose::plan_joins;
use tenon_planner::config::Config;
use tenon_planner::hints::DecisionSource;
use tenon_planner::sql::{Catalog, PlannedQuery, node_at};

use crate::sql_support::{filter, joins, keys};

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
    c
}

fn plan(sql: &str) -> PlannedQuery {
    catalog().plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The predicate of the Filter directly on top of `plan`, if any.
fn filter_on(plan: &LogicalPlan) -> Option<String> {
    match plan {
        LogicalPlan::Filter(f) => Some(f.predicate.to_string()),
        _ => None,
    }
}

/// The Filter right above the scan of `plan` (under aliases, projections
/// and filters), if any.
fn scan_filter(plan: &LogicalPlan) -> Option<String> {
    match plan {
        LogicalPlan::Filter(f) if matches!(f.input.as_ref(), LogicalPlan::TableScan(_)) => {
            Some(f.predicate.to_string())
        }
        LogicalPlan::Filter(f) => scan_filter(&f.input),
        LogicalPlan::SubqueryAlias(sa) => scan_filter(&sa.input),
        LogicalPlan::Projection(p) => scan_filter(&p.input),
        _ => None,
    }
}

/// Lines of the indented plan, trimmed.
fn lines(p: &PlannedQuery) -> Vec<String> {
    p.plan
        .display_indent()
        .to_string()
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn inner_join_where_conjuncts_go_to_their_side() {
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id \
         WHERE t1.v > 1 AND t2.k = 2 AND t1.k < t2.k AND t1.v + 1 = t2.v",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.v > Int64(1)"));
    assert_eq!(filter_on(&join.right).as_deref(), Some("t2.k = Int64(2)"));
    assert!(matches!(
        (&join.left.as_ref(), &join.right.as_ref()),
        (LogicalPlan::Filter(l), LogicalPlan::Filter(r))
            if matches!(l.input.as_ref(), LogicalPlan::TableScan(s) if s.filters.is_empty())
            && matches!(r.input.as_ref(), LogicalPlan::TableScan(_))
    ));
    // a conjunct over both sides joins the condition, through key extraction
    assert_eq!(keys(&join), ["t1.id = t2.id", "t1.v + Int64(1) = t2.v"]);
    assert_eq!(filter(&join).as_deref(), Some("t1.k < t2.k"));
    assert!(
        !lines(&p)
            .iter()
            .any(|l| l.starts_with("Filter: t1.v > Int64(1) AND"))
    );
}

#[test]
fn inner_join_on_conjuncts_over_one_side_go_to_that_side() {
    let p = plan("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id AND t1.k = 5 AND t2.v <> 0");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(keys(&join), ["t1.id = t2.id"]);
    assert_eq!(filter(&join), None);
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.k = Int64(5)"));
    assert_eq!(filter_on(&join.right).as_deref(), Some("t2.v != Int64(0)"));
}

#[test]
fn left_join_where_on_the_right_side_stays_above() {
    // t2.v > 1 filters the NULL-extended rows too: below the join it would
    // let them through
    let p = plan("SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id WHERE t2.v > 1 AND t1.k = 3");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::Left);
    assert_eq!(filter_on(&join.right), None);
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.k = Int64(3)"));
    let top = match &p.plan {
        LogicalPlan::Projection(proj) => proj.input.as_ref(),
        other => other,
    };
    assert_eq!(filter_on(top).as_deref(), Some("t2.v > Int64(1)"));
    // and a conjunct over both sides of a LEFT join stays above as well
    let p = plan("SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id WHERE t1.v = t2.v");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter(&join), None);
    assert!(lines(&p).contains(&"Filter: t1.v = t2.v".to_string()));
}

#[test]
fn left_join_on_conjuncts_right_only_go_down_left_only_stay() {
    let p = plan(
        "SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id AND t2.v > 1 AND t1.k = 7 AND t1.v < t2.v",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(keys(&join), ["t1.id = t2.id"]);
    // a left row failing t1.k = 7 is still emitted, NULL-extended (J02)
    assert_eq!(
        filter(&join).as_deref(),
        Some("t1.k = Int64(7) AND t1.v < t2.v")
    );
    assert_eq!(filter_on(&join.left), None);
    assert_eq!(filter_on(&join.right).as_deref(), Some("t2.v > Int64(1)"));
    // RIGHT join: the mirror image
    let p = plan("SELECT * FROM t1 RIGHT JOIN t2 ON t1.id = t2.id AND t2.v > 1 AND t1.k = 7");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter(&join).as_deref(), Some("t2.v > Int64(1)"));
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.k = Int64(7)"));
}

#[test]
fn full_join_keeps_everything_in_place() {
    let p = plan(
        "SELECT * FROM t1 FULL JOIN t2 ON t1.id = t2.id AND t2.v > 1 AND t1.k = 7 WHERE t1.v = 1",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(
        filter(&join).as_deref(),
        Some("t2.v > Int64(1) AND t1.k = Int64(7)")
    );
    assert_eq!(
        (filter_on(&join.left), filter_on(&join.right)),
        (None, None)
    );
    assert!(lines(&p).contains(&"Filter: t1.v = Int64(1)".to_string()));
}

#[test]
fn semi_and_anti_joins() {
    // WHERE over the left input of an IN semi join goes below it
    let p = plan("SELECT * FROM t1 WHERE t1.id IN (SELECT t2.k FROM t2) AND t1.v > 0");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(join.join_type, JoinType::LeftSemi);
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.v > Int64(0)"));
    // explicit LEFT ANTI: a right-only ON conjunct goes right, a left-only stays
    let p = plan("SELECT * FROM t1 LEFT ANTI JOIN t2 ON t1.id = t2.id AND t2.v > 1 AND t1.k = 2");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter(&join).as_deref(), Some("t1.k = Int64(2)"));
    assert_eq!(filter_on(&join.right).as_deref(), Some("t2.v > Int64(1)"));
    // explicit LEFT SEMI: both go down
    let p = plan("SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id AND t2.v > 1 AND t1.k = 2");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter(&join), None);
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.k = Int64(2)"));
    assert_eq!(filter_on(&join.right).as_deref(), Some("t2.v > Int64(1)"));
}

#[test]
fn through_aliases_and_pass_through_projections_only() {
    let p = plan(
        "SELECT * FROM (SELECT t1.id AS i, t1.v + 1 AS w FROM t1) s JOIN t2 ON s.i = t2.id \
         WHERE s.i > 3 AND s.w > 4",
    );
    let [join] = joins(&p).try_into().unwrap();
    // s.i is t1.id renamed: onto the scan; s.w is computed: above the projection
    assert_eq!(scan_filter(&join.left).as_deref(), Some("t1.id > Int64(3)"));
    let LogicalPlan::SubqueryAlias(sa) = join.left.as_ref() else {
        panic!("{}", join.left.display_indent())
    };
    assert_eq!(filter_on(&sa.input).as_deref(), Some("w > Int64(4)"));
    // an aliased table: the Filter sits between the alias and its scan
    let p = plan("SELECT * FROM t1 a JOIN t2 b ON a.id = b.id WHERE b.v = 9");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(scan_filter(&join.right).as_deref(), Some("t2.v = Int64(9)"));
    assert_eq!(p.blocks[0].joins[0].right.name.as_deref(), Some("b"));
}

#[test]
fn not_below_aggregate_limit_or_union() {
    for derived in [
        "SELECT t1.k, count(*) AS c FROM t1 GROUP BY t1.k",
        "SELECT t1.k FROM t1 LIMIT 10",
        // (an ORDER BY without LIMIT in a derived table is dropped by SqlToRel)
        "SELECT t1.k FROM t1 ORDER BY t1.v LIMIT 3",
        // (no window functions are registered in the catalog yet)
        "SELECT t1.k FROM t1 UNION ALL SELECT t3.k FROM t3",
    ] {
        let p = plan(&format!(
            "SELECT * FROM ({derived}) s JOIN t2 ON s.k = t2.k WHERE s.k > 5"
        ));
        let text = p.plan.display_indent().to_string();
        let filter_at = text.find("Filter: ").unwrap_or_else(|| panic!("{text}"));
        let below = &text[filter_at..];
        assert!(
            below.contains("Aggregate")
                || below.contains("Limit")
                || below.contains("Sort")
                || below.contains("Union"),
            "{derived}: the filter went below\n{text}"
        );
    }
}

#[test]
fn volatile_conjuncts_stay_now_moves() {
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id \
         WHERE random() < 0.5 AND t1.v > 1 AND to_timestamp(t2.v) < now()",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter_on(&join.left).as_deref(), Some("t1.v > Int64(1)"));
    assert!(filter_on(&join.right).is_some_and(|f| f.contains("now()")));
    assert!(
        lines(&p)
            .iter()
            .any(|l| l.starts_with("Filter: random() <")),
        "{:?}",
        lines(&p)
    );
    // volatile on one side: stays above the join, not on the side
    let p = plan("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.v > random()");
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter_on(&join.left), None);
}

#[test]
fn derived_table_conjunct_lands_in_its_block() {
    let p = plan(
        "SELECT /*+ BROADCAST(s) */ * FROM t1 JOIN \
           (SELECT /*+ SHUFFLE_HASH(t3) */ t2.id FROM t2 JOIN t3 ON t2.id = t3.id) s \
         ON t1.id = s.id WHERE s.id > 5",
    );
    let names: Vec<Vec<_>> = p
        .blocks
        .iter()
        .map(|b| {
            b.joins
                .iter()
                .map(|j| (j.left.name.clone(), j.right.name.clone()))
                .collect()
        })
        .collect();
    let n = |s: &str| Some(s.to_string());
    assert_eq!(names, [vec![(n("t1"), n("s"))], vec![(n("t2"), n("t3"))]]);
    // s.id > 5 is t2.id > 5 on t2's scan, inside block 1
    let inner = &joins(&p)[1];
    assert_eq!(
        scan_filter(&inner.left).as_deref(),
        Some("t2.id > Int64(5)")
    );
    assert!(!p.plan.display_indent().to_string().contains("__tenon"));
}

#[test]
fn relations_are_found_under_a_filter_on_a_join_input() {
    // t2.v > 1 stays on top of the LEFT join, which is the left input of
    // the inner join: the block's relations are still t1, t2, t3
    let sql = "SELECT /*+ BROADCAST(t2), SHUFFLE_HASH(t3) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id \
               JOIN t3 ON t1.k = t3.k WHERE t2.v > 1";
    let p = plan(sql);
    let rels: Vec<_> = p.blocks[0]
        .relations
        .iter()
        .map(|r| r.name.clone().unwrap())
        .collect();
    assert_eq!(rels, ["t1", "t2", "t3"]);
    let [left_join, inner] = joins(&p).try_into().unwrap();
    assert_eq!(left_join.join_type, JoinType::Left);
    assert_eq!(filter_on(&inner.left).as_deref(), Some("t2.v > Int64(1)"));
    let jp = plan_joins(sql, &catalog(), &Config::default()).unwrap();
    assert_eq!(jp.joins[0].strategy, Strategy::Broadcast);
    assert_eq!(jp.joins[0].build.as_deref(), Some("t2"));
    assert_eq!(jp.joins[1].strategy, Strategy::ShuffleHash);
    assert_eq!(jp.joins[1].build.as_deref(), Some("t3"));
}

#[test]
fn hints_apply_after_pushdown() {
    let cfg = Config::default();
    let c = catalog();
    // WHERE conjuncts on both inputs: the inputs are still t1 and t2
    let jp = plan_joins(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.v > 1 AND t2.v > 1",
        &c,
        &cfg,
    )
    .unwrap();
    let j = &jp.joins[0];
    assert_eq!(
        (j.strategy, j.build.as_deref()),
        (Strategy::Broadcast, Some("t2"))
    );
    assert_eq!(j.source, DecisionSource::Hint(0));
    assert_eq!(j.keys, ["t1.id = t2.id"]);
    // an alias with a filter between it and the scan
    let jp = plan_joins(
        "SELECT /*+ BROADCAST(b) */ * FROM t1 a JOIN t2 b ON a.id = b.id AND b.k = 1 WHERE b.v > 1",
        &c,
        &cfg,
    )
    .unwrap();
    let j = &jp.joins[0];
    assert_eq!(
        (j.strategy, j.build.as_deref()),
        (Strategy::Broadcast, Some("b"))
    );
    assert_eq!(j.filter, None);
    // LEFT join, right-only ON conjunct moved into the right input
    let jp = plan_joins(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id AND t2.v > 1",
        &c,
        &cfg,
    )
    .unwrap();
    let j = &jp.joins[0];
    assert_eq!(
        (j.strategy, j.build.as_deref()),
        (Strategy::Broadcast, Some("t2"))
    );
    assert_eq!(j.filter, None);
    // an implicit join made an equi join by its WHERE clause
    let jp = plan_joins(
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1, t2 WHERE t1.id = t2.id AND t2.v > 1",
        &c,
        &cfg,
    )
    .unwrap();
    let j = &jp.joins[0];
    assert_eq!(
        (j.strategy, j.build.as_deref()),
        (Strategy::ShuffleHash, Some("t1"))
    );
}

#[test]
fn table_hints_keep_their_scan_after_pushdown() {
    let p = plan(
        "SELECT * FROM t1 /*+ OPTIONS('scan.batch-size'='10') */ AS a JOIN t2 ON a.id = t2.id \
         WHERE a.v > 1",
    );
    let scan = p.blocks[0]
        .scans
        .iter()
        .find(|s| s.table == "t1")
        .expect("t1 scanned");
    assert_eq!(scan.alias.as_deref(), Some("a"));
    assert_eq!(scan.hints.len(), 1);
    assert!(matches!(
        node_at(&p.plan, &scan.path),
        Some(LogicalPlan::TableScan(_))
    ));
}

/// An OR over both inputs whose every branch has conditions on one input
/// stays, and also filters that input by the OR of those conditions (TPC-H
/// Q7's nation pair); on the preserved side of a LEFT join's WHERE only the
/// left input gets one, and a branch without a condition on an input
/// gives that input nothing.
#[test]
fn an_or_over_both_inputs_also_filters_each_input_it_constrains() {
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id \
         WHERE (t1.k = 1 AND t2.k = 2) OR (t1.k = 2 AND t2.k = 1 AND t2.v > 0)",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(
        filter_on(&join.left).as_deref(),
        Some("t1.k = Int64(1) OR t1.k = Int64(2)")
    );
    assert_eq!(
        filter_on(&join.right).as_deref(),
        Some("t2.k = Int64(2) OR t2.k = Int64(1) AND t2.v > Int64(0)")
    );
    assert!(
        filter(&join).is_some_and(|f| f.contains(" OR ")),
        "{:?}",
        filter(&join)
    );
    // LEFT join, WHERE: the left input only.
    let p = plan(
        "SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id \
         WHERE (t1.k = 1 AND t2.k = 2) OR (t1.k = 2 AND t2.k = 1)",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(
        filter_on(&join.left).as_deref(),
        Some("t1.k = Int64(1) OR t1.k = Int64(2)")
    );
    assert_eq!(filter_on(&join.right), None);
    // A branch with no condition on t2: nothing for t2.
    let p = plan(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id \
         WHERE (t1.k = 1 AND t2.k = 2) OR t1.v = 3",
    );
    let [join] = joins(&p).try_into().unwrap();
    assert_eq!(filter_on(&join.right), None);
    assert_eq!(
        filter_on(&join.left).as_deref(),
        Some("t1.k = Int64(1) OR t1.v = Int64(3)")
    );
}
