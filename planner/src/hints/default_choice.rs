//! The planner's own choice for a join without a valid hint (docs/hints.md H15,
//! H16).
//!
//! In order of preference, among the strategies not disabled:
//!
//! ```text
//! no equi condition                 -> NEST_LOOP, build the smaller side
//! both inputs sorted on the keys    -> SHUFFLE_MERGE (no sort needed)
//! a broadcastable side <= threshold -> BROADCAST the smaller such side
//! otherwise                         -> SHUFFLE_HASH, build the smaller side
//! fallbacks when those are disabled -> SHUFFLE_MERGE, BROADCAST (over the
//!                                      threshold), NEST_LOOP
//! ```
//!
//! "Smaller" compares estimated bytes, or rows when bytes are missing on a
//! side; with no estimates the right input is built (the side SQL writes
//! second, conventionally the smaller one).

use tenon_kernels::{JoinSide, Strategy};

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
