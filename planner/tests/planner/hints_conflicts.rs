//! docs/hints.md §3 (H20–H25): conflicts between join hints, one hint serving
//! several joins, key-value hints; and the resolver's side of H31–H32
//! (views and aliases as hint names).

use crate::hints_support::*;
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::hints::*;

use JoinSide::{Left, Right};
use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

// ---------------------------------------------------------------- H20

#[test]
fn h20_first_listed_table_wins() {
    let sql = "SELECT /*+ BROADCAST(t2, t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
    assert_eq!(ok(sql, two(JoinType::Inner)), [(Broadcast, Some(Right))]);
    let sql = "SELECT /*+ BROADCAST(t1, t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
    assert_eq!(ok(sql, two(JoinType::Inner)), [(Broadcast, Some(Left))]);
}

#[test]
fn h20_first_listed_table_decides_even_when_that_side_is_invalid() {
    // LEFT join: t1 (first) is the preserved side, so the hint is invalid;
    // t2 listed second does not rescue it.
    let r = resolve(
        "SELECT /*+ BROADCAST(t1, t2) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id",
        two(JoinType::Left),
    )
    .unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
    assert!(matches!(
        r.joins[0].ignored[0].reason,
        IgnoreReason::PreservedSide { side: Left, .. }
    ));
}

// ---------------------------------------------------------------- H21

#[test]
fn h21_first_written_hint_of_a_strategy_wins() {
    let r = resolve(
        "SELECT /*+ BROADCAST(t2), BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    assert_eq!(r.joins[0].source, DecisionSource::Hint(0));
    assert_eq!(
        r.joins[0].ignored[0].to_string(),
        "hint BROADCAST(t1) ignored: the earlier hint BROADCAST(t2) applies"
    );
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t2, t1), BROADCAST(t1, t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            two(JoinType::Inner)
        ),
        [(Broadcast, Some(Right))]
    );
}

#[test]
fn h21_nest_loop_follows_the_rule_not_flip_229s_comment() {
    // FLIP-229's comment says t1; the rule (first written wins) says t2.
    assert_eq!(
        ok(
            "SELECT /*+ NEST_LOOP(t2), NEST_LOOP(t1) */ * FROM t1 JOIN t2 ON t1.a = t2.a",
            two(JoinType::Inner)
        ),
        [(NestLoop, Some(Right))]
    );
}

// ---------------------------------------------------------------- H22

#[test]
fn h22_different_strategies_first_valid_in_written_order() {
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
            two(JoinType::Inner)
        ),
        [(Broadcast, Some(Left))]
    );
    let r = resolve("SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id", two(JoinType::Full)).unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    assert_eq!(r.joins[0].source, DecisionSource::Hint(1));
    assert_eq!(r.joins[0].reason, "hint SHUFFLE_HASH(t1) applied");
    assert_eq!(
        r.joins[0].ignored[0].reason,
        IgnoreReason::FullOuterBroadcast
    );
}

// ---------------------------------------------------------------- H23

#[test]
fn h23_no_valid_hint_falls_back_to_the_default_and_says_why() {
    let mut joins = two(JoinType::Inner);
    joins[0] = joins[0].clone().non_equi();
    let r = resolve(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id > t2.id",
        joins,
    )
    .unwrap();
    let d = &r.joins[0];
    assert_eq!(d.strategy, NestLoop);
    assert_eq!(d.source, DecisionSource::Default);
    let ignored: Vec<String> = d.ignored.iter().map(ToString::to_string).collect();
    assert_eq!(
        ignored,
        [
            "hint BROADCAST(t1) ignored: BROADCAST needs an equi-join condition (`a.k = b.k`) and this join has none",
            "hint SHUFFLE_HASH(t1) ignored: SHUFFLE_HASH needs an equi-join condition (`a.k = b.k`) and this join has none",
        ]
    );
}

// ---------------------------------------------------------------- H24

#[test]
fn h24_one_hint_serves_several_joins() {
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id",
            three()
        ),
        [(Broadcast, Some(Left)), (Broadcast, Some(Right))]
    );
}

#[test]
fn h24_three_tables_in_one_hint_equal_two_hints() {
    let a = resolve("SELECT /*+ BROADCAST(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id", three()).unwrap();
    let b = resolve("SELECT /*+ BROADCAST(t1, t2), BROADCAST(t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id", three()).unwrap();
    assert_eq!(chosen(&a), chosen(&b));
    assert_eq!(
        chosen(&a),
        [(Broadcast, Some(Left)), (Broadcast, Some(Right))]
    );
}

// ---------------------------------------------------------------- H25

#[test]
fn h25_key_value_last_write_within_a_hint_first_hint_across_hints() {
    let sql = "SELECT /*+ LOOKUP('table'='D', 'max-attempts'='3', 'max-attempts'='4') */ * FROM t1";
    let hints = find_hint_comments(sql).unwrap()[0].parse().unwrap();
    assert_eq!(
        hint_key_values(&hints[0]),
        [
            ("table".to_string(), "D".to_string()),
            ("max-attempts".to_string(), "4".to_string())
        ]
    );
    let sql =
        "SELECT /*+ STATE_TTL('A'='1d', 'B'='2d'), STATE_TTL('C'='12h', 'A'='6h') */ * FROM t1";
    let hints = find_hint_comments(sql).unwrap()[0].parse().unwrap();
    let merged = key_values(&hints, HintName::StateTtl);
    assert_eq!(
        merged,
        [("A", "1d"), ("B", "2d"), ("C", "12h")].map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let hints = parse_hints("STATE_TTL('A' = '1d', 'A' = '2d')", Position::new(1, 1)).unwrap();
    assert_eq!(
        key_values(&hints, HintName::StateTtl),
        [("A".to_string(), "2d".to_string())]
    );
}

#[test]
fn h25_non_join_hints_do_not_affect_the_join_choice() {
    let r = resolve(
        "SELECT /*+ MULTI_JOIN(t1, t2), STATE_TTL('t1'='1d'), SHUFFLE_MERGE(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleMerge, None)]);
    assert_eq!(r.joins[0].source, DecisionSource::Hint(2));
}

// ------------------------------------------------ H31, H32 (resolver side)

#[test]
fn h31_a_view_is_named_like_a_table() {
    // SELECT /*+ BROADCAST(t1) */ * FROM view1 JOIN t1 ON view1.a = t1.a
    let joins = vec![JoinSite::new(
        0,
        JoinType::Inner,
        SiteInput::named("view1"),
        SiteInput::named("t1"),
    )];
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t1) */ * FROM view1 JOIN t1 ON view1.a = t1.a",
            joins.clone()
        ),
        [(Broadcast, Some(Right))]
    );
    assert_eq!(
        ok(
            "SELECT /*+ SHUFFLE_HASH(view1) */ * FROM view1 JOIN t1 ON view1.a = t1.a",
            joins
        ),
        [(ShuffleHash, Some(Left))]
    );
}

#[test]
fn h32_an_aliased_table_is_named_by_its_alias() {
    let block = BlockJoins {
        inputs: vec![
            BlockInput::aliased("orders", "o"),
            BlockInput::aliased("lineitem", "l"),
        ],
        joins: vec![JoinSite::new(
            0,
            JoinType::Left,
            SiteInput::named("o"),
            SiteInput::named("l"),
        )],
    };
    let pos = Position::new(1, 11);
    let r = resolve_block(
        &block,
        &parse_hints("BROADCAST(l)", pos).unwrap(),
        &ResolveConfig::default(),
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    let e = resolve_block(
        &block,
        &parse_hints("BROADCAST(lineitem)", pos).unwrap(),
        &ResolveConfig::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "join hint `BROADCAST(lineitem)` names table `lineitem`, which has the alias `l` in this \
         query block: name it by its alias, e.g. `BROADCAST(l)`"
    );
}
