//! The merge: two sorted entry lists in, runs of equal keys out.
//!
//! ```text
//!  left  (sorted)  1 1 3 4 4 4 7
//!  right (sorted)  1 2 4 4 7 7 9
//!  runs            [1 1]x[1]   [4 4 4]x[4 4]   [7]x[7 7]
//! ```
//!
//! A key present on one side only produces nothing here: its rows are
//! unmatched, which the match bitmaps remember for outer and anti joins.
//! [`split`] cuts a large pair of sorted lists into pieces that merge
//! independently (in parallel): cuts fall on run boundaries, so a run of
//! equal keys is never divided between pieces.

use std::cmp::Ordering;
use std::ops::Range;

use super::order::{SideKeys, SortKey, order};
use super::sort::Entry;
use crate::error::Result;

/// The end of the run of entries equal to `v[start]`.
#[inline]
pub(crate) fn run_end<S: SortKey>(
    v: &[Entry<S::K>],
    start: usize,
    side: &SideKeys<'_, S>,
) -> usize {
    let first = &v[start];
    let mut end = start + 1;
    if S::TIE {
        while end < v.len() && order(&v[end], side, first, side) == Ordering::Equal {
            end += 1;
        }
    } else {
        while end < v.len() && v[end].key == first.key {
            end += 1;
        }
    }
    end
}

/// Calls `on_run(left run, right run)` for every key present on both
/// sides, in key order. Both lists must be sorted by [`order`].
pub(crate) fn merge<S: SortKey>(
    l: &[Entry<S::K>],
    lk: &SideKeys<'_, S>,
    r: &[Entry<S::K>],
    rk: &SideKeys<'_, S>,
    mut on_run: impl FnMut(&[Entry<S::K>], &[Entry<S::K>]) -> Result<()>,
) -> Result<()> {
    let (mut i, mut j) = (0, 0);
    while i < l.len() && j < r.len() {
        let o = if S::TIE {
            order(&l[i], lk, &r[j], rk)
        } else {
            l[i].key.cmp(&r[j].key)
        };
        match o {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                let i2 = run_end(l, i, lk);
                let j2 = run_end(r, j, rk);
                on_run(&l[i..i2], &r[j..j2])?;
                i = i2;
                j = j2;
            }
        }
    }
    Ok(())
}

/// Cuts two sorted lists into at most `parts` pairs of ranges that can be
/// merged independently: the cuts are at quantiles of the longer list,
/// moved back to the start of their run, and at the same key in the other.
pub(crate) fn split<S: SortKey>(
    l: &[Entry<S::K>],
    lk: &SideKeys<'_, S>,
    r: &[Entry<S::K>],
    rk: &SideKeys<'_, S>,
    parts: usize,
) -> Vec<(Range<usize>, Range<usize>)> {
    let left_longer = l.len() >= r.len();
    let (big, bk, small, sk) = if left_longer {
        (l, lk, r, rk)
    } else {
        (r, rk, l, lk)
    };
    let mut cuts = vec![(0usize, 0usize)];
    for c in 1..parts.max(1) {
        let pos = big.len() * c / parts;
        if pos == 0 || pos >= big.len() {
            continue;
        }
        let pivot = &big[pos];
        let b = big[..pos].partition_point(|e| order(e, bk, pivot, bk) == Ordering::Less);
        if b <= cuts.last().map_or(0, |c| c.0) {
            continue; // inside the previous piece's run
        }
        let s = small.partition_point(|e| order(e, sk, pivot, bk) == Ordering::Less);
        cuts.push((b, s));
    }
    cuts.push((big.len(), small.len()));
    cuts.windows(2)
        .map(|w| {
            let (b, s) = (w[0].0..w[1].0, w[0].1..w[1].1);
            if left_longer { (b, s) } else { (s, b) }
        })
        .collect()
}
