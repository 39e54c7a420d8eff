//! The join hint examples of Flink's SQL hints documentation ("Join Hints"
//! and their conflict cases) and of FLIP-229 (Join Hint for Flink SQL Batch
//! Job: strategies and conflicts), with the strategy and build side each
//! one expects (docs/hints.md §2, §3).

use crate::hints_support::*;
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::hints::*;

use JoinSide::{Left, Right};
use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

// ------------------------------------------- seed documents' examples

/// Every join hint example of `flink-sql-hints.ko.txt` (Join Hints and
/// their conflict cases) and `flip-229-join-hints.txt` (strategies and
/// conflicts), with the strategy and build side expected.
#[test]
fn seed_examples_single_join() {
    let eq = "FROM t1 JOIN t2 ON t1.id = t2.id";
    let cases: &[(&str, Strategy, Option<JoinSide>)] = &[
        ("BROADCAST(t1)", Broadcast, Some(Left)),
        ("SHUFFLE_HASH(t1)", ShuffleHash, Some(Left)),
        ("SHUFFLE_MERGE(t1)", ShuffleMerge, None),
        ("NEST_LOOP(t1)", NestLoop, Some(Left)),
        ("BROADCAST(t2), BROADCAST(t1)", Broadcast, Some(Right)),
        ("BROADCAST(t1,t1)", Broadcast, Some(Left)),
        ("BROADCAST(t2,t1)", Broadcast, Some(Right)),
        (
            "BROADCAST(t2, t1), BROADCAST(t1, t2)",
            Broadcast,
            Some(Right),
        ),
        ("SHUFFLE_MERGE(t1,t1)", ShuffleMerge, None),
        ("SHUFFLE_MERGE(t2), SHUFFLE_MERGE(t1)", ShuffleMerge, None),
        ("SHUFFLE_MERGE(t2,t1)", ShuffleMerge, None),
        (
            "SHUFFLE_MERGE(t2,t1), SHUFFLE_MERGE(t1,t2)",
            ShuffleMerge,
            None,
        ),
        ("NEST_LOOP(t2), NEST_LOOP(t1)", NestLoop, Some(Right)),
        ("NEST_LOOP(t1,t1)", NestLoop, Some(Left)),
        ("NEST_LOOP(t2,t1)", NestLoop, Some(Right)),
        ("NEST_LOOP(t2,t1), NEST_LOOP(t1,t2)", NestLoop, Some(Right)),
        ("BROADCAST(t1) SHUFFLE_HASH(t1)", Broadcast, Some(Left)),
    ];
    for (hint, strategy, side) in cases {
        let sql = format!("SELECT /*+ {hint} */ * {eq}");
        assert_eq!(
            ok(&sql, two(JoinType::Inner)),
            [(*strategy, *side)],
            "{sql}"
        );
    }
}

#[test]
fn seed_examples_non_equi_and_full_outer_fall_back() {
    // "BROADCAST don't support non-equivalent join conditions ... only
    // nested loop join can be applied" (and SHUFFLE_HASH, SHUFFLE_MERGE).
    for hint in [
        "BROADCAST(t1)",
        "SHUFFLE_HASH(t1)",
        "SHUFFLE_MERGE(t1)",
        "BROADCAST(t1) SHUFFLE_HASH(t1)",
    ] {
        let sql = format!("SELECT /*+ {hint} */ * FROM t1 join t2 ON t1.id > t2.id");
        let mut joins = two(JoinType::Inner);
        joins[0] = joins[0].clone().non_equi();
        let r = resolve(&sql, joins).unwrap();
        assert_eq!(r.joins[0].strategy, NestLoop, "{sql}");
        assert_eq!(r.joins[0].source, DecisionSource::Default, "{sql}");
    }
    // "BROADCAST don't support full outer join ... the planner will choose".
    let r = resolve(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id",
        two(JoinType::Full),
    )
    .unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Right))]);
    // "BROADCAST(t1) SHUFFLE_HASH(t1) ... FULL OUTER JOIN": SHUFFLE_HASH, t1 built.
    assert_eq!(
        ok(
            "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id",
            two(JoinType::Full)
        ),
        [(ShuffleHash, Some(Left))]
    );
    // "... FULL OUTER JOIN t2 ON t1.id > t2.id": only nested loop.
    let mut joins = two(JoinType::Full);
    joins[0] = joins[0].clone().non_equi();
    let r = resolve("SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id", joins).unwrap();
    assert_eq!(r.joins[0].strategy, NestLoop);
    assert_eq!(r.joins[0].ignored.len(), 2);
}

#[test]
fn seed_examples_three_way_joins() {
    let from = "FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id";
    type Expected = [(Strategy, Option<JoinSide>); 2];
    let cases: &[(&str, Expected)] = &[
        (
            "BROADCAST(t1, t3)",
            [(Broadcast, Some(Left)), (Broadcast, Some(Right))],
        ),
        (
            "SHUFFLE_HASH(t1, t3)",
            [(ShuffleHash, Some(Left)), (ShuffleHash, Some(Right))],
        ),
        (
            "SHUFFLE_MERGE(t1, t3)",
            [(ShuffleMerge, None), (ShuffleMerge, None)],
        ),
        (
            "NEST_LOOP(t1, t3)",
            [(NestLoop, Some(Left)), (NestLoop, Some(Right))],
        ),
        (
            "BROADCAST(t1,t2,t3)",
            [(Broadcast, Some(Left)), (Broadcast, Some(Right))],
        ),
        (
            "SHUFFLE_HASH(t1,t2,t3)",
            [(ShuffleHash, Some(Left)), (ShuffleHash, Some(Right))],
        ),
        (
            "SHUFFLE_MERGE(t1,t2,t3)",
            [(ShuffleMerge, None), (ShuffleMerge, None)],
        ),
        (
            "NEST_LOOP(t1,t2,t3)",
            [(NestLoop, Some(Left)), (NestLoop, Some(Right))],
        ),
    ];
    for (hint, expected) in cases {
        let sql = format!("SELECT /*+ {hint} */ * {from}");
        assert_eq!(ok(&sql, three()), expected, "{sql}");
    }
}

#[test]
fn seed_example_two_hint_blocks_throw_when_parsed() {
    // FLIP-229: "throw an exception when parse this SQL".
    let e = resolve(
        "select /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t3 on t1.a = t2.a",
        two(JoinType::Inner),
    )
    .unwrap_err();
    assert!(matches!(e, HintError::MultipleHintBlocks { .. }));
}
