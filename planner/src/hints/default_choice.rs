//! The planner's own choice for a join without a valid hint (docs/hints.md H15,
//! H16).
//!
//! In order of preference, among the strategies not disabled:
//!
//! ```text
//! no equi condition                 -> NEST_LOOP, build the smaller side
//! both inputs sorted on the keys    -> SHUFFLE_MERGE (no sort needed)
//! the right input grouped on the    -> build the left input (BROADCAST
//!   keys, the left <= threshold        when it may be broadcast, else
//!                                      SHUFFLE_HASH)
//! many matches a row (many-to-many, -> SHUFFLE_MERGE
//!   or a band over several)
//! a broadcastable side <= threshold -> BROADCAST the smaller such side,
//!                                      or SHUFFLE_HASH of the other side
//!                                      when that one is smaller still
//! otherwise                         -> SHUFFLE_HASH, build the smaller side
//! fallbacks when those are disabled -> SHUFFLE_MERGE, BROADCAST (over the
//!                                      threshold), NEST_LOOP
//! ```
//!
//! "Smaller" compares estimated bytes, or rows when bytes are missing on a
//! side; with no estimates the right input is built (the side SQL writes
//! second, conventionally the smaller one).
//!
//! Why the grouped right input: a decorrelated subquery (`l_quantity <
//! (SELECT 0.2 * avg(l_quantity) ... WHERE l_partkey = p_partkey)`, TPC-H
//! Q2, Q17, Q20) becomes a join of the outer rows with an aggregate of the
//! subquery's table grouped by the correlated key. Built first, the outer
//! side's keys become a runtime filter that reaches the aggregate's input
//! (through its group column), so only the groups some outer row asks for
//! are computed: the effect of magic-set decorrelation, decided at run
//! time from the real keys. Building the aggregate instead would compute
//! every group of the whole table first. The rule needs runtime filters
//! (`runtime_filters=true`) and an outer side estimated at or below the
//! broadcast threshold (or without an estimate); when the outer side turns
//! out large, run-time adaptation builds the smaller side as usual.

use tenon_kernels::{JoinSide, JoinType, Strategy};

use super::block::{JoinSite, ResolveConfig};
use super::decision::{fmt_bytes, side_label};
use super::error::HintError;

/// The default strategy and build side of a join, with the reason.
///
/// # Errors
///
/// [`HintError::NoStrategyAvailable`] when every strategy that can run the
/// join is disabled (H16).
pub(crate) fn default_choice(
    site: &JoinSite,
    config: &ResolveConfig,
) -> Result<(Strategy, Option<JoinSide>, String), HintError> {
    let runnable = site.runnable();
    let enabled = |s: Strategy| config.enabled(s) && runnable.contains(&s);
    if !runnable.iter().any(|s| config.enabled(*s)) {
        return Err(HintError::NoStrategyAvailable {
            join: site.id,
            join_type: site.join_type,
            has_equi_condition: site.has_equi_condition,
            candidates: runnable,
            disabled: config.disabled_strategies.clone(),
        });
    }
    if site.time_join {
        return Ok(time_join_choice(site, config));
    }
    if !site.has_equi_condition {
        let (side, why) = smaller_side(site, &[JoinSide::Left, JoinSide::Right]);
        return Ok((
            Strategy::NestLoop,
            Some(side),
            format!("default: no equi-join condition, so NEST_LOOP, building the {why}"),
        ));
    }
    if enabled(Strategy::ShuffleMerge) && site.left.sorted_on_keys && site.right.sorted_on_keys {
        return Ok((
            Strategy::ShuffleMerge,
            None,
            "default: both inputs arrive sorted on the join keys, so SHUFFLE_MERGE without a sort"
                .into(),
        ));
    }
    if let Some(choice) = grouped_right_choice(site, config) {
        return Ok(choice);
    }
    if let Some(choice) = merge_choice(site, config) {
        return Ok(choice);
    }
    let small: Vec<JoinSide> = site
        .broadcastable()
        .iter()
        .copied()
        .filter(|s| {
            site.input(*s)
                .estimate
                .is_some_and(|e| e.bytes <= config.broadcast_threshold)
        })
        .collect();
    let threshold = fmt_bytes(config.broadcast_threshold);
    if enabled(Strategy::Broadcast) && !small.is_empty() {
        let (side, _) = smaller_side(site, &small);
        let bytes = site.input(side).estimate.map_or(0, |e| e.bytes);
        let other = other_side(side);
        if enabled(Strategy::ShuffleHash)
            && !site.broadcastable().contains(&other)
            && smaller_side(site, &[side, other]).0 == other
        {
            let other_bytes = site.input(other).estimate.map_or(0, |e| e.bytes);
            return Ok((
                Strategy::ShuffleHash,
                Some(other),
                format!(
                    "default: the {} input {} is smaller than the side BROADCAST could build \
                     ({} {}), so SHUFFLE_HASH building the {}",
                    side_label(other),
                    fmt_bytes(other_bytes),
                    side_label(side),
                    fmt_bytes(bytes),
                    side_label(other),
                ),
            ));
        }
        return Ok((
            Strategy::Broadcast,
            Some(side),
            format!(
                "default: build side {} {} <= broadcast threshold {threshold}",
                side_label(side),
                fmt_bytes(bytes)
            ),
        ));
    }
    let why_not_broadcast = if site.broadcastable().is_empty() {
        format!("BROADCAST cannot run a {} join", site.join_type)
    } else if !config.enabled(Strategy::Broadcast) {
        "BROADCAST is disabled".to_string()
    } else if site
        .broadcastable()
        .iter()
        .all(|s| site.input(*s).estimate.is_none())
    {
        "no size estimate for the side that may be broadcast".to_string()
    } else {
        format!("no side that may be broadcast is at or below the broadcast threshold {threshold}")
    };
    if enabled(Strategy::ShuffleHash) {
        let (side, why) = smaller_side(site, &[JoinSide::Left, JoinSide::Right]);
        return Ok((
            Strategy::ShuffleHash,
            Some(side),
            format!("default: {why_not_broadcast}; SHUFFLE_HASH building the {why}"),
        ));
    }
    if enabled(Strategy::ShuffleMerge) {
        return Ok((
            Strategy::ShuffleMerge,
            None,
            format!("default: {why_not_broadcast} and SHUFFLE_HASH is disabled; SHUFFLE_MERGE"),
        ));
    }
    if enabled(Strategy::Broadcast) {
        let (side, why) = smaller_side(site, site.broadcastable());
        return Ok((
            Strategy::Broadcast,
            Some(side),
            format!("default: SHUFFLE_HASH and SHUFFLE_MERGE are disabled; BROADCAST of the {why}"),
        ));
    }
    let (side, why) = smaller_side(site, &[JoinSide::Left, JoinSide::Right]);
    Ok((
        Strategy::NestLoop,
        Some(side),
        format!(
            "default: BROADCAST, SHUFFLE_HASH and SHUFFLE_MERGE cannot run it or are disabled; \
             NEST_LOOP building the {why}"
        ),
    ))
}

/// The other side.
fn other_side(side: JoinSide) -> JoinSide {
    match side {
        JoinSide::Left => JoinSide::Right,
        JoinSide::Right => JoinSide::Left,
    }
}

/// H15's rule for a right input grouped on the join keys (see the module
/// docs): build the left input, BROADCAST when it may be broadcast, else
/// SHUFFLE_HASH; `None` when the rule does not apply.
fn grouped_right_choice(
    site: &JoinSite,
    config: &ResolveConfig,
) -> Option<(Strategy, Option<JoinSide>, String)> {
    // The join types whose probe rows without a match are dropped when the
    // left side is built: the runtime filter may drop them earlier.
    let filters_right = matches!(
        site.join_type,
        JoinType::Inner | JoinType::Left | JoinType::LeftSemi
    );
    if !config.runtime_filters
        || !filters_right
        || !site.right.grouped_on_keys
        || site.left.grouped_on_keys
    {
        return None;
    }
    let left = site.left.estimate;
    if left.is_some_and(|e| e.bytes > config.broadcast_threshold) {
        return None;
    }
    let runnable = site.runnable();
    let enabled = |s: Strategy| config.enabled(s) && runnable.contains(&s);
    let strategy = if enabled(Strategy::Broadcast) && site.broadcastable().contains(&JoinSide::Left)
    {
        Strategy::Broadcast
    } else if enabled(Strategy::ShuffleHash) {
        Strategy::ShuffleHash
    } else {
        return None;
    };
    let size = match left {
        Some(e) => format!(
            " {} <= broadcast threshold {}",
            fmt_bytes(e.bytes),
            fmt_bytes(config.broadcast_threshold)
        ),
        None => " (no size estimate)".to_string(),
    };
    Some((
        strategy,
        Some(JoinSide::Left),
        format!(
            "default: the right input is grouped by the join keys (a decorrelated subquery), \
             so {strategy} building the left input{size}: its keys filter the aggregate's \
             input at run time"
        ),
    ))
}

/// Matches per row of the larger input from which a plain equi-join runs
/// as SHUFFLE_MERGE (H15 rule 3a): the hash join gathers each probe row's
/// matches one by one, the merge emits a run of equal keys against the
/// other side's run at once. `tenon bench` on 2026-12-06 (Intel Xeon, 2
/// threads, `--scale 0.1 --runs 5`): m2n (10 matches a row) SHUFFLE_MERGE
/// 3.9 ms against BROADCAST 4.8 ms and SHUFFLE_HASH 4.5 ms; the foreign
/// key joins (1 a row) 1.1x to 3.4x slower as SHUFFLE_MERGE.
pub const MANY_TO_MANY_FAN_OUT: f64 = 4.0;

/// Matches per row of the larger input from which an equi-join with a
/// band condition runs as SHUFFLE_MERGE (H15 rule 3a): the hash join makes
/// every pair of equal keys and filters them, the merge searches each
/// row's band within its run. Same sitting as [`MANY_TO_MANY_FAN_OUT`]:
/// band (100 equi matches a row, 1 in the band) SHUFFLE_MERGE 0.9 ms
/// against BROADCAST 5.7 ms; interval (100 a row) 7.6 ms against 23.2 ms.
pub const BAND_FAN_OUT: f64 = 2.0;

/// H15 rule 3a: SHUFFLE_MERGE for a many-to-many join, or a band join whose
/// equi keys match several rows a row (by the keys' distinct counts);
/// `None` when the rule does not apply.
fn merge_choice(
    site: &JoinSite,
    config: &ResolveConfig,
) -> Option<(Strategy, Option<JoinSide>, String)> {
    let fan_out = site.fan_out()?;
    if !config.enabled(Strategy::ShuffleMerge) || !site.runnable().contains(&Strategy::ShuffleMerge)
    {
        return None;
    }
    let reason = if site.band && fan_out >= BAND_FAN_OUT {
        format!(
            "the keys match about {fan_out:.0} rows a row and the band condition few of them, \
             which the merge finds by search within each run of equal keys"
        )
    } else if fan_out >= MANY_TO_MANY_FAN_OUT {
        format!(
            "the keys match about {fan_out:.0} rows a row (many-to-many, by their distinct \
             counts), which the merge emits a run at a time"
        )
    } else {
        return None;
    };
    Some((
        Strategy::ShuffleMerge,
        None,
        format!("default: {reason}, so SHUFFLE_MERGE"),
    ))
}

/// A temporal or as-of join (H53): BROADCAST of the right (versioned) side
/// when it is at or below the broadcast threshold (or of unknown size),
/// searched from the left side's rows as they come; otherwise SHUFFLE_MERGE,
/// which partitions and sorts both sides. Called only when one of the two
/// is enabled.
fn time_join_choice(
    site: &JoinSite,
    config: &ResolveConfig,
) -> (Strategy, Option<JoinSide>, String) {
    let threshold = fmt_bytes(config.broadcast_threshold);
    let right = site.right.estimate;
    let small = right.is_none_or(|e| e.bytes <= config.broadcast_threshold);
    let broadcast = config.enabled(Strategy::Broadcast);
    if broadcast && (small || !config.enabled(Strategy::ShuffleMerge)) {
        let why = match right {
            Some(e) if small => format!(
                "the right (versioned) input {} <= broadcast threshold {threshold}",
                fmt_bytes(e.bytes)
            ),
            Some(_) => "SHUFFLE_MERGE is disabled".to_string(),
            None => "no size estimate for the right (versioned) input".to_string(),
        };
        return (
            Strategy::Broadcast,
            Some(JoinSide::Right),
            format!("default: {why}, so BROADCAST it, sorted per key, and search it per row"),
        );
    }
    let why = if broadcast {
        format!(
            "the right (versioned) input {} > broadcast threshold {threshold}",
            fmt_bytes(right.map_or(0, |e| e.bytes))
        )
    } else {
        "BROADCAST is disabled".to_string()
    };
    (
        Strategy::ShuffleMerge,
        None,
        format!("default: {why}, so SHUFFLE_MERGE: partition and sort both inputs and merge"),
    )
}

/// The smaller of the candidate sides, and a phrase saying which and why
/// ("right input (smaller: 12.0 KiB vs 1.0 MiB)").
fn smaller_side(site: &JoinSite, candidates: &[JoinSide]) -> (JoinSide, String) {
    let [a, b] = match candidates {
        [] => return (JoinSide::Right, "right input".into()),
        [only] => return (*only, format!("{} input", side_label(*only))),
        [a, b, ..] => [*a, *b],
    };
    let (ea, eb) = (site.input(a).estimate, site.input(b).estimate);
    let pick =
        |x: JoinSide, what: String| (x, format!("{} input (smaller: {what})", side_label(x)));
    match (ea, eb) {
        (Some(x), Some(y)) if x.bytes != y.bytes => {
            let (small, sb, bb) = if x.bytes < y.bytes {
                (a, x.bytes, y.bytes)
            } else {
                (b, y.bytes, x.bytes)
            };
            pick(small, format!("{} vs {}", fmt_bytes(sb), fmt_bytes(bb)))
        }
        (Some(x), Some(y)) if x.rows != y.rows => {
            let (small, sr, br) = if x.rows < y.rows {
                (a, x.rows, y.rows)
            } else {
                (b, y.rows, x.rows)
            };
            pick(small, format!("{sr} vs {br} rows"))
        }
        (Some(_), Some(_)) => (
            JoinSide::Right,
            "right input (both inputs are estimated the same)".into(),
        ),
        _ => (JoinSide::Right, "right input (no size estimates)".into()),
    }
}
