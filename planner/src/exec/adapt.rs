//! Run-time adaptation: what a join changes of the planner's decision once
//! its inputs' real sizes are known. Every adaptation the executor makes is
//! one of the named steps here; the plan says which it may make, and
//! EXPLAIN ANALYZE shows the one it made on the join's line (`adapted:
//! ...`, [`OperatorMetrics::adapted`]).
//!
//! **The adaptive build side.** A hash join (BROADCAST or SHUFFLE_HASH)
//! that the planner chose by default, without a hint, builds the side the
//! estimates said was smaller. When that side, collected, turns out large
//! enough for the kernel to partition it ([`FedProbe::partitions_build`]),
//! the probe side is collected too ([`may_adapt`]), and if it is the
//! smaller one it is built instead ([`adapted_join`]): docs/hints.md H15's
//! "the smaller side", on facts instead of guesses. A BROADCAST of another
//! join type than INNER cannot build its other side (H13), so it runs as
//! the SHUFFLE_HASH that H15 falls back to. A hinted join is never adapted.
//! Allowed by the decision's `adaptive_build_side` (set by `choose`).
//! Under a memory limit an INNER join whose build side spilled makes the
//! same change from its collected probe side (`spill::adaptive`).
//!
//! **Skipping the probe side** ([`skips_probe`]). Once a hash join's build
//! side is complete, a join whose runtime filters may drop every probe row
//! without a match (the plan's `skips_probe_when_empty`, set where the
//! filters are placed) does not run its probe side at all when no probe
//! row can match: the build side is empty, or a filter made from it passes
//! no key. Its output is what the join gives for an empty probe side.
//!
//! Not adaptations of the plan, and so not here: a kernel's own choices
//! inside one strategy (the hash join's key filter and a runtime filter
//! stop being tested once they pass most rows; the as-of kernel's
//! small-left path), which change how a join runs but never what it runs.
//!
//! The inputs are the planner's decision as a [`Planned`] (its strategy,
//! and whether the plan allows its build side to change), the kernel, and
//! the row counts.
//!
//! [`OperatorMetrics::adapted`]: super::OperatorMetrics::adapted

use super::plan::{Operator, OperatorMetrics, PhysicalPlan};
use super::source::Tables;
use crate::choose::JoinChoice;
use crate::hints::side_label;
use tenon_kernels::{FedProbe, Join, JoinKernel, JoinSide, JoinType, Strategy};

/// The planner's decision for a join, as far as adaptation reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Planned {
    /// The strategy the planner chose.
    pub strategy: Strategy,
    /// Whether the plan allows the build side to change
    /// ([`JoinChoice::adaptive_build_side`](crate::choose::JoinChoice):
    /// a BROADCAST or SHUFFLE_HASH the default chose, never a hint).
    pub adaptive_build_side: bool,
}

impl Planned {
    /// What adaptation reads of a join's decision.
    pub(super) fn of(decision: &JoinChoice) -> Planned {
        Planned {
            strategy: decision.strategy,
            adaptive_build_side: decision.adaptive_build_side,
        }
    }
}

/// The rows `plan` gives, when they are known before it runs: a scan of a
/// table held in memory that no runtime filter tests (or a projection of
/// one). The adaptive build side then needs no collected probe side to
/// know its size ([`needs_probe_collected`]).
pub(super) fn known_rows(plan: &PhysicalPlan, tables: &Tables) -> Option<usize> {
    if !plan.runtime_filters.applied.is_empty() {
        return None;
    }
    match &plan.operator {
        Operator::Scan { table, .. } => {
            let data = tables.get(table)?;
            data.source
                .is_none()
                .then(|| data.batches.iter().map(|b| b.num_rows()).sum())
        }
        Operator::Project { input, .. } => known_rows(input, tables),
        _ => None,
    }
}

/// Whether a join whose build side holds `build_rows` rows collects its
/// probe side before it runs: when [`may_adapt`] allows a change of build
/// side and the probe side's size (`probe_rows`, when known beforehand,
/// [`known_rows`]) does not already rule it out. A probe side known to be
/// at least as large streams, as it does in a join that cannot adapt.
pub(super) fn needs_probe_collected(
    planned: Planned,
    kernel: &dyn FedProbe,
    build_rows: usize,
    probe_rows: Option<usize>,
) -> bool {
    may_adapt(planned, kernel, build_rows) && probe_rows.is_none_or(|n| n < build_rows)
}

/// An adaptation made: the join to run instead, and what changed (shown
/// by EXPLAIN ANALYZE).
#[derive(Debug)]
pub(super) struct Adaptation {
    /// The join that runs instead of the planned one.
    pub join: Join,
    /// What changed and why, in words.
    pub note: String,
}

/// Whether the build side of `kernel`, with `build_rows` rows, may still
/// change: then the probe side must be collected to know its size (see the
/// module docs).
pub(super) fn may_adapt(planned: Planned, kernel: &dyn FedProbe, build_rows: usize) -> bool {
    planned.adaptive_build_side && kernel.partitions_build(build_rows)
}

/// The adaptive build side: `join` builds the other side when its probe
/// side (`probe_rows`) is smaller than its build side (`build_rows`) and
/// [`may_adapt`] allows it; `None` when nothing changes.
pub(super) fn adapt(
    planned: Planned,
    join: &Join,
    build_rows: usize,
    probe_rows: usize,
) -> Option<Adaptation> {
    let kernel = join.fed()?;
    if !may_adapt(planned, kernel, build_rows) || probe_rows >= build_rows {
        return None;
    }
    let built = kernel.build_side();
    let side = match built {
        JoinSide::Left => JoinSide::Right,
        JoinSide::Right => JoinSide::Left,
    };
    let as_shuffle = planned.strategy == Strategy::Broadcast && join.join_type() != JoinType::Inner;
    let strategy = if as_shuffle {
        Strategy::ShuffleHash
    } else {
        join.strategy()
    };
    let note = format!(
        "{}built the {} input ({probe_rows} rows) instead of the {} ({build_rows} rows)",
        if as_shuffle {
            "ran as SHUFFLE_HASH: "
        } else {
            ""
        },
        side_label(side),
        side_label(built),
    );
    Some(Adaptation {
        join: kernel.building(side, strategy),
        note,
    })
}

/// The join to run once both sides are collected (after [`may_adapt`]
/// said yes): the adapted one, its note recorded in `metrics` for EXPLAIN
/// ANALYZE, or `join` as planned.
pub(super) fn adapted_join(
    planned: Planned,
    join: &Join,
    build_rows: usize,
    probe_rows: usize,
    metrics: &OperatorMetrics,
) -> Join {
    match adapt(planned, join, build_rows, probe_rows) {
        Some(a) => {
            let _ = metrics.adapted.set(a.note);
            a.join
        }
        None => join.clone(),
    }
}

/// Skipping the probe side (see the module docs): whether a hash join
/// whose build side holds `build_rows` rows runs its probe side at all.
/// `allowed` is the plan's `skips_probe_when_empty`; `no_key_passes` says
/// a runtime filter made from the build side passes no key. A skip is
/// recorded in `metrics` for EXPLAIN ANALYZE.
pub(super) fn skips_probe(
    allowed: bool,
    build_rows: usize,
    no_key_passes: bool,
    metrics: &OperatorMetrics,
) -> bool {
    let skip = no_key_passes || (allowed && build_rows == 0);
    if skip {
        let _ = metrics
            .adapted
            .set("skipped the probe side: no probe row can match the build side".into());
    }
    skip
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choose::allows_adaptive_build_side;
    use crate::hints::DecisionSource;
    use tenon_kernels::{HashJoin, HashJoinMode, SortMergeJoin};

    fn planned(strategy: Strategy, by_default: bool) -> Planned {
        let source = if by_default {
            DecisionSource::Default
        } else {
            DecisionSource::Hint(0)
        };
        Planned {
            strategy,
            adaptive_build_side: allows_adaptive_build_side(&source, strategy),
        }
    }

    fn hash(join_type: JoinType, mode: HashJoinMode) -> Join {
        HashJoin::new(join_type, vec![(0, 0)]).mode(mode).into()
    }

    #[test]
    fn a_default_hash_join_builds_its_smaller_side_once_it_is_large() {
        let big = HashJoin::unpartitioned_rows() + 1;
        let join = hash(JoinType::Inner, HashJoinMode::Partitioned);
        let a = adapt(planned(Strategy::ShuffleHash, true), &join, big, 10).unwrap();
        let fed = a.join.fed().unwrap();
        assert_eq!(fed.build_side(), JoinSide::Left);
        assert_eq!(a.join.strategy(), Strategy::ShuffleHash);
        assert!(
            a.note.starts_with("built the left input (10 rows)"),
            "{}",
            a.note
        );
        // An inner BROADCAST stays a broadcast.
        let join = hash(JoinType::Inner, HashJoinMode::Broadcast);
        let a = adapt(planned(Strategy::Broadcast, true), &join, big, 10).unwrap();
        assert_eq!(a.join.strategy(), Strategy::Broadcast);
    }

    #[test]
    fn a_probe_side_known_to_be_larger_is_not_collected() {
        let big = HashJoin::unpartitioned_rows() + 1;
        let join = hash(JoinType::Inner, HashJoinMode::Broadcast);
        let fed = join.fed().unwrap();
        let p = planned(Strategy::Broadcast, true);
        assert!(needs_probe_collected(p, fed, big, None));
        assert!(needs_probe_collected(p, fed, big, Some(big - 1)));
        assert!(!needs_probe_collected(p, fed, big, Some(big)));
        assert!(!needs_probe_collected(p, fed, big - 1, None));
        let hinted = planned(Strategy::Broadcast, false);
        assert!(!needs_probe_collected(hinted, fed, big, Some(1)));
    }

    #[test]
    fn a_broadcast_outer_join_that_switches_sides_runs_as_shuffle_hash() {
        let big = HashJoin::unpartitioned_rows() + 1;
        let join = hash(JoinType::Left, HashJoinMode::Broadcast);
        let a = adapt(planned(Strategy::Broadcast, true), &join, big, 10).unwrap();
        assert_eq!(a.join.strategy(), Strategy::ShuffleHash);
        assert_eq!(a.join.fed().unwrap().build_side(), JoinSide::Left);
        assert!(a.note.starts_with("ran as SHUFFLE_HASH: "), "{}", a.note);
    }

    #[test]
    fn hinted_small_or_already_smaller_builds_are_not_adapted() {
        let big = HashJoin::unpartitioned_rows() + 1;
        let small = HashJoin::unpartitioned_rows();
        let join = hash(JoinType::Inner, HashJoinMode::Partitioned);
        let p = planned(Strategy::ShuffleHash, true);
        assert!(adapt(planned(Strategy::ShuffleHash, false), &join, big, 10).is_none());
        assert!(adapt(p, &join, small, 10).is_none());
        assert!(!may_adapt(p, join.fed().unwrap(), small));
        assert!(may_adapt(p, join.fed().unwrap(), big));
        assert!(adapt(p, &join, big, big).is_none());
        let merge: Join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).into();
        assert!(adapt(planned(Strategy::ShuffleMerge, true), &merge, big, 10).is_none());
    }
}
