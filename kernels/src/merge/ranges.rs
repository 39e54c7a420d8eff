//! Range conditions inside runs of equal keys (band joins).
//!
//! With [`SortMergeJoin::ranges`](super::SortMergeJoin::ranges) the join
//! condition is `keys equal AND left.a op right.b AND ...`. Inside one run
//! pair the left rows are sorted by the first condition's left column, and
//! every condition on that same column bounds a window of them for each
//! right row, found by binary search:
//!
//! ```text
//!  a.t BETWEEN b.lo AND b.hi   =   a.t >= b.lo  AND  a.t <= b.hi
//!  left run, sorted on t:   3  8  9  12  15  21  40
//!  right row lo=8, hi=15:      [8  9  12  15]        <- the only pairs formed
//! ```
//!
//! A condition's constant offset (`a.t < b.t + 10`) shifts the right
//! value before the search, in `i128` so that a bound beyond `i64` still
//! compares as the value it stands for. Conditions on other left columns
//! are tested on the pairs of the window only. A NULL on either side of a condition fails it. The cost of a run
//! pair of `n` left and `m` right rows is `n log n + m log n` plus the
//! pairs in the windows, instead of `n * m`.

use arrow_array::RecordBatch;

use super::emit::{Pairs, RowList, RunEmitter};
use crate::condition::{CmpOp, RangeCondition, ordered_values};
use crate::error::Result;

/// One column of one side as order-preserving images, by global row.
#[derive(Debug)]
struct Column {
    values: Vec<i64>,
    /// `None`: no NULLs.
    valid: Option<Vec<bool>>,
}

impl Column {
    fn new(batches: &[RecordBatch], col: usize) -> Result<Self> {
        let mut values = Vec::new();
        let mut valid: Option<Vec<bool>> = None;
        for b in batches {
            let (v, nulls) = ordered_values(b.column(col).as_ref())?;
            if let Some(n) = nulls.filter(|n| n.null_count() > 0) {
                let all = valid.get_or_insert_with(|| vec![true; values.len()]);
                all.extend(n.iter());
            } else if let Some(all) = &mut valid {
                all.extend(std::iter::repeat_n(true, v.len()));
            }
            values.extend(v);
        }
        Ok(Column { values, valid })
    }

    #[inline]
    fn get(&self, row: u32) -> Option<i64> {
        let r = row as usize;
        match &self.valid {
            Some(v) if !v[r] => None,
            _ => Some(self.values[r]),
        }
    }
}

/// The range conditions of a join, with their columns' values.
#[derive(Debug)]
pub(crate) struct RangeValues {
    /// The left column the run's rows are sorted on.
    window: Column,
    /// Conditions on the window column: operator, right column, offset.
    bounds: Vec<(CmpOp, Column, i64)>,
    /// Other conditions: left column, the condition (operator and offset),
    /// right column.
    residual: Vec<(Column, RangeCondition, Column)>,
}

impl RangeValues {
    /// The values of `conds` (non-empty, already validated) over both sides.
    pub(crate) fn new(
        conds: &[RangeCondition],
        left: &[RecordBatch],
        right: &[RecordBatch],
    ) -> Result<Self> {
        let first = conds[0].left;
        let mut bounds = Vec::new();
        let mut residual = Vec::new();
        for c in conds {
            let r = Column::new(right, c.right)?;
            if c.left == first {
                bounds.push((c.op, r, c.offset));
            } else {
                residual.push((Column::new(left, c.left)?, *c, r));
            }
        }
        Ok(RangeValues {
            window: Column::new(left, first)?,
            bounds,
            residual,
        })
    }

    /// Bytes held.
    pub(crate) fn bytes_for(conds: usize, left_rows: usize, right_rows: usize) -> usize {
        (conds + 1) * 9 * (left_rows + right_rows)
    }

    /// The window of `sorted` (left values, ascending) that satisfies every
    /// bound for right row `r`; empty when a right value is NULL.
    fn window(&self, sorted: &[(i64, u32)], r: u32) -> std::ops::Range<usize> {
        let (mut lo, mut hi) = (0, sorted.len());
        for (op, col, offset) in &self.bounds {
            let Some(v) = col.get(r) else { return 0..0 };
            // `left op v` for left values in the window, exactly.
            let v = i128::from(v) + i128::from(*offset);
            let below = |e: &(i64, u32)| i128::from(e.0) < v;
            let at_most = |e: &(i64, u32)| i128::from(e.0) <= v;
            match op {
                CmpOp::Lt => hi = hi.min(sorted.partition_point(below)),
                CmpOp::Le => hi = hi.min(sorted.partition_point(at_most)),
                CmpOp::Gt => lo = lo.max(sorted.partition_point(at_most)),
                CmpOp::Ge => lo = lo.max(sorted.partition_point(below)),
            }
        }
        lo..hi.max(lo)
    }

    /// Whether the conditions outside the window hold for `(l, r)`.
    #[inline]
    fn residual_holds(&self, l: u32, r: u32) -> bool {
        self.residual
            .iter()
            .all(|(lc, c, rc)| match (lc.get(l), rc.get(r)) {
                (Some(a), Some(b)) => c.holds(a, b),
                _ => false,
            })
    }
}

impl RunEmitter<'_> {
    /// A run pair under range conditions: only the pairs that satisfy them
    /// become candidates.
    pub(crate) fn run_ranges<L: RowList + ?Sized, R: RowList + ?Sized>(
        &self,
        ranges: &RangeValues,
        left: &L,
        right: &R,
        buf: &mut Pairs,
        sorted: &mut Vec<(i64, u32)>,
    ) -> Result<()> {
        sorted.clear();
        sorted.extend((0..left.len()).filter_map(|i| {
            let l = left.row(i);
            ranges.window.get(l).map(|v| (v, l))
        }));
        if sorted.is_empty() {
            return Ok(());
        }
        sorted.sort_unstable();
        for j in 0..right.len() {
            let r = right.row(j);
            for &(_, l) in &sorted[ranges.window(sorted, r)] {
                if ranges.residual.is_empty() || ranges.residual_holds(l, r) {
                    self.push(l, r, buf)?;
                }
            }
        }
        Ok(())
    }
}
