//! docs/hints.md H15–H17: the default choice without a valid hint, disabled
//! strategies and strict hint mode.

use crate::hints_support::*;
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::hints::*;

use JoinSide::{Left, Right};
use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

// ---------------------------------------------------------------- H15

#[test]
fn h15_default_without_equi_condition_is_nest_loop_building_the_smaller_side() {
    let mut joins = sized(JoinType::Inner, 100, 10_000);
    joins[0] = joins[0].clone().non_equi();
    let r = resolve("SELECT * FROM t1 JOIN t2 ON t1.a < t2.b", joins).unwrap();
    assert_eq!(chosen(&r), [(NestLoop, Some(Left))]);
    assert_eq!(
        r.joins[0].reason,
        "default: no equi-join condition, so NEST_LOOP, building the left input (smaller: 100 B vs 9.8 KiB)"
    );
}

#[test]
fn h15_default_broadcasts_a_side_at_or_below_the_threshold() {
    let config = ResolveConfig {
        broadcast_threshold: 10 * MIB,
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 500 * MIB, 12 * 1024),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    assert_eq!(
        r.joins[0].reason,
        "default: build side right 12.0 KiB <= broadcast threshold 10.0 MiB"
    );
    // Exactly at the threshold still broadcasts.
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 10 * MIB, 500 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Left))]);
}

#[test]
fn h15_default_broadcasts_only_a_side_that_may_be_broadcast() {
    let config = ResolveConfig {
        broadcast_threshold: 10 * MIB,
        ..ResolveConfig::default()
    };
    // LEFT join: the small left side is preserved; the right side is big.
    let r = resolve_with(
        "SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Left, MIB, 500 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    let r = resolve_with(
        "SELECT * FROM t1 FULL JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Full, MIB, 2 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    assert!(
        r.joins[0]
            .reason
            .contains("BROADCAST cannot run a FULL OUTER join"),
        "{}",
        r.joins[0].reason
    );
}

#[test]
fn h15_default_builds_a_smaller_side_that_may_not_be_broadcast() {
    let config = ResolveConfig {
        broadcast_threshold: 10 * MIB,
        ..ResolveConfig::default()
    };
    // LEFT SEMI: only the right side may be broadcast, and it is the
    // larger one; the smaller left side is built by SHUFFLE_HASH.
    let r = resolve_with(
        "SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id",
        sized(JoinType::LeftSemi, MIB, 2 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    assert_eq!(
        r.joins[0].reason,
        "default: the left input 1.0 MiB is smaller than the side BROADCAST could build \
         (right 2.0 MiB), so SHUFFLE_HASH building the left"
    );
    // The broadcastable side is the smaller: it is broadcast.
    let r = resolve_with(
        "SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id",
        sized(JoinType::LeftSemi, 2 * MIB, MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    // SHUFFLE_HASH disabled: the broadcast stays.
    let no_hash = ResolveConfig {
        disabled_strategies: vec![ShuffleHash],
        ..config.clone()
    };
    let r = resolve_with(
        "SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.id = t2.id",
        sized(JoinType::LeftSemi, MIB, 2 * MIB),
        &no_hash,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
}

/// A join of `join_type` whose right input (1 MiB) is grouped on the keys
/// and whose left input is `left` bytes.
fn grouped_right(join_type: JoinType, left: u64) -> Vec<JoinSite> {
    vec![JoinSite::new(
        0,
        join_type,
        SiteInput::named("t1").size(left / 10, left),
        SiteInput::named("t2").size(MIB / 10, MIB).grouped(),
    )]
}

#[test]
fn h15_default_builds_the_left_side_of_a_join_with_a_right_input_grouped_on_the_keys() {
    let config = ResolveConfig {
        broadcast_threshold: 10 * MIB,
        ..ResolveConfig::default()
    };
    let sql = "SELECT * FROM t1 LEFT JOIN t2 ON t1.id = t2.id";
    // LEFT: the left side may not be broadcast, so SHUFFLE_HASH builds it,
    // although the grouped right side is the smaller.
    let r = resolve_with(sql, grouped_right(JoinType::Left, 4 * MIB), &config).unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    assert_eq!(
        r.joins[0].reason,
        "default: the right input is grouped by the join keys (a decorrelated subquery), so \
         SHUFFLE_HASH building the left input 4.0 MiB <= broadcast threshold 10.0 MiB: its \
         keys filter the aggregate's input at run time"
    );
    // INNER and LEFT SEMI: BROADCAST of the left where allowed.
    let r = resolve_with(sql, grouped_right(JoinType::Inner, 4 * MIB), &config).unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Left))]);
    let r = resolve_with(sql, grouped_right(JoinType::LeftSemi, 4 * MIB), &config).unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    // Not applied: a left side over the threshold, a join type whose
    // right rows are kept without a match, runtime filters switched off.
    let r = resolve_with(sql, grouped_right(JoinType::Left, 40 * MIB), &config).unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    let r = resolve_with(sql, grouped_right(JoinType::Full, 4 * MIB), &config).unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Right))]);
    let no_filters = ResolveConfig {
        runtime_filters: false,
        ..config.clone()
    };
    let r = resolve_with(sql, grouped_right(JoinType::Left, 4 * MIB), &no_filters).unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    // A hint still decides.
    let r = resolve_with(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 LEFT JOIN t2 ON t1.id = t2.id",
        grouped_right(JoinType::Left, 4 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
}

#[test]
fn h15_default_above_the_threshold_is_shuffle_hash_building_the_smaller_side() {
    let config = ResolveConfig {
        broadcast_threshold: MIB,
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 300 * MIB, 200 * MIB),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Right))]);
    assert_eq!(
        r.joins[0].reason,
        "default: no side that may be broadcast is at or below the broadcast threshold 1.0 MiB; \
         SHUFFLE_HASH building the right input (smaller: 200.0 MiB vs 300.0 MiB)"
    );
}

#[test]
fn h15_default_without_estimates_is_shuffle_hash_building_the_right_side() {
    let r = resolve(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Right))]);
    assert!(
        r.joins[0].reason.contains("no size estimate"),
        "{}",
        r.joins[0].reason
    );
}

#[test]
fn h15_default_is_shuffle_merge_when_both_inputs_arrive_sorted() {
    let joins = vec![JoinSite::new(
        0,
        JoinType::Inner,
        SiteInput::named("t1").size(10, 100).sorted(),
        SiteInput::named("t2").size(10, 100).sorted(),
    )];
    let r = resolve("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id", joins).unwrap();
    assert_eq!(chosen(&r), [(ShuffleMerge, None)]);
    // One sorted side is not enough.
    let joins = vec![JoinSite::new(
        0,
        JoinType::Inner,
        SiteInput::named("t1").size(10, 100).sorted(),
        SiteInput::named("t2").size(10, 100),
    )];
    assert_eq!(
        ok("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id", joins)[0].0,
        Broadcast
    );
}

#[test]
fn h15_default_broadcast_threshold_is_documented() {
    assert_eq!(tenon_planner::hints::DEFAULT_BROADCAST_THRESHOLD, 256 * MIB);
    assert_eq!(ResolveConfig::default().broadcast_threshold, 256 * MIB);
    assert_eq!(ResolveConfig::default().hint_mode, HintMode::Lenient);
}

// ---------------------------------------------------------------- H16

#[test]
fn h16_disabled_strategies_remove_hints() {
    let config = ResolveConfig {
        disabled_strategies: vec![Broadcast],
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 10, 20),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleHash, Some(Left))]);
    assert_eq!(
        r.joins[0].ignored[0].reason,
        IgnoreReason::Disabled(Broadcast)
    );
    assert_eq!(
        r.joins[0].ignored[0].to_string(),
        "hint BROADCAST(t1) ignored: BROADCAST is disabled by disabled_strategies"
    );
    assert!(
        r.joins[0].reason.contains("BROADCAST is disabled"),
        "{}",
        r.joins[0].reason
    );
}

#[test]
fn h16_disabled_strategies_are_skipped_by_the_default_choice() {
    let config = ResolveConfig {
        disabled_strategies: vec![Broadcast, ShuffleHash],
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 10, 20),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(ShuffleMerge, None)]);
    let config = ResolveConfig {
        disabled_strategies: vec![ShuffleMerge, ShuffleHash],
        broadcast_threshold: 1,
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Left, 10, 20),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    let config = ResolveConfig {
        disabled_strategies: vec![ShuffleMerge, ShuffleHash, Broadcast],
        ..ResolveConfig::default()
    };
    let r = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.id = t2.id",
        sized(JoinType::Inner, 10, 20),
        &config,
    )
    .unwrap();
    assert_eq!(chosen(&r), [(NestLoop, Some(Left))]);
}

#[test]
fn h16_disabling_every_strategy_that_can_run_a_join_is_an_error() {
    let config = ResolveConfig {
        disabled_strategies: vec![NestLoop],
        ..ResolveConfig::default()
    };
    let mut joins = two(JoinType::Inner);
    joins[0] = joins[0].clone().non_equi();
    let e = resolve_with(
        "SELECT /*+ NEST_LOOP(t1) */ * FROM t1 JOIN t2 ON t1.a < t2.a",
        joins,
        &config,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no strategy can run join 0 (INNER, no equi condition): NEST_LOOP disabled by \
         disabled_strategies = [NEST_LOOP]; enable at least one of them"
    );
    let config = ResolveConfig {
        disabled_strategies: Strategy::ALL.to_vec(),
        ..ResolveConfig::default()
    };
    let e = resolve_with(
        "SELECT * FROM t1 JOIN t2 ON t1.a = t2.a",
        two(JoinType::Full),
        &config,
    )
    .unwrap_err();
    assert!(
        matches!(e, HintError::NoStrategyAvailable { ref candidates, .. } if candidates == &[ShuffleHash, ShuffleMerge, NestLoop]),
        "{e}"
    );
}

// ---------------------------------------------------------------- H17

fn strict() -> ResolveConfig {
    ResolveConfig {
        hint_mode: HintMode::Strict,
        ..ResolveConfig::default()
    }
}

#[test]
fn h17_strict_mode_turns_an_inapplicable_hint_into_an_error_that_says_why() {
    let e = resolve_with(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id",
        two(JoinType::Full),
        &strict(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "hint `BROADCAST(t1)` cannot be applied to join 0: BROADCAST does not support a FULL \
         OUTER join (hint_mode = strict; use hint_mode = lenient to fall back to the planner's \
         choice)"
    );
    let mut joins = two(JoinType::Inner);
    joins[0] = joins[0].clone().non_equi();
    let e = resolve_with(
        "SELECT /*+ SHUFFLE_MERGE(t1) */ * FROM t1 JOIN t2 ON t1.a > t2.a",
        joins,
        &strict(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("needs an equi-join condition"),
        "{e}"
    );
    let e = resolve_with("SELECT /*+ BROADCAST(t1) */ * FROM t1", vec![], &strict()).unwrap_err();
    assert!(matches!(e, HintError::StrictHint { join: None, .. }), "{e}");
}

#[test]
fn h17_strict_mode_accepts_valid_and_conflicting_hints() {
    let r = resolve_with(
        "SELECT /*+ BROADCAST(t2), BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
        two(JoinType::Inner),
        &strict(),
    )
    .unwrap();
    assert_eq!(chosen(&r), [(Broadcast, Some(Right))]);
    assert_eq!("strict".parse::<HintMode>(), Ok(HintMode::Strict));
    assert_eq!(" Lenient ".parse::<HintMode>(), Ok(HintMode::Lenient));
    assert!(
        "exact"
            .parse::<HintMode>()
            .unwrap_err()
            .contains("`lenient`")
    );
}

#[test]
fn h17_lenient_mode_falls_back_without_error() {
    let r = resolve(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 FULL JOIN t2 ON t1.id = t2.id",
        two(JoinType::Full),
    )
    .unwrap();
    assert_eq!(r.joins[0].source, DecisionSource::Default);
}
