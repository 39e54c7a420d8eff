//! The choice of one version in a key's group: a binary search over the
//! group's times (sorted ascending, ties in input order).
//!
//! A large group is searched in two steps: first its *fences* (every
//! [`FENCE`]-th time of the grouped versions, a dense array an eighth the
//! size of the times that stays in cache), then the one block of at most
//! [`FENCE`] times between two fences. A plain binary search over a
//! group larger than the cache misses it at nearly every step; this one
//! misses about twice.

use crate::condition::CmpOp;

/// Versions per fence.
pub(super) const FENCE: usize = 16;

/// The position in `times` (ascending; equal times in input order) of the
/// version a left row of time `x` takes under `op` (`None`: the latest
/// version), or `None` when no version qualifies.
///
/// `>=` takes the last position with a time `<= x` (the largest time, the
/// last of its ties), `>` the last with a time `< x`, `<=` the first with a
/// time `>= x` (the smallest, the first of its ties), `<` the first with a
/// time `> x`.
///
/// The probe runs this in two steps ([`Fenced::block`] for a window of
/// rows, then [`Fenced::finish`] and [`pick`]); this is the composition
/// its tests check.
#[cfg(test)]
fn choose(op: Option<CmpOp>, times: &(impl Sorted + ?Sized), n: usize, x: i64) -> Option<usize> {
    match op {
        None => n.checked_sub(1),
        Some(op) => pick(op, times.partition_point(|t| below(op, t, x)), n),
    }
}

/// The predicate whose partition point [`pick`] turns into the choice:
/// `t <= x` for `>=` and `<`, `t < x` for `>` and `<=`.
#[inline(always)]
pub(super) fn below(op: CmpOp, t: i64, x: i64) -> bool {
    match op {
        CmpOp::Ge | CmpOp::Lt => t <= x,
        CmpOp::Gt | CmpOp::Le => t < x,
    }
}

/// The chosen position from the partition point `p` of [`below`] in `n`
/// times: the one before it for `>=` and `>`, itself for `<=` and `<`.
#[inline(always)]
pub(super) fn pick(op: CmpOp, p: usize, n: usize) -> Option<usize> {
    match op {
        CmpOp::Ge | CmpOp::Gt => p.checked_sub(1),
        CmpOp::Le | CmpOp::Lt => (p < n).then_some(p),
    }
}

/// Whether the candidates after the chosen one (when a filter rejects it)
/// lie at lower positions: for `>=`, `>` and the latest mode the next
/// candidate is the next older version, for `<=` and `<` the next newer.
#[inline]
pub(super) fn walks_down(op: Option<CmpOp>) -> bool {
    matches!(op, None | Some(CmpOp::Ge) | Some(CmpOp::Gt))
}

/// Times sorted ascending, searched by position.
pub(super) trait Sorted {
    /// The first position whose time fails `pred` (which holds for a
    /// prefix).
    fn partition_point(&self, pred: impl Fn(i64) -> bool) -> usize;
}

impl Sorted for [i64] {
    #[inline(always)]
    fn partition_point(&self, pred: impl Fn(i64) -> bool) -> usize {
        // A branch-free binary search: the comparison picks the base.
        let mut size = self.len();
        if size == 0 {
            return 0;
        }
        let mut base = 0;
        while size > 1 {
            let half = size / 2;
            let mid = base + half;
            if pred(self[mid]) {
                base = mid;
            }
            size -= half;
        }
        base + usize::from(pred(self[base]))
    }
}

/// One group's times, `times[start..end]` of a list whose every
/// [`FENCE`]-th time is in `fences` (`fences[q] = times[q * FENCE]`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fenced<'a> {
    pub times: &'a [i64],
    pub fences: &'a [i64],
    pub start: usize,
    pub end: usize,
}

impl Fenced<'_> {
    /// The absolute positions `lo..hi` (at most [`FENCE`] apart, or the
    /// whole group when it is small) within which the partition point of
    /// `pred` lies, found from the fences alone.
    #[inline(always)]
    pub(super) fn block(&self, pred: impl Fn(i64) -> bool) -> (usize, usize) {
        let (s, e) = (self.start, self.end);
        if e - s <= 2 * FENCE || self.fences.is_empty() {
            return (s, e);
        }
        // The fences inside the group: positions q * FENCE in [s, e).
        let (q_lo, q_hi) = (s.div_ceil(FENCE), (e - 1) / FENCE + 1);
        let k = Sorted::partition_point(&self.fences[q_lo..q_hi], pred);
        // The answer lies after the last fence that holds (or the group's
        // start) and at or before the first that fails (or the end).
        let lo = if k == 0 { s } else { (q_lo + k - 1) * FENCE };
        let hi = if k == q_hi - q_lo {
            e
        } else {
            (q_lo + k) * FENCE
        };
        (lo, hi)
    }

    /// The partition point of `pred`, relative to the group's start, from
    /// its [`block`](Self::block).
    #[inline(always)]
    pub(super) fn finish(&self, (lo, hi): (usize, usize), pred: impl Fn(i64) -> bool) -> usize {
        lo + Sorted::partition_point(&self.times[lo..hi], pred) - self.start
    }
}

impl Sorted for Fenced<'_> {
    #[inline(always)]
    fn partition_point(&self, pred: impl Fn(i64) -> bool) -> usize {
        self.finish(self.block(&pred), pred)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules as written: scan every position.
    fn scan(op: Option<CmpOp>, times: &[i64], x: i64) -> Option<usize> {
        let ok = |t: i64| op.is_none_or(|op| op.holds(x, t));
        let best = times.iter().copied().filter(|&t| ok(t));
        let best = if walks_down(op) {
            best.max()
        } else {
            best.min()
        }?;
        let mut at = times.iter().enumerate().filter(|&(_, &t)| t == best);
        if walks_down(op) {
            at.next_back().map(|(i, _)| i)
        } else {
            at.next().map(|(i, _)| i)
        }
    }

    const OPS: [Option<CmpOp>; 5] = [
        None,
        Some(CmpOp::Ge),
        Some(CmpOp::Gt),
        Some(CmpOp::Le),
        Some(CmpOp::Lt),
    ];

    #[test]
    fn choose_agrees_with_a_scan_for_every_operator() {
        let groups: [&[i64]; 5] = [&[], &[5], &[1, 3, 3, 3, 7], &[2, 2], &[-4, 0, 9, 9, 12, 15]];
        for times in groups {
            for op in OPS {
                for x in -6..18 {
                    assert_eq!(
                        choose(op, times, times.len(), x),
                        scan(op, times, x),
                        "{op:?} {times:?} {x}"
                    );
                }
            }
        }
    }

    #[test]
    fn fenced_groups_agree_with_a_scan_wherever_they_start_and_end() {
        // Groups of sorted times with many ties laid out one after another.
        let mut times = Vec::new();
        let mut bounds = Vec::new();
        for (g, len) in [0usize, 1, 5, 33, 34, 47, 100, 250, 16, 64]
            .into_iter()
            .enumerate()
        {
            let start = times.len();
            times.extend((0..len as i64).map(|i| (i * 7 + g as i64) / 5));
            bounds.push((start, times.len()));
        }
        let fences: Vec<i64> = times.iter().step_by(FENCE).copied().collect();
        for &(start, end) in &bounds {
            let group = Fenced {
                times: &times,
                fences: &fences,
                start,
                end,
            };
            for op in OPS {
                for x in -3..110 {
                    let want = scan(op, &times[start..end], x);
                    assert_eq!(
                        choose(op, &group, end - start, x),
                        want,
                        "{op:?} {start}..{end} {x}"
                    );
                }
            }
        }
    }
}
