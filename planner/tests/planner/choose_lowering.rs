//! The chooser's decisions as the physical plan carries them: every
//! `Operator::Join` holds the `JoinChoice` of its `PlannedJoin`, found from
//! the join node itself; INTERSECT / EXCEPT joins are decided by the
//! chooser too; and the run-time adaptation each decision allows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion_expr::LogicalPlan;
use tenon_kernels::{JoinSide, Strategy};
use tenon_planner::choose::{JoinChoice, JoinPlan, allows_adaptive_build_side, plan_joins};
use tenon_planner::config::Config;
use tenon_planner::exec::{Operator, PhysicalPlan, TableData, Tables, lower};
use tenon_planner::expr::QueryContext;
use tenon_planner::hints::DecisionSource;
use tenon_planner::sql::{Catalog, TableStats, node_at, plan_sql};

const MIB: u64 = 1024 * 1024;

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("v", DataType::Int64, true),
    ]))
}

/// t1 small, t2 large, t3 medium, s1/s2 large and sorted on `id`.
fn catalog() -> Catalog {
    let stats = |rows: u64, bytes: u64, sorted: bool| TableStats {
        row_count: Some(rows),
        byte_size: Some(bytes),
        sorted_on: if sorted {
            vec!["id".into()]
        } else {
            Vec::new()
        },
        column_bytes: Vec::new(),
        columns: Vec::new(),
    };
    let mut c = Catalog::new();
    c.register_table_with_stats("t1", schema(), stats(100, 1_600, false));
    c.register_table_with_stats("t2", schema(), stats(1_000_000, 200 * MIB, false));
    c.register_table_with_stats("t3", schema(), stats(1_000_000, 100 * MIB, false));
    c.register_table_with_stats("s1", schema(), stats(1_000_000, 300 * MIB, true));
    c.register_table_with_stats("s2", schema(), stats(1_000_000, 300 * MIB, true));
    c
}

fn tables() -> Tables {
    let mut t: Tables = HashMap::new();
    for name in ["t1", "t2", "t3", "s1", "s2"] {
        t.insert(name.into(), Arc::new(TableData::new(schema(), Vec::new())));
    }
    t
}

fn plan_with(sql: &str, config: &Config) -> JoinPlan {
    plan_joins(sql, &catalog(), config).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn lowered(plan: &JoinPlan, config: &Config) -> PhysicalPlan {
    lower(plan, &tables(), config, &QueryContext::new()).unwrap()
}

/// A choice as a sortable tuple (the physical plan meets joins in its
/// tree walk's order, the join plan lists them in docs/cli.md's).
fn key(c: &JoinChoice) -> String {
    format!(
        "{} {:?} {:?} {:?} {} {} {:?}",
        c.strategy, c.build_side, c.build, c.keys, c.reason, c.adaptive_build_side, c.source
    )
}

#[test]
fn every_physical_join_carries_the_choice_of_its_planned_join() {
    let config = Config::default();
    for sql in [
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t2.v = t3.v",
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id \
         WHERE t1.v IN (SELECT /*+ NEST_LOOP(t3) */ t3.v FROM t3 JOIN t1 ON t3.id = t1.id)",
        // a CTE read twice: its join at two places, decided twice
        "WITH j AS (SELECT t1.id, t2.v FROM t1 JOIN t2 ON t1.id = t2.id) \
         SELECT * FROM j a JOIN j b ON a.id = b.id",
        "SELECT * FROM s1 JOIN s2 ON s1.id = s2.id LEFT JOIN t1 ON s1.v < t1.v",
    ] {
        let plan = plan_with(sql, &config);
        let physical = lowered(&plan, &config);
        let mut planned: Vec<String> = plan.joins.iter().map(|j| key(&j.into())).collect();
        let mut carried: Vec<String> = physical.joins().into_iter().map(key).collect();
        planned.sort();
        carried.sort();
        assert_eq!(carried, planned, "{sql}");
        assert!(!planned.is_empty(), "{sql}");
    }
}

#[test]
fn each_planned_join_is_the_decision_its_node_carries() {
    let config = Config::default();
    for sql in [
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t2.v = t3.v",
        "SELECT * FROM t1 WHERE t1.v IN (SELECT t3.v FROM t3 JOIN t2 ON t3.id = t2.id) \
         AND EXISTS (SELECT 1 FROM t2 WHERE t2.id = t1.id)",
        "WITH j AS (SELECT t1.id, t2.v FROM t1 JOIN t2 ON t1.id = t2.id) \
         SELECT * FROM j a JOIN j b ON a.id = b.id",
        "SELECT id FROM t1 UNION ALL SELECT t2.id FROM t2 JOIN t3 ON t2.id = t3.id",
    ] {
        let plan = plan_with(sql, &config);
        assert!(!plan.joins.is_empty(), "{sql}");
        for planned in &plan.joins {
            let Some(LogicalPlan::Join(join)) = node_at(&plan.query.plan, &planned.path) else {
                panic!("{sql}: no join at {:?}", planned.path);
            };
            assert_eq!(plan.decision_of(&join), Some(planned), "{sql}");
        }
    }
    // a join node of another plan carries no decision
    let sql = "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id";
    let plan = plan_with(sql, &config);
    let front_end = plan_sql(&catalog(), sql).unwrap();
    let Some(LogicalPlan::Join(join)) = node_at(&front_end.plan, &plan.joins[0].path) else {
        panic!("no join");
    };
    assert_eq!(plan.decision_of(&join), None);
}

#[test]
fn the_cte_read_twice_has_two_decisions() {
    let sql = "WITH j AS (SELECT t1.id, t2.v FROM t1 JOIN t2 ON t1.id = t2.id) \
               SELECT * FROM j a JOIN j b ON a.id = b.id";
    let plan = plan_with(sql, &Config::default());
    assert_eq!(plan.joins.len(), 3);
    assert_eq!(lowered(&plan, &Config::default()).joins().len(), 3);
}

#[test]
fn set_operation_joins_are_decided_by_the_chooser() {
    for (sql, disabled, strategy) in [
        (
            "SELECT id FROM t1 INTERSECT SELECT id FROM t2",
            "",
            Strategy::ShuffleHash,
        ),
        (
            "SELECT id FROM t1 EXCEPT SELECT id FROM t2",
            "SHUFFLE_HASH",
            Strategy::Broadcast,
        ),
        (
            "SELECT id FROM t1 INTERSECT SELECT id FROM t2",
            "SHUFFLE_HASH,BROADCAST",
            Strategy::ShuffleMerge,
        ),
    ] {
        let mut config = Config::default();
        if !disabled.is_empty() {
            config
                .set_pair(&format!("disabled_strategies={disabled}"))
                .unwrap();
        }
        let plan = plan_with(sql, &config);
        assert!(
            plan.joins.is_empty(),
            "{sql}: EXPLAIN's list leaves them out"
        );
        assert_eq!(plan.set_operation_joins.len(), 1, "{sql}");
        let join = &plan.set_operation_joins[0];
        assert_eq!(join.strategy, strategy, "{sql} without {disabled}");
        assert_eq!(join.source, DecisionSource::Default);
        let build = (strategy != Strategy::ShuffleMerge).then_some(JoinSide::Right);
        assert_eq!(join.build_side, build);
        assert_eq!(
            join.reason,
            format!("a set operation's join (INTERSECT / EXCEPT) takes no hints: {strategy}")
        );
        let physical = lowered(&plan, &config);
        let carried = physical.joins();
        assert_eq!(carried.len(), 1);
        assert_eq!(*carried[0], JoinChoice::from(join));
        assert!(
            physical.to_text(false).contains("takes no hints"),
            "{}",
            physical.to_text(false)
        );
    }
}

#[test]
fn adaptive_build_side_exactly_for_default_hash_joins() {
    let mut config = Config::default();
    config.set_pair("broadcast_threshold=1MB").unwrap();
    for (sql, strategy, adaptive) in [
        // default BROADCAST of the small side
        (
            "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
            Strategy::Broadcast,
            true,
        ),
        // default SHUFFLE_HASH of two large sides
        (
            "SELECT * FROM t3 JOIN t2 ON t3.id = t2.id",
            Strategy::ShuffleHash,
            true,
        ),
        // default SHUFFLE_MERGE of sorted inputs, NEST_LOOP without keys
        (
            "SELECT * FROM s1 JOIN s2 ON s1.id = s2.id",
            Strategy::ShuffleMerge,
            false,
        ),
        (
            "SELECT * FROM t1 JOIN t2 ON t1.v < t2.v",
            Strategy::NestLoop,
            false,
        ),
        // a hint's build side is kept
        (
            "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            Strategy::Broadcast,
            false,
        ),
        (
            "SELECT /*+ SHUFFLE_HASH(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            Strategy::ShuffleHash,
            false,
        ),
    ] {
        let plan = plan_with(sql, &config);
        let join = &plan.joins[0];
        assert_eq!(join.strategy, strategy, "{sql}");
        assert_eq!(join.adaptive_build_side, adaptive, "{sql}");
        assert_eq!(
            allows_adaptive_build_side(&join.source, join.strategy),
            adaptive,
            "{sql}"
        );
        let physical = lowered(&plan, &config);
        assert_eq!(physical.joins()[0].adaptive_build_side, adaptive, "{sql}");
    }
}

#[test]
fn a_join_without_a_decision_is_an_error_not_a_guess() {
    // the joins of a plan straight from the front end carry no decision
    let config = Config::default();
    let sql = "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id";
    let mut plan = plan_with(sql, &config);
    plan.query = plan_sql(&catalog(), sql).unwrap();
    let err = lower(&plan, &tables(), &config, &QueryContext::new())
        .unwrap_err()
        .to_string();
    assert!(err.contains("has no decision"), "{err}");
}

#[test]
fn renaming_a_scan_keeps_the_decisions_on_the_joins() {
    let config = Config::default();
    let sql = "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
    let mut plan = plan_with(sql, &config);
    let path = plan.query.blocks[0].scans[0].path.clone();
    let table = plan.query.blocks[0].scans[0].table.clone();
    plan.rename_scan(&path, "renamed").unwrap();
    let mut tables = tables();
    let data = tables[&table].clone();
    tables.insert("renamed".into(), data);
    let physical = lower(&plan, &tables, &config, &QueryContext::new()).unwrap();
    let carried = physical.joins();
    assert_eq!(carried.len(), 1);
    assert_eq!(carried[0].strategy, Strategy::ShuffleHash);
    assert_eq!(carried[0].build.as_deref(), Some("t1"));
    let Operator::Join { decision, .. } = &physical_join(&physical).operator else {
        unreachable!()
    };
    assert_eq!(*decision, JoinChoice::from(&plan.joins[0]));
}

/// The first join of a physical plan.
fn physical_join(p: &PhysicalPlan) -> &PhysicalPlan {
    if matches!(p.operator, Operator::Join { .. }) {
        return p;
    }
    p.children()
        .into_iter()
        .map(physical_join)
        .find(|j| matches!(j.operator, Operator::Join { .. }))
        .unwrap_or(p)
}
