//! docs/hints.md rules through SQL: `choose::plan_joins` from SQL text with
//! small registered tables (schemas and statistics) to one decision per
//! join. H31 (views) is not here: the SQL front end has no views yet.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::choose::{JoinPlan, PlanError, plan_joins};
use tenon_planner::config::Config;
use tenon_planner::hints::{DecisionSource, HintError, IgnoreReason};
use tenon_planner::sql::{Catalog, SqlError, TableStats};

use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

const MIB: u64 = 1024 * 1024;

fn stats(rows: u64, bytes: u64) -> TableStats {
    TableStats {
        row_count: Some(rows),
        byte_size: Some(bytes),
        sorted_on: Vec::new(),
        column_bytes: Vec::new(),
        columns: Vec::new(),
    }
}

/// t1 small (2.3 KiB), t2 large (200 MiB), t3 small (23 KiB), t4 larger
/// (400 MiB), s1/s2 large and sorted on `id`, u without statistics,
/// orders/customers for aliases.
fn catalog() -> Catalog {
    let cols = || {
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("a", DataType::Int64, true),
            Field::new("v", DataType::Int64, true),
        ]))
    };
    let mut c = Catalog::new();
    c.register_table_with_stats("t1", cols(), stats(100, 2_400));
    c.register_table_with_stats("t2", cols(), stats(1_000_000, 200 * MIB));
    c.register_table_with_stats("t3", cols(), stats(1_000, 24_000));
    c.register_table_with_stats("t4", cols(), stats(2_000_000, 400 * MIB));
    for s in ["s1", "s2"] {
        let mut st = stats(1_000_000, 300 * MIB);
        st.sorted_on = vec!["id".into()];
        c.register_table_with_stats(s, cols(), st);
    }
    c.register_table("u", cols());
    c.register_table_with_stats(
        "orders",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("cust_id", DataType::Int64, true),
        ])),
        stats(1_000_000, 16 * MIB),
    );
    c.register_table_with_stats(
        "customers",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ])),
        stats(1_000, 40_000),
    );
    c
}

fn plan_with(sql: &str, config: &Config) -> Result<JoinPlan, PlanError> {
    plan_joins(sql, &catalog(), config)
}

fn plan(sql: &str) -> JoinPlan {
    plan_with(sql, &Config::default()).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn err(sql: &str) -> PlanError {
    match plan_with(sql, &Config::default()) {
        Ok(p) => panic!("{sql}: expected an error, got\n{p}"),
        Err(e) => e,
    }
}

fn set(pairs: &[&str]) -> Config {
    let mut c = Config::default();
    for p in pairs {
        c.set_pair(p).unwrap();
    }
    c
}

/// (strategy, build name) per join.
fn chosen(p: &JoinPlan) -> Vec<(Strategy, Option<&str>)> {
    p.joins
        .iter()
        .map(|j| (j.strategy, j.build.as_deref()))
        .collect()
}

const EQ: &str = "FROM t1 JOIN t2 ON t1.id = t2.id";
const FULL: &str = "FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id";
const THREE: &str = "FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id";

fn hinted(hint: &str, from: &str) -> JoinPlan {
    plan(&format!("SELECT /*+ {hint} */ * {from}"))
}

// ------------------------------------------------------------ §1 syntax

#[test]
fn h01_hints_separated_by_commas_or_white_space() {
    for hint in [
        "BROADCAST(t1) SHUFFLE_HASH(t1)",
        "BROADCAST(t1), SHUFFLE_HASH(t1)",
    ] {
        let p = hinted(hint, EQ);
        assert_eq!(chosen(&p), [(Broadcast, Some("t1"))], "{hint}");
        assert_eq!(p.joins[0].ignored_hints.len(), 1, "{hint}");
    }
}

#[test]
fn h03_hint_names_case_insensitive_unknown_lists_known() {
    assert_eq!(
        chosen(&hinted("broadcast(T1)", EQ)),
        [(Broadcast, Some("t1"))]
    );
    let e = err("SELECT /*+ BROADCST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert!(
        matches!(e, PlanError::Hint(HintError::UnknownHint { .. })),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("BROADCST") && msg.contains("SHUFFLE_HASH"),
        "{msg}"
    );
    assert_eq!(e.position().map(|p| (p.line, p.column)), Some((1, 12)));
}

#[test]
fn h04_two_hint_blocks_are_an_error_at_the_second() {
    let e = err(
        "SELECT /*+ BROADCAST(t1) */\n  /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
    );
    let PlanError::Sql(SqlError::Syntax { line, column, .. }) = &e else {
        panic!("{e:?}");
    };
    assert_eq!((*line, *column), (2, 3), "{e}");
    assert!(e.to_string().contains("line 2, column 3"), "{e}");
}

#[test]
fn h05_malformed_hints_point_at_line_and_column() {
    // missing `)`: the end of the hint text on line 2
    let e = err("SELECT *\nFROM (SELECT /*+ BROADCAST(t1 */ * FROM t1 JOIN t2 ON t1.id = t2.id) s");
    assert!(
        matches!(e, PlanError::Hint(HintError::Syntax { .. })),
        "{e:?}"
    );
    let pos = e.position().expect("a position");
    assert_eq!(pos.line, 2, "{e}");
    assert!(e.to_string().contains("line 2, column"), "{e}");
    // empty option
    let e = err("SELECT /*+ BROADCAST(t1,) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert_eq!(e.position().map(|p| p.line), Some(1), "{e}");
    // bad token
    let e = err("SELECT /*+ BROADCAST(t1; t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert!(
        matches!(e, PlanError::Hint(HintError::Syntax { .. })),
        "{e:?}"
    );
    // unclosed comment: the tokenizer's error, with its position
    let e = err("SELECT /*+ BROADCAST(t1) * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert!(e.position().is_some(), "{e:?}");
}

#[test]
fn h05_misplaced_hints_are_errors() {
    // a hint after WHERE: neither after SELECT nor after a table
    let e = err("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.a = 1 /*+ BROADCAST(t1) */");
    assert!(
        matches!(e, PlanError::Hint(HintError::Misplaced { .. })),
        "{e:?}"
    );
    assert_eq!(e.position().map(|p| p.line), Some(1));
    // a join hint after a table name
    let e = err("SELECT * FROM t1 /*+ BROADCAST(t1) */ JOIN t2 ON t1.id = t2.id");
    assert!(
        matches!(e, PlanError::Hint(HintError::Misplaced { .. })),
        "{e:?}"
    );
}

#[test]
fn h07_plain_comment_is_not_a_hint() {
    let p = plan("SELECT /* BROADCAST(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert_eq!(p.joins[0].source, DecisionSource::Default);
}

// ------------------------------------------------------- §2 strategies

#[test]
fn h10_join_hint_needs_table_list() {
    for hint in ["BROADCAST", "BROADCAST('t1' = 'x')", "SHUFFLE_HASH(1)"] {
        let e = err(&format!("SELECT /*+ {hint} */ * {EQ}"));
        assert!(
            matches!(e, PlanError::Hint(HintError::JoinHintArguments { .. })),
            "{hint}: {e:?}"
        );
        assert!(e.position().is_some(), "{hint}");
    }
}

#[test]
fn h11_unknown_table_in_hint_is_an_error_listing_scope() {
    let e = err(&format!("SELECT /*+ BROADCAST(t9) */ * {EQ}"));
    assert!(
        matches!(e, PlanError::Hint(HintError::UnknownTables { .. })),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("`t9` in `BROADCAST(t9)`") && msg.contains("`t1`, `t2`"),
        "{msg}"
    );
}

#[test]
fn h12_join_subtree_is_not_matched() {
    // join 1's left input is the subtree (t1 JOIN t2): BROADCAST(t1)
    // decides join 0 only.
    let p = hinted("SHUFFLE_HASH(t1)", THREE);
    assert_eq!(p.joins[0].strategy, ShuffleHash);
    assert_eq!(p.joins[0].build.as_deref(), Some("t1"));
    assert_eq!(p.joins[1].source, DecisionSource::Default);
    assert!(p.joins[1].ignored_hints.is_empty());
    assert_eq!(p.joins[1].left, None);
    assert_eq!(p.joins[1].right.as_deref(), Some("t3"));
    // a derived table is matched by its alias, under filters/projections
    let p = plan(
        "SELECT /*+ SHUFFLE_HASH(s) */ * FROM t2 JOIN \
         (SELECT id FROM t3 WHERE a > 1) s ON t2.id = s.id",
    );
    assert_eq!(chosen(&p), [(ShuffleHash, Some("s"))]);
}

#[test]
fn h12_hint_naming_no_join_input_is_reported_unused() {
    let p = plan(
        "SELECT /*+ BROADCAST(s) */ * FROM \
         (SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id) s",
    );
    assert_eq!(p.joins.len(), 1);
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    assert_eq!(p.unused_hints.len(), 1);
    assert_eq!(p.unused_hints[0].block, 0);
    assert_eq!(p.unused_hints[0].hint.reason, IgnoreReason::NoMatchingJoin);
    assert!(p.to_string().contains("BROADCAST(s) ignored"), "{p}");
}

#[test]
fn h13_broadcast_of_preserved_side_is_invalid() {
    let p = hinted("BROADCAST(t1)", "FROM t1 LEFT JOIN t2 ON t1.id = t2.id");
    assert_eq!(p.joins[0].join_type, JoinType::Left);
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    assert!(matches!(
        p.joins[0].ignored_hints[0].reason,
        IgnoreReason::PreservedSide {
            side: JoinSide::Left,
            ..
        }
    ));
    // the right side of a LEFT join may be broadcast, even a large one
    let p = hinted("BROADCAST(t2)", "FROM t1 LEFT JOIN t2 ON t1.id = t2.id");
    assert_eq!(chosen(&p), [(Broadcast, Some("t2"))]);
    let p = hinted("BROADCAST(t2)", "FROM t1 RIGHT JOIN t2 ON t1.id = t2.id");
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    // SHUFFLE_HASH and NEST_LOOP build the hinted side of any join type
    for (hint, s) in [
        ("SHUFFLE_HASH(t1)", ShuffleHash),
        ("NEST_LOOP(t1)", NestLoop),
    ] {
        for from in [FULL, "FROM t1 LEFT JOIN t2 ON t1.id = t2.id"] {
            assert_eq!(
                chosen(&hinted(hint, from)),
                [(s, Some("t1"))],
                "{hint} {from}"
            );
        }
    }
    assert_eq!(
        chosen(&hinted("SHUFFLE_MERGE(t2)", FULL)),
        [(ShuffleMerge, None)]
    );
}

#[test]
fn h14_explicit_semi_anti_joins_take_hints_subquery_ones_do_not() {
    for (kw, ty) in [
        ("LEFT SEMI", JoinType::LeftSemi),
        ("LEFT ANTI", JoinType::LeftAnti),
    ] {
        let from = format!("FROM t1 {kw} JOIN t2 ON t1.id = t2.id");
        let p = hinted("BROADCAST(t2)", &from);
        assert_eq!(p.joins[0].join_type, ty);
        assert_eq!(chosen(&p), [(Broadcast, Some("t2"))], "{kw}");
        let p = hinted("BROADCAST(t1)", &from);
        assert_eq!(p.joins[0].source, DecisionSource::Default, "{kw}");
    }
    // IN / NOT IN subqueries: semi / null-aware anti joins, no hints
    let p = plan("SELECT /*+ BROADCAST(t1) */ * FROM t1 WHERE t1.id IN (SELECT id FROM t2)");
    let j = &p.joins[0];
    assert_eq!(j.join_type, JoinType::LeftSemi);
    assert_eq!((j.left.as_deref(), j.right.as_deref()), (Some("t1"), None));
    assert_eq!(j.source, DecisionSource::Default);
    assert_eq!(j.ignored_hints[0].reason, IgnoreReason::SubqueryJoin);
    let p = plan("SELECT * FROM t1 WHERE t1.id NOT IN (SELECT id FROM t2)");
    assert_eq!(p.joins[0].join_type, JoinType::LeftAntiNullAware);
    assert_eq!(p.joins[0].keys.len(), 1);
}

#[test]
fn h15_default_choice_from_table_statistics() {
    // t1 (2.3 KiB) under the default threshold: broadcast it
    let p = plan(&format!("SELECT * {EQ}"));
    assert_eq!(chosen(&p), [(Broadcast, Some("t1"))]);
    assert!(
        p.joins[0].reason.starts_with("default: build side left"),
        "{}",
        p.joins[0].reason
    );
    // both over the threshold (64 MiB here; t2 is 200 MiB, t4 400 MiB):
    // SHUFFLE_HASH building the smaller
    let mib64 = set(&["broadcast_threshold=64MB"]);
    let p = plan_with("SELECT * FROM t4 JOIN t2 ON t4.id = t2.id", &mib64).unwrap();
    assert_eq!(chosen(&p), [(ShuffleHash, Some("t2"))]);
    // under the default 256 MiB threshold t2 is broadcast
    let p = plan("SELECT * FROM t4 JOIN t2 ON t4.id = t2.id");
    assert_eq!(chosen(&p), [(Broadcast, Some("t2"))]);
    // no equi condition (and CROSS JOIN): NEST_LOOP
    let p = plan("SELECT * FROM t1 JOIN t2 ON t1.id > t2.id");
    assert_eq!(p.joins[0].strategy, NestLoop);
    assert!(p.joins[0].keys.is_empty());
    assert!(p.joins[0].filter.is_some());
    assert_eq!(
        plan("SELECT * FROM t1 CROSS JOIN t2").joins[0].strategy,
        NestLoop
    );
    // both inputs sorted on the keys: SHUFFLE_MERGE
    let p = plan("SELECT * FROM s1 JOIN s2 ON s1.id = s2.id");
    assert_eq!(chosen(&p), [(ShuffleMerge, None)]);
    let p = plan("SELECT * FROM s1 JOIN s2 ON s1.a = s2.a");
    assert_eq!(p.joins[0].strategy, ShuffleHash);
    // the threshold is the Config's
    let p = plan_with(
        &format!("SELECT * {EQ}"),
        &set(&["broadcast_threshold=1KB"]),
    )
    .unwrap();
    assert_eq!(chosen(&p), [(ShuffleHash, Some("t1"))]);
    // no statistics: no broadcast by default, the right side built
    let p = plan("SELECT * FROM t1 JOIN u ON t1.id = u.id");
    assert_eq!(chosen(&p), [(Broadcast, Some("t1"))]);
    let p = plan_with("SELECT * FROM t2 JOIN u ON t2.id = u.id", &mib64).unwrap();
    assert_eq!(chosen(&p), [(ShuffleHash, Some("u"))]);
}

#[test]
fn h16_disabled_strategies_remove_hints_and_defaults() {
    let config = set(&["disabled_strategies=BROADCAST"]);
    let p = plan_with(&format!("SELECT /*+ BROADCAST(t1) */ * {EQ}"), &config).unwrap();
    assert_eq!(chosen(&p), [(ShuffleHash, Some("t1"))]);
    assert_eq!(
        p.joins[0].ignored_hints[0].reason,
        IgnoreReason::Disabled(Broadcast)
    );
    let e = plan_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id > t2.id",
        &set(&["disabled_strategies=NEST_LOOP"]),
    )
    .unwrap_err();
    assert!(
        matches!(e, PlanError::Hint(HintError::NoStrategyAvailable { .. })),
        "{e:?}"
    );
}

#[test]
fn h17_strict_mode_makes_inapplicable_hints_errors() {
    let strict = set(&["hint_mode=strict"]);
    let e = plan_with(&format!("SELECT /*+ BROADCAST(t1) */ * {FULL}"), &strict).unwrap_err();
    assert!(
        matches!(e, PlanError::Hint(HintError::StrictHint { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("FULL OUTER"), "{e}");
    // applicable hints are fine in strict mode
    let p = plan_with(&format!("SELECT /*+ BROADCAST(t1) */ * {EQ}"), &strict).unwrap();
    assert_eq!(chosen(&p), [(Broadcast, Some("t1"))]);
}

// -------------------------------------------------------- §3 conflicts

#[test]
fn h20_first_listed_table_wins() {
    assert_eq!(
        chosen(&hinted("BROADCAST(t2, t1)", EQ)),
        [(Broadcast, Some("t2"))]
    );
    assert_eq!(
        chosen(&hinted("BROADCAST(t1, t1)", EQ)),
        [(Broadcast, Some("t1"))]
    );
}

#[test]
fn h21_first_written_hint_of_a_strategy_wins() {
    let p = hinted("BROADCAST(t2), BROADCAST(t1)", EQ);
    assert_eq!(chosen(&p), [(Broadcast, Some("t2"))]);
    assert!(matches!(
        &p.joins[0].ignored_hints[0].reason,
        IgnoreReason::Overridden { by } if by == "BROADCAST(t2)"
    ));
    assert_eq!(
        chosen(&hinted("BROADCAST(t2, t1), BROADCAST(t1, t2)", EQ)),
        [(Broadcast, Some("t2"))]
    );
    assert_eq!(
        chosen(&hinted("NEST_LOOP(t2), NEST_LOOP(t1)", EQ)),
        [(NestLoop, Some("t2"))]
    );
}

#[test]
fn h22_first_valid_hint_across_strategies() {
    let hint = "BROADCAST(t1) SHUFFLE_HASH(t1)";
    assert_eq!(chosen(&hinted(hint, EQ)), [(Broadcast, Some("t1"))]);
    let p = hinted(hint, FULL);
    assert_eq!(chosen(&p), [(ShuffleHash, Some("t1"))]);
    assert_eq!(p.joins[0].join_type, JoinType::Full);
    assert_eq!(p.joins[0].reason, "hint SHUFFLE_HASH(t1) applied");
    assert_eq!(
        p.joins[0].ignored_hints[0].reason,
        IgnoreReason::FullOuterBroadcast
    );
}

#[test]
fn h23_no_valid_hint_falls_back_with_reasons() {
    let p = hinted(
        "BROADCAST(t1) SHUFFLE_HASH(t1)",
        "FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id",
    );
    assert_eq!(p.joins[0].strategy, NestLoop);
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    let why: Vec<String> = p.joins[0]
        .ignored_hints
        .iter()
        .map(|h| h.reason.to_string())
        .collect();
    assert_eq!(why.len(), 2);
    assert!(
        why.iter().all(|w| w.contains("equi-join condition")),
        "{why:?}"
    );
}

#[test]
fn h24_one_hint_serves_several_joins() {
    let p = hinted("BROADCAST(t1, t3)", THREE);
    assert_eq!(
        chosen(&p),
        [(Broadcast, Some("t1")), (Broadcast, Some("t3"))]
    );
    assert_eq!(p.joins[0].build_side, Some(JoinSide::Left));
    assert_eq!(p.joins[1].build_side, Some(JoinSide::Right));
    assert_eq!(
        chosen(&hinted("BROADCAST(t1, t2, t3)", THREE)),
        chosen(&hinted("BROADCAST(t1, t2), BROADCAST(t3)", THREE))
    );
}

// ------------------------------------------------------------ §4 scope

#[test]
fn h30_outer_hint_does_not_reach_a_from_subquery() {
    let inner = "(SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id) s";
    // the outer block cannot name t1: it is not one of its inputs
    let e = err(&format!(
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM {inner} JOIN t3 ON s.id = t3.id"
    ));
    assert!(
        matches!(e, PlanError::Hint(HintError::UnknownTables { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("`s`, `t3`"), "{e}");
    // each block's own hint applies to its own joins only
    let p = plan(
        "SELECT /*+ SHUFFLE_HASH(s) */ * FROM \
         (SELECT /*+ NEST_LOOP(t2) */ t1.id FROM t1 JOIN t2 ON t1.id = t2.id) s \
         JOIN t3 ON s.id = t3.id",
    );
    assert_eq!(
        chosen(&p),
        [(NestLoop, Some("t2")), (ShuffleHash, Some("s"))]
    );
    assert_eq!((p.joins[0].block, p.joins[1].block), (1, 0));
}

#[test]
fn h30_outer_hint_does_not_reach_a_where_subquery() {
    // the IN subquery's own join (t2, t3) is in its own block
    let sql = "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t4 ON t1.id = t4.id \
               WHERE t1.a IN (SELECT t2.a FROM t2 JOIN t3 ON t2.id = t3.id)";
    let p = plan(sql);
    assert_eq!(p.joins.len(), 3, "{p}");
    // subquery first, then the outer block's joins bottom-up
    assert_eq!(
        (p.joins[0].left.as_deref(), p.joins[0].right.as_deref()),
        (Some("t2"), Some("t3"))
    );
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    assert_eq!(chosen(&p)[0], (Broadcast, Some("t3")));
    assert_eq!(chosen(&p)[1], (ShuffleHash, Some("t1")));
    assert_eq!(p.joins[2].join_type, JoinType::LeftSemi);
    // naming t2 from the outer block is an error; the subquery's own hint works
    let e = err(&sql.replace("SHUFFLE_HASH(t1)", "SHUFFLE_HASH(t2)"));
    assert!(
        matches!(e, PlanError::Hint(HintError::UnknownTables { .. })),
        "{e:?}"
    );
    let p = plan(&sql.replace("SELECT t2.a", "SELECT /*+ SHUFFLE_HASH(t2) */ t2.a"));
    assert_eq!(chosen(&p)[0], (ShuffleHash, Some("t2")));
    // EXISTS is a semi join of the outer block (no hints, H14): its
    // subquery's joins are still its own block's
    let p = plan(
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t4 ON t1.id = t4.id \
         WHERE EXISTS (SELECT /*+ NEST_LOOP(t3) */ 1 FROM t2 JOIN t3 ON t2.id = t3.id)",
    );
    assert_eq!(
        chosen(&p),
        [
            (NestLoop, Some("t3")),
            (ShuffleHash, Some("t1")),
            (NestLoop, None)
        ],
        "{p}"
    );
    assert_eq!(p.joins[2].join_type, JoinType::LeftSemi);
}

#[test]
fn h30_each_union_branch_has_its_own_hints() {
    let p = plan(
        "SELECT /*+ SHUFFLE_HASH(t1) */ t1.id FROM t1 JOIN t2 ON t1.id = t2.id \
         UNION ALL \
         SELECT /*+ NEST_LOOP(t3) */ t1.id FROM t1 JOIN t3 ON t1.id = t3.id",
    );
    assert_eq!(
        chosen(&p),
        [(ShuffleHash, Some("t1")), (NestLoop, Some("t3"))]
    );
    // a hint of the first branch does not reach the second
    let e = err(
        "SELECT /*+ NEST_LOOP(t3) */ t1.id FROM t1 JOIN t2 ON t1.id = t2.id \
         UNION ALL SELECT t1.id FROM t1 JOIN t3 ON t1.id = t3.id",
    );
    assert!(
        matches!(e, PlanError::Hint(HintError::UnknownTables { .. })),
        "{e:?}"
    );
}

#[test]
fn h32_alias_must_be_used() {
    let from = "FROM orders o JOIN customers c ON o.cust_id = c.id";
    let p = hinted("SHUFFLE_HASH(c)", from);
    assert_eq!(chosen(&p), [(ShuffleHash, Some("c"))]);
    assert_eq!(
        (p.joins[0].left.as_deref(), p.joins[0].right.as_deref()),
        (Some("o"), Some("c"))
    );
    assert_eq!(p.joins[0].keys, ["o.cust_id = c.id"]);
    // sizes come from the aliased tables: customers (39 KiB) is broadcast
    let p = plan(&format!("SELECT * {from}"));
    assert_eq!(chosen(&p), [(Broadcast, Some("c"))]);
    let e = err(&format!("SELECT /*+ SHUFFLE_HASH(customers) */ * {from}"));
    assert!(
        matches!(e, PlanError::Hint(HintError::AliasRequired { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("`SHUFFLE_HASH(c)`"), "{e}");
}

// H31 (views): the SQL front end does not register views yet (CREATE VIEW
// is rejected as an unsupported statement), so there is nothing to test.

// ------------------------------------------------- estimates (H15)

/// A filtered derived table is estimated at a tenth of its table for an
/// equality with a constant: t2 (200 MiB) is over a 64 MiB threshold,
/// `WHERE v = 1` on it (20 MiB) is not, so the default broadcasts it; a
/// range condition keeps a quarter (50 MiB), and two conditions keep the
/// product (`v = 1 AND v > 0`: 5 MiB).
#[test]
fn h15_estimate_through_a_filter_decides_broadcast() {
    let config = set(&["broadcast_threshold=64MB"]);
    let plain = plan_with("SELECT * FROM t4 JOIN t2 ON t4.id = t2.id", &config).unwrap();
    assert_eq!(chosen(&plain), [(Strategy::ShuffleHash, Some("t2"))]);
    let filtered = plan_with(
        "SELECT * FROM t4 JOIN (SELECT * FROM t2 WHERE v = 1) f ON t4.id = f.id",
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&filtered), [(Strategy::Broadcast, Some("f"))]);
    assert!(
        filtered.joins[0].reason.contains("20.0 MiB"),
        "{}",
        filtered.joins[0].reason
    );
    for (filter, size) in [("v > 1", "50.0 MiB"), ("v = 1 AND v > 0", "5.0 MiB")] {
        let p = plan_with(
            &format!("SELECT * FROM t4 JOIN (SELECT * FROM t2 WHERE {filter}) f ON t4.id = f.id"),
            &config,
        )
        .unwrap();
        assert!(p.joins[0].reason.contains(size), "{}", p.joins[0].reason);
    }
}

/// A join subtree is estimated (rows of its larger input, both inputs'
/// row widths): (t1 JOIN t3) is small, so joining it to t4 broadcasts the
/// subtree side (no name: `build` is null).
#[test]
fn h15_estimate_of_a_join_subtree() {
    let p = plan("SELECT * FROM t4 JOIN (t1 JOIN t3 ON t1.id = t3.id) ON t4.id = t1.id");
    assert_eq!(p.joins.len(), 2);
    let outer = p
        .joins
        .iter()
        .find(|j| j.left.as_deref() == Some("t4"))
        .unwrap();
    assert_eq!(outer.strategy, Strategy::Broadcast, "{}", outer.reason);
    assert_eq!(outer.build_side, Some(tenon_kernels::JoinSide::Right));
    assert_eq!(outer.build, None);
}

/// A table's bytes count the columns the query reads, and a column that a
/// projection only passes on is not read: a correlated scalar subquery is
/// decorrelated into a join whose outer side passes every column of its
/// table on, but only `id`, `k` and `v` of `wide` are read (24 MiB of its
/// 1 GiB), so H15's rule 3 builds it and filters the subquery's aggregate
/// (at 1 GiB it would be over the broadcast threshold, and not built).
#[test]
fn h15_estimate_counts_only_the_columns_read() {
    let mut c = catalog();
    let mut st = stats(1_000_000, 1024 * MIB);
    st.column_bytes = vec![8 * MIB, 8 * MIB, 8 * MIB, 1000 * MIB];
    c.register_table_with_stats(
        "wide",
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("k", DataType::Int64, true),
            Field::new("v", DataType::Int64, true),
            Field::new("comment", DataType::Utf8, true),
        ])),
        st,
    );
    let sql = "SELECT id FROM wide WHERE v > (SELECT sum(t2.v) FROM t2 WHERE t2.a = wide.k)";
    let p = plan_joins(sql, &c, &Config::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.joins.len(), 1, "{p}");
    let j = &p.joins[0];
    assert_eq!(j.build.as_deref(), Some("wide"), "{}", j.reason);
    assert!(
        j.reason.contains("grouped by the join keys") && j.reason.contains("24.0 MiB"),
        "{}",
        j.reason
    );
}

#[test]
fn table_hint_errors_read_as_one_sentence() {
    for (sql, says) in [
        (
            "SELECT * FROM t1 /*+ OPTIONS(a) */ JOIN t2 ON t1.id = t2.id",
            "OPTIONS takes 'key' = 'value' pairs, e.g. `t /*+",
        ),
        (
            "WITH w AS (SELECT * FROM t1) SELECT * FROM w /*+ OPTIONS('k'='v') */",
            "(a view or a WITH query?): OPTIONS apply to tables only; write them inside the \
             view or WITH query, after its table",
        ),
    ] {
        let e = err(sql).to_string();
        assert!(e.contains(says), "{sql}: {e}");
        assert!(!e.contains("  "), "{sql}: a run of spaces in {e:?}");
    }
}
