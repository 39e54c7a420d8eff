//! docs/hints.md §2 (H10–H14): join hint arguments, names in scope, which
//! join inputs a hint matches, and when a hint is valid for a join. Each
//! test is named after the rule it pins down.

use crate::hints_support::*;
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::hints::*;

use JoinSide::{Left, Right};
use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

// ---------------------------------------------------------------- H10

#[test]
fn h10_join_hint_without_arguments_is_an_error() {
    let e = resolve(
        "SELECT /*+ BROADCAST */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert!(matches!(e, HintError::JoinHintArguments { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid join hint `BROADCAST` at line 1, column 12: a join hint needs one or more table \
         names, e.g. `BROADCAST(t1)`"
    );
}

#[test]
fn h10_join_hint_in_key_value_form_is_an_error() {
    let e = resolve(
        "SELECT /*+ SHUFFLE_HASH('t1'='true') */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert!(e.to_string().contains("list form"), "{e}");
    assert_eq!(e.position().map(|p| p.column), Some(12));
}

#[test]
fn h10_join_hint_with_a_number_for_a_table_is_an_error() {
    let e = resolve(
        "SELECT /*+ NEST_LOOP(t1, 2) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert!(e.to_string().contains("`2` is not a table name"), "{e}");
    assert_eq!(e.position().map(|p| p.column), Some(26));
}

#[test]
fn h10_table_names_may_be_string_literals() {
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST('t2') */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            two(JoinType::Inner)
        ),
        [(Broadcast, Some(Right))]
    );
}

// ---------------------------------------------------------------- H11

#[test]
fn h11_unknown_table_is_an_error_naming_hint_and_listing_scope() {
    let e = resolve(
        "SELECT /*+ BROADCAST(t9), SHUFFLE_HASH(t1, t8, t7) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the options of following hints cannot match the name of input tables or views: `t9` in \
         `BROADCAST(t9)`; `t8`, `t7` in `SHUFFLE_HASH(t1, t8, t7)`; the tables, views and aliases \
         in this query block are: `t1`, `t2`, `t3`"
    );
}

#[test]
fn h11_names_are_compared_after_identifier_folding() {
    // Unquoted T1 folds to t1; quoted "T1" does not.
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(T1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            two(JoinType::Inner)
        ),
        [(Broadcast, Some(Left))]
    );
    let e = resolve(
        "SELECT /*+ BROADCAST(\"T1\") */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert!(matches!(e, HintError::UnknownTables { .. }), "{e}");
}

#[test]
fn h11_name_matching_both_inputs_of_a_join_is_ambiguous() {
    let joins = vec![JoinSite::new(
        4,
        JoinType::Inner,
        SiteInput::named("t1"),
        SiteInput::named("t1"),
    )];
    let e = resolve(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t1 ON t1.a = t1.b",
        joins,
    )
    .unwrap_err();
    assert_eq!(
        e,
        HintError::AmbiguousTable {
            hint: "BROADCAST(t1)".into(),
            table: "t1".into(),
            join: 4
        }
    );
    assert!(
        e.to_string().contains("give the inputs distinct aliases"),
        "{e}"
    );
}

#[test]
fn h11_table_hidden_inside_a_view_is_an_unknown_table() {
    // `v` is a view over t1 JOIN t2; only `v` and `t3` are in the outer
    // block's scope.
    let hints = parse_hints("BROADCAST(t1)", Position::new(1, 11)).unwrap();
    let block = BlockJoins {
        inputs: vec![BlockInput::table("v"), BlockInput::table("t3")],
        joins: vec![JoinSite::new(
            0,
            JoinType::Inner,
            SiteInput::named("v"),
            SiteInput::named("t3"),
        )],
    };
    let e = resolve_block(&block, &hints, &ResolveConfig::default()).unwrap_err();
    assert!(e.to_string().contains("`t1` in `BROADCAST(t1)`"), "{e}");
    assert!(e.to_string().contains("are: `v`, `t3`"), "{e}");
}

// ---------------------------------------------------------------- H12

#[test]
fn h12_a_join_subtree_does_not_match_a_table_inside_it() {
    // t1 JOIN t2 JOIN t3 with BROADCAST(t2): the second join's left input
    // contains t2 but is a join, so the hint decides only the first join.
    let r = resolve(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id",
        three(),
    )
    .unwrap();
    assert_eq!(r.joins[0].strategy, Broadcast);
    assert_eq!(r.joins[0].build_side, Some(Right));
    assert_eq!(r.joins[1].source, DecisionSource::Default);
    assert!(r.joins[1].ignored.is_empty());
}

#[test]
fn h12_a_filtered_or_projected_table_still_matches() {
    // The planner names an input that is a table under a filter or
    // projection by the table's name.
    let joins = vec![JoinSite::new(
        0,
        JoinType::Inner,
        SiteInput::named("t1").size(10, 100),
        SiteInput::named("t2"),
    )];
    assert_eq!(
        ok(
            "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id WHERE t1.x > 0",
            joins
        ),
        [(ShuffleHash, Some(Left))]
    );
}

#[test]
fn h12_a_hint_matching_no_join_input_is_recorded_as_unused() {
    let joins = vec![
        JoinSite::new(
            0,
            JoinType::Inner,
            SiteInput::named("t1"),
            SiteInput::named("t2"),
        ),
        JoinSite::new(
            1,
            JoinType::Inner,
            SiteInput::subtree(),
            SiteInput::named("t3"),
        ),
    ];
    // Single-table query: t1 is in scope, no join.
    let r = resolve("SELECT /*+ BROADCAST(t1) */ * FROM t1", vec![]).unwrap();
    assert_eq!(r.unused.len(), 1);
    assert_eq!(r.unused[0].reason, IgnoreReason::NoMatchingJoin);
    // Bushy plan where t2 is only inside a subtree of every join it is in.
    let mut bushy = joins;
    bushy[0].right = SiteInput::subtree();
    let r = resolve("SELECT /*+ NEST_LOOP(t2) */ * FROM t1", bushy).unwrap();
    assert_eq!(r.unused[0].hint, "NEST_LOOP(t2)");
}

// ---------------------------------------------------------------- H13

#[test]
fn h13_broadcast_of_the_preserved_side_of_an_outer_join_is_invalid() {
    let sql_left = "SELECT /*+ BROADCAST(t1) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id";
    let r = resolve(sql_left, two(JoinType::Left)).unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
    assert_eq!(
        r.joins[0].ignored[0].reason,
        IgnoreReason::PreservedSide {
            side: Left,
            join_type: JoinType::Left
        }
    );
    let r = resolve(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 RIGHT JOIN t2 ON t1.id = t2.id",
        two(JoinType::Right),
    )
    .unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
    assert!(
        r.joins[0].ignored[0].to_string().starts_with(
            "hint BROADCAST(t2) ignored: BROADCAST cannot broadcast the right input of a RIGHT join"
        ),
        "{}",
        r.joins[0].ignored[0]
    );
}

#[test]
fn h13_broadcast_of_the_other_side_of_an_outer_join_is_valid() {
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t2) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id",
            two(JoinType::Left)
        ),
        [(Broadcast, Some(Right))]
    );
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t1) */ * FROM t1 RIGHT JOIN t2 ON t1.id = t2.id",
            two(JoinType::Right)
        ),
        [(Broadcast, Some(Left))]
    );
}

#[test]
fn h13_broadcast_of_a_full_outer_join_is_invalid() {
    for hinted in ["t1", "t2"] {
        let sql = format!(
            "SELECT /*+ BROADCAST({hinted}) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id"
        );
        let r = resolve(&sql, two(JoinType::Full)).unwrap();
        assert_ne!(r.joins[0].strategy, Broadcast);
        assert_eq!(
            r.joins[0].ignored[0].reason,
            IgnoreReason::FullOuterBroadcast
        );
    }
}

#[test]
fn h13_shuffle_hash_and_nest_loop_accept_every_join_type_with_the_hinted_build_side() {
    for jt in JoinType::ALL {
        for (hint, strategy) in [("SHUFFLE_HASH", ShuffleHash), ("NEST_LOOP", NestLoop)] {
            for (t, side) in [("t1", Left), ("t2", Right)] {
                let sql = format!("SELECT /*+ {hint}({t}) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
                assert_eq!(
                    ok(&sql, two(jt)),
                    [(strategy, Some(side))],
                    "{jt} {hint}({t})"
                );
            }
        }
    }
}

#[test]
fn h13_shuffle_merge_accepts_every_join_type() {
    for jt in JoinType::ALL {
        assert_eq!(
            ok(
                "SELECT /*+ SHUFFLE_MERGE(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
                two(jt)
            ),
            [(ShuffleMerge, None)],
            "{jt}"
        );
    }
}

#[test]
fn h13_only_nest_loop_runs_a_join_without_an_equi_condition() {
    for hint in ["BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE"] {
        let sql = format!("SELECT /*+ {hint}(t1) */ * FROM t1 JOIN t2 ON t1.id > t2.id");
        let mut joins = two(JoinType::Inner);
        joins[0] = joins[0].clone().non_equi();
        let r = resolve(&sql, joins).unwrap();
        assert_eq!(r.joins[0].strategy, NestLoop, "{hint}");
        assert_eq!(r.joins[0].source, DecisionSource::Default);
        assert!(matches!(
            r.joins[0].ignored[0].reason,
            IgnoreReason::NoEquiCondition(_)
        ));
    }
    let mut joins = two(JoinType::Inner);
    joins[0] = joins[0].clone().non_equi();
    assert_eq!(
        ok(
            "SELECT /*+ NEST_LOOP(t1) */ * FROM t1 JOIN t2 ON t1.id > t2.id",
            joins
        ),
        [(NestLoop, Some(Left))]
    );
}

// ---------------------------------------------------------------- H14

#[test]
fn h14_explicit_semi_and_anti_joins_take_hints_as_a_left_join_does() {
    for jt in [JoinType::LeftSemi, JoinType::LeftAnti] {
        assert_eq!(
            ok(
                "SELECT /*+ BROADCAST(t2) */ * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id",
                two(jt)
            ),
            [(Broadcast, Some(Right))],
            "{jt}"
        );
        let r = resolve(
            "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            two(jt),
        )
        .unwrap();
        assert_eq!(r.joins[0].source, DecisionSource::Default, "{jt}");
        assert!(matches!(
            r.joins[0].ignored[0].reason,
            IgnoreReason::PreservedSide { .. }
        ));
        assert_eq!(
            ok(
                "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
                two(jt)
            ),
            [(ShuffleHash, Some(Left))]
        );
    }
}

#[test]
fn h14_semi_joins_planned_from_subqueries_take_no_join_hints() {
    let joins = vec![
        JoinSite::new(
            0,
            JoinType::LeftSemi,
            SiteInput::named("t1"),
            SiteInput::named("t2"),
        )
        .from_subquery(),
    ];
    let r = resolve(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 WHERE id IN (SELECT id FROM t2)",
        joins,
    )
    .unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
    assert_eq!(r.joins[0].ignored[0].reason, IgnoreReason::SubqueryJoin);
}
