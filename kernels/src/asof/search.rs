//! The choice of one version in a key's group: a binary search over the
//! group's times (sorted ascending, ties in input order).

use crate::condition::CmpOp;

/// The position in `times` (ascending; equal times in input order) of the
/// version a left row of time `x` takes under `op` (`None`: the latest
/// version), or `None` when no version qualifies.
///
/// `>=` takes the last position with a time `<= x` (the largest time, the
/// last of its ties), `>` the last with a time `< x`, `<=` the first with a
/// time `>= x` (the smallest, the first of its ties), `<` the first with a
/// time `> x`.
#[inline(always)]
pub(super) fn choose(op: Option<CmpOp>, times: impl TimeAt, x: i64) -> Option<usize> {
    let n = times.len();
    match op {
        None => n.checked_sub(1),
        Some(CmpOp::Ge) => partition_point(&times, |t| t <= x).checked_sub(1),
        Some(CmpOp::Gt) => partition_point(&times, |t| t < x).checked_sub(1),
        Some(CmpOp::Le) => Some(partition_point(&times, |t| t < x)).filter(|&p| p < n),
        Some(CmpOp::Lt) => Some(partition_point(&times, |t| t <= x)).filter(|&p| p < n),
    }
}

/// Whether the candidates after the chosen one (when a filter rejects it)
/// lie at lower positions: for `>=`, `>` and the latest mode the next
/// candidate is the next older version, for `<=` and `<` the next newer.
#[inline]
pub(super) fn walks_down(op: Option<CmpOp>) -> bool {
    matches!(op, None | Some(CmpOp::Ge) | Some(CmpOp::Gt))
}

/// A sorted sequence of times, read by position.
pub(super) trait TimeAt {
    /// How many times.
    fn len(&self) -> usize;
    /// The time at position `i < len()`.
    fn at(&self, i: usize) -> i64;
}

impl TimeAt for &[i64] {
    #[inline(always)]
    fn len(&self) -> usize {
        <[i64]>::len(self)
    }
    #[inline(always)]
    fn at(&self, i: usize) -> i64 {
        self[i]
    }
}

/// The first position whose time fails `pred` (`pred` holds for a prefix).
#[inline(always)]
fn partition_point(times: &impl TimeAt, pred: impl Fn(i64) -> bool) -> usize {
    // A branch-free binary search: the comparison picks the base.
    let mut size = times.len();
    if size == 0 {
        return 0;
    }
    let mut base = 0;
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        if pred(times.at(mid)) {
            base = mid;
        }
        size -= half;
    }
    base + usize::from(pred(times.at(base)))
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

    #[test]
    fn choose_agrees_with_a_scan_for_every_operator() {
        let groups: [&[i64]; 5] = [&[], &[5], &[1, 3, 3, 3, 7], &[2, 2], &[-4, 0, 9, 9, 12, 15]];
        let ops = [
            None,
            Some(CmpOp::Ge),
            Some(CmpOp::Gt),
            Some(CmpOp::Le),
            Some(CmpOp::Lt),
        ];
        for times in groups {
            for op in ops {
                for x in -6..18 {
                    assert_eq!(
                        choose(op, times, x),
                        scan(op, times, x),
                        "{op:?} {times:?} {x}"
                    );
                }
            }
        }
    }
}
