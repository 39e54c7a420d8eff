//! The small-left path: the left side indexed, the right side streamed
//! once.
//!
//! When few left rows meet many right rows, grouping and sorting the right
//! side (`prepare`) costs far more than the join itself. This path turns
//! the roles around: the left rows are grouped by key and sorted by time
//! with the very structure the right side uses ([`Versions`], the join's
//! key encoding and hash table), then every right row is looked up in it
//! once. A right row of time `t` qualifies for a contiguous run of its
//! key's left rows (sorted by time): for `>=` and `>` the rows at or after
//! the first one whose time reaches `t`, for `<=` and `<` the rows up to
//! the last one that `t` reaches, in the latest mode all of them. So the
//! right row is offered only to the run's first (or last) slot, each slot
//! keeping its best offer, and one scan per group at the end spreads the
//! best offers along the runs (a running maximum upwards, or minimum
//! downwards).
//!
//! The best of two candidates is the larger `(time, right row)` for `>=`,
//! `>` and the latest mode (the largest time, ties the last in input
//! order), the smaller for `<=` and `<` (the smallest time, ties the
//! first). Right rows are numbered in input order (batches in order, rows
//! in order), so this order is total: the right side is scanned in
//! parallel ranges, each keeping its own slots, and merging them in any
//! order gives the same answer.
//!
//! Cost: `O(left log left)` to index the left side, then per right row
//! one hash lookup and a binary search in its key's (small) left group,
//! with no sort of the right side. Tombstones are candidates like any
//! version and mean "no match" when chosen; a
//! [`FilterTiming::AfterChoice`](super::FilterTiming::AfterChoice) filter
//! is evaluated once over the chosen pairs. A
//! [`FilterTiming::BeforeChoice`](super::FilterTiming::BeforeChoice) filter
//! makes every pair a candidate only if it passes, which a best-per-slot
//! scan cannot decide without evaluating it on every right row against
//! every left row of its run: such joins take the right-index path.

use arrow_array::{Array, RecordBatch};
use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use super::exec::{NONE, Probe, key_columns};
use super::prepare::{Version, Versions, bytes_for, tag_hash};
use super::search::{Sorted, walks_down};
use super::time::{Times, time_column};
use crate::condition::CmpOp;
use crate::error::Result;
use crate::kernel::concat::one_batch;
use crate::keys::{KeySource, key_nulls};

/// The most left rows the kernel indexes by itself: the slots of one scan
/// task (12 bytes a left row) then stay within a few MiB, near a core's
/// cache, so the right side's lookups rarely wait for memory.
const MAX_LEFT_ROWS: usize = 1 << 18;

/// The kernel indexes the left side by itself when the right side has at
/// least this many times more rows: indexing a side costs a hash insert
/// and a sort step per row, probing one a lookup and a binary search, so
/// sorting the smaller side wins, and the factor leaves a margin for the
/// right-index path's faster (prefetched, batched) probe.
const RIGHT_PER_LEFT: usize = 8;

/// Right rows per scan task at the least (fewer rows: fewer tasks).
const MIN_TASK_ROWS: usize = 1 << 15;

/// Whether a join takes this path: `choice` is [`super::AsofJoin::small_left`],
/// `filter_first` whether a filter is applied before the choice (never this
/// path).
pub(super) fn applies(
    choice: Option<bool>,
    left_rows: usize,
    right_rows: usize,
    filter_first: bool,
) -> bool {
    if filter_first {
        return false;
    }
    choice.unwrap_or(
        left_rows <= MAX_LEFT_ROWS && left_rows.saturating_mul(RIGHT_PER_LEFT) <= right_rows,
    )
}

/// Each slot's best candidate so far: its time's image and its right row
/// ([`NONE`]: none yet).
struct Best {
    time: Vec<i64>,
    row: Vec<u32>,
    /// The larger `(time, row)` wins (else the smaller).
    up: bool,
}

impl Best {
    fn new(slots: usize, up: bool) -> Best {
        Best {
            time: vec![0; slots],
            row: vec![NONE; slots],
            up,
        }
    }

    /// Whether candidate `(t, r)` beats the one held as `(bt, br)`.
    #[inline(always)]
    fn beats(&self, (t, r): (i64, u32), (bt, br): (i64, u32)) -> bool {
        br == NONE
            || if self.up {
                (t, r) > (bt, br)
            } else {
                (t, r) < (bt, br)
            }
    }

    #[inline(always)]
    fn offer(&mut self, slot: usize, t: i64, r: u32) {
        if self.beats((t, r), (self.time[slot], self.row[slot])) {
            self.time[slot] = t;
            self.row[slot] = r;
        }
    }

    /// Keeps, in every slot, the better of its own and `other`'s.
    fn merge(&mut self, other: &Best) {
        for (s, &r) in other.row.iter().enumerate() {
            if r != NONE {
                self.offer(s, other.time[s], r);
            }
        }
    }
}

/// Runs the join of `probe` by this path (`rnulls`: the right rows whose
/// key is NULL and never matches).
pub(super) fn run<S: KeySource>(probe: &Probe<'_, S>, rnulls: Option<&NullBuffer>) -> Result<()> {
    let plan = probe.plan;
    let join = plan.join;
    let memory = &join.options.memory;
    let (left, _left_mem) = one_batch(plan.left, memory, "the as-of join's left side")?;
    let (m, n) = (left.num_rows(), probe.right.num_rows());
    let lcols = key_columns(&left, join.on.iter().map(|p| p.0));
    let lkeys = plan
        .kind
        .as_ref()
        .map(|k| S::encode(k, &lcols))
        .transpose()?;
    let lnulls = plan
        .kind
        .as_ref()
        .and_then(|k| key_nulls(&lcols, k, join.null_equal));
    let tasks = rayon::current_num_threads()
        .min(n.div_ceil(MIN_TASK_ROWS))
        .max(1);
    // The index, both sides' times, each task's slots plus the merged
    // ones, and the chosen rows.
    let slot_bytes = std::mem::size_of::<i64>() + std::mem::size_of::<u32>();
    let _mem = memory.try_reserve(
        "the as-of join's left index",
        bytes_for::<S::Tag>(m, lkeys.is_some())
            + (m + n) * std::mem::size_of::<i64>()
            + (tasks + 1) * m * slot_bytes
            + m * std::mem::size_of::<u32>(),
    )?;
    let ltimes = Times::of(time_column(&left, plan.left_time), m)?;
    let joins = &|i: usize| lnulls.as_ref().is_none_or(|k| k.is_valid(i)) && ltimes.valid(i);
    let valid: Vec<Version> = (0..m)
        .filter(|&i| joins(i))
        .map(|i| Version {
            time: ltimes.values[i],
            row: i as u32,
        })
        .collect();
    let tag_of = |row: u32| match &lkeys {
        Some(k) => tag_hash(k, row),
        None => (S::Tag::default(), 0),
    };
    let same = |a: u32, b: u32| match &lkeys {
        Some(k) => !S::VERIFY || k.same_key(a as usize, k, b as usize),
        None => true,
    };
    let keys_fn: Option<&(dyn Fn(u32) -> (S::Tag, u64) + Sync)> =
        if lkeys.is_some() { Some(&tag_of) } else { None };
    let index = Versions::build(valid, keys_fn, same, 0);
    let rtimes = Times::of(time_column(probe.right, plan.right_time), n)?;
    let up = walks_down(plan.op);
    let slots = index.positions();
    let chunk = n.div_ceil(tasks).max(1);
    let scans: Vec<Best> = (0..tasks)
        .into_par_iter()
        .map(|task| {
            let mut best = Best::new(slots, up);
            for r in task * chunk..((task + 1) * chunk).min(n) {
                if rnulls.is_some_and(|k| k.is_null(r)) || !rtimes.valid(r) {
                    continue;
                }
                let group = match (&lkeys, probe.rkeys) {
                    (Some(lk), Some(rk)) => {
                        let tag = rk.tag(r);
                        index.lookup(tag, S::hash(tag), S::VERIFY, |l| {
                            lk.same_key(l as usize, rk, r)
                        })
                    }
                    _ => index.lookup(S::Tag::default(), 0, false, |_| true),
                };
                let Some(group) = group else { continue };
                let (xs, rows) = index.group(group);
                let t = rtimes.values[r];
                // The first (`>=`, `>`, latest) or last (`<=`, `<`) left
                // position the right row qualifies for.
                let slot = match plan.op {
                    None => Some(0),
                    Some(CmpOp::Ge) => Some(xs.partition_point(|x| x < t)),
                    Some(CmpOp::Gt) => Some(xs.partition_point(|x| x <= t)),
                    Some(CmpOp::Le) => xs.partition_point(|x| x <= t).checked_sub(1),
                    Some(CmpOp::Lt) => xs.partition_point(|x| x < t).checked_sub(1),
                };
                if let Some(p) = slot.filter(|&p| p < rows.len()) {
                    best.offer(index.position(group, p), t, r as u32);
                }
            }
            best
        })
        .collect();
    let mut scans = scans.into_iter();
    let mut best = scans.next().unwrap_or_else(|| Best::new(slots, up));
    for other in scans {
        best.merge(&other);
    }
    // Spread each group's best offers along its runs, once per group.
    let mut chosen = vec![NONE; m];
    let mut done = vec![false; slots];
    for i in (0..m).filter(|&i| joins(i)) {
        let group = match &lkeys {
            Some(lk) => {
                let tag = lk.tag(i);
                index.lookup(tag, S::hash(tag), S::VERIFY, |l| {
                    lk.same_key(l as usize, lk, i)
                })
            }
            None => index.lookup(S::Tag::default(), 0, false, |_| true),
        };
        let Some(group) = group else { continue };
        if std::mem::replace(&mut done[index.position(group, 0)], true) {
            continue;
        }
        let rows = index.group(group).1;
        let mut run = (0i64, NONE);
        let mut visit = |p: usize| {
            let s = index.position(group, p);
            let offer = (best.time[s], best.row[s]);
            if offer.1 != NONE && best.beats(offer, run) {
                run = offer;
            }
            chosen[rows[p] as usize] = run.1;
        };
        if up {
            (0..rows.len()).for_each(&mut visit);
        } else {
            (0..rows.len()).rev().for_each(&mut visit);
        }
    }
    for c in chosen.iter_mut() {
        if *c != NONE && probe.tombstone(*c) {
            *c = NONE; // a delete ends the key's validity
        }
    }
    if let Some(f) = join.options.filter.as_deref() {
        filter_chosen(probe, f, &left, &mut chosen)?;
    }
    probe.emit(&left, &chosen)
}

/// The filter applied after the choice, over every chosen pair at once: a
/// failing pair leaves its left row unmatched.
fn filter_chosen<S: KeySource>(
    probe: &Probe<'_, S>,
    f: &dyn crate::filter::JoinFilter,
    left: &RecordBatch,
    chosen: &mut [u32],
) -> Result<()> {
    let lrows: Vec<u32> = (0..chosen.len() as u32)
        .filter(|&i| chosen[i as usize] != NONE)
        .collect();
    if lrows.is_empty() {
        return Ok(());
    }
    let rrows: Vec<u32> = lrows.iter().map(|&i| chosen[i as usize]).collect();
    let keep = probe.evaluate(f, left, &lrows, &rrows)?;
    for (k, &i) in lrows.iter().enumerate() {
        if !(keep.is_valid(k) && keep.value(k)) {
            chosen[i as usize] = NONE;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_indexes_the_left_side_when_it_is_small_and_an_eighth_of_the_right() {
        assert!(applies(None, 10, 80, false));
        assert!(!applies(None, 10, 79, false));
        assert!(applies(None, 0, 0, false));
        assert!(applies(None, MAX_LEFT_ROWS, 8 * MAX_LEFT_ROWS, false));
        assert!(!applies(None, MAX_LEFT_ROWS + 1, usize::MAX, false));
    }

    #[test]
    fn a_forced_choice_holds_except_for_a_filter_before_the_choice() {
        assert!(applies(Some(true), 1000, 1, false));
        assert!(!applies(Some(false), 1, 1000, false));
        assert!(!applies(Some(true), 1, 1000, true));
        assert!(!applies(None, 1, 1000, true));
    }

    #[test]
    fn the_best_candidate_breaks_time_ties_by_input_order() {
        let mut up = Best::new(1, true);
        for (t, r) in [(5, 3), (5, 9), (4, 20), (5, 1)] {
            up.offer(0, t, r);
        }
        assert_eq!((up.time[0], up.row[0]), (5, 9));
        let mut down = Best::new(1, false);
        for (t, r) in [(5, 3), (5, 9), (6, 0), (5, 1)] {
            down.offer(0, t, r);
        }
        assert_eq!((down.time[0], down.row[0]), (5, 1));
        let mut merged = Best::new(1, true);
        merged.merge(&down);
        merged.merge(&up);
        assert_eq!(merged.row[0], 9);
    }
}
