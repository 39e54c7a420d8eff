//! The join predicate over candidate pairs: range conditions on `i64`
//! images, then the filter, in SQL's three-valued logic.
//!
//! Candidates arrive as two index vectors (build rows, probe rows). Each
//! range condition compacts them in place, keeping the pairs it cannot rule
//! out; the filter then runs once over the survivors. A pair *matches* when
//! every condition is TRUE. For `NOT IN` ([`crate::JoinType::LeftAntiNullAware`])
//! a pair *conflicts* unless some condition is FALSE: a NULL value or a NULL
//! filter result is unknown, and unknown conflicts. Either way the pairs
//! left in the vectors are the ones the join-type bookkeeping counts.

use arrow_array::{Array, RecordBatch, UInt32Array};
use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::prepare::SideCondition;
use crate::condition::{CmpOp, ordered_values};
use crate::error::{KernelError, Result};
use crate::filter::JoinFilter;
use crate::memory::{MemoryBudget, MemoryReservation};

/// Order-preserving images of one column and its validity (see
/// [`ordered_values`]).
#[derive(Debug)]
pub(crate) struct Images {
    pub values: Vec<i64>,
    pub nulls: Option<NullBuffer>,
}

impl Images {
    pub(crate) fn of(array: &dyn Array) -> Result<Self> {
        let (values, nulls) = ordered_values(array)?;
        let nulls = nulls.filter(|n| n.null_count() > 0);
        Ok(Images { values, nulls })
    }

    #[inline]
    pub(crate) fn is_null(&self, i: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.is_null(i))
    }

    /// Bytes held by the images of `rows` rows.
    pub(crate) fn bytes_for(rows: usize) -> usize {
        rows * 8 + rows.div_ceil(8)
    }
}

/// The part of the predicate a kernel tests pair by pair: some range
/// conditions (with the build side's images) and the filter.
pub(crate) struct Residual<'a> {
    conds: Vec<(SideCondition, Images)>,
    filter: Option<&'a dyn JoinFilter>,
    null_aware: bool,
    build_is_left: bool,
    build: &'a RecordBatch,
    _memory: MemoryReservation,
}

/// The probe side's images for a [`Residual`], one per condition.
pub(crate) type ProbeImages = Vec<Images>;

impl<'a> Residual<'a> {
    /// The residual of `conds` and `filter` over `build`, whose condition
    /// columns are imaged here (charged to `memory`).
    pub(crate) fn new(
        conds: &[SideCondition],
        filter: Option<&'a dyn JoinFilter>,
        null_aware: bool,
        build_is_left: bool,
        build: &'a RecordBatch,
        memory: &MemoryBudget,
    ) -> Result<Self> {
        let bytes = conds.len() * Images::bytes_for(build.num_rows());
        let _memory = memory.try_reserve("the range conditions' build images", bytes)?;
        let conds = conds
            .iter()
            .map(|c| Ok((*c, Images::of(build.column(c.build).as_ref())?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Residual {
            conds,
            filter,
            null_aware,
            build_is_left,
            build,
            _memory,
        })
    }

    /// Whether every candidate pair passes (nothing to test).
    pub(crate) fn is_empty(&self) -> bool {
        self.conds.is_empty() && self.filter.is_none()
    }

    /// The images of a probe morsel's condition columns.
    pub(crate) fn probe_images(&self, probe: &RecordBatch) -> Result<ProbeImages> {
        self.conds
            .iter()
            .map(|(c, _)| Images::of(probe.column(c.probe).as_ref()))
            .collect()
    }

    /// Keeps, in `build_rows` / `probe_rows`, the candidate pairs that match
    /// (conflict, for `NOT IN`). `probe` is the morsel the probe rows index
    /// and `images` its [`probe_images`](Self::probe_images).
    pub(crate) fn apply(
        &self,
        probe: &RecordBatch,
        images: &ProbeImages,
        build_rows: &mut Vec<u32>,
        probe_rows: &mut Vec<u32>,
    ) -> Result<()> {
        for ((cond, bimg), pimg) in self.conds.iter().zip(images) {
            if build_rows.is_empty() {
                return Ok(());
            }
            retain_condition(cond, bimg, pimg, self.null_aware, build_rows, probe_rows);
        }
        match self.filter {
            Some(f) if !build_rows.is_empty() => {
                self.apply_filter(f, probe, build_rows, probe_rows)
            }
            _ => Ok(()),
        }
    }

    fn apply_filter(
        &self,
        f: &dyn JoinFilter,
        probe: &RecordBatch,
        build_rows: &mut Vec<u32>,
        probe_rows: &mut Vec<u32>,
    ) -> Result<()> {
        let b = UInt32Array::new(ScalarBuffer::from(std::mem::take(build_rows)), None);
        let p = UInt32Array::new(ScalarBuffer::from(std::mem::take(probe_rows)), None);
        let keep = if self.build_is_left {
            f.evaluate(self.build, probe, &b, &p)?
        } else {
            f.evaluate(probe, self.build, &p, &b)?
        };
        if keep.len() != b.len() {
            return Err(KernelError::Filter(format!(
                "the filter returned {} values for {} candidate pairs",
                keep.len(),
                b.len()
            )));
        }
        // Take the index vectors back (the filter has dropped its
        // references to them), and keep the pairs whose result is TRUE (or,
        // for `NOT IN`, not FALSE): one mask, then only its set bits are
        // visited, which is what a selective filter needs.
        *build_rows = into_vec(b);
        *probe_rows = into_vec(p);
        let mask = match keep.nulls() {
            None => keep.values().clone(),
            Some(valid) if self.null_aware => keep.values() | &!valid.inner(),
            Some(valid) => keep.values() & valid.inner(),
        };
        let mut w = 0;
        for i in mask.set_indices() {
            // Set indices ascend, so `w <= i` and nothing unread is overwritten.
            build_rows[w] = build_rows[i];
            probe_rows[w] = probe_rows[i];
            w += 1;
        }
        build_rows.truncate(w);
        probe_rows.truncate(w);
        Ok(())
    }
}

/// The values of an index array as a vector (without a copy when the array
/// holds the only reference to its buffer).
fn into_vec(a: UInt32Array) -> Vec<u32> {
    let (_, values, _) = a.into_parts();
    values
        .into_inner()
        .into_vec::<u32>()
        .unwrap_or_else(|buf| buf.typed_data::<u32>().to_vec())
}

/// Keeps pair `i` (build row `b`, probe row `p`) where `keep(i, b, p)`, in
/// place and in order.
#[inline]
fn retain_pairs(
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
    mut keep: impl FnMut(usize, u32, u32) -> bool,
) {
    let n = build_rows.len().min(probe_rows.len());
    let mut w = 0;
    for i in 0..n {
        let (b, p) = (build_rows[i], probe_rows[i]);
        // Always write, advance only when kept: no branch to mispredict.
        build_rows[w] = b;
        probe_rows[w] = p;
        w += usize::from(keep(i, b, p));
    }
    build_rows.truncate(w);
    probe_rows.truncate(w);
}

/// Keeps the pairs for which `probe <op> build + offset` is TRUE, or, when
/// `null_keeps`, TRUE or unknown (a NULL on either side). The sum is exact
/// (`i128`).
fn retain_condition(
    cond: &SideCondition,
    build: &Images,
    probe: &Images,
    null_keeps: bool,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) {
    // One loop per operator, so the comparison is not a branch per pair;
    // without an offset the images compare as they are.
    let o = cond.offset;
    let (b, p, n) = (build, probe, null_keeps);
    let wide = |v: i64| i128::from(v);
    match (cond.op, o == 0) {
        (CmpOp::Lt, true) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| p < b),
        (CmpOp::Le, true) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| p <= b),
        (CmpOp::Gt, true) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| p > b),
        (CmpOp::Ge, true) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| p >= b),
        (CmpOp::Lt, false) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| {
            wide(p) < wide(b) + o
        }),
        (CmpOp::Le, false) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| {
            wide(p) <= wide(b) + o
        }),
        (CmpOp::Gt, false) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| {
            wide(p) > wide(b) + o
        }),
        (CmpOp::Ge, false) => retain_cmp(b, p, n, build_rows, probe_rows, |p, b| {
            wide(p) >= wide(b) + o
        }),
    }
}

#[inline]
fn retain_cmp(
    build: &Images,
    probe: &Images,
    null_keeps: bool,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
    cmp: impl Fn(i64, i64) -> bool,
) {
    let (bv, pv) = (&build.values, &probe.values);
    if build.nulls.is_none() && probe.nulls.is_none() {
        retain_pairs(build_rows, probe_rows, |_, b, p| {
            cmp(pv[p as usize], bv[b as usize])
        });
    } else {
        retain_pairs(build_rows, probe_rows, |_, b, p| {
            let (b, p) = (b as usize, p as usize);
            if build.is_null(b) || probe.is_null(p) {
                null_keeps
            } else {
                cmp(pv[p], bv[b])
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::BooleanArray;
    use arrow_array::Int64Array;
    use std::sync::Arc;

    fn images(v: Vec<Option<i64>>) -> Images {
        Images::of(&Int64Array::from(v)).unwrap()
    }

    #[test]
    fn conditions_keep_true_pairs_and_unknown_ones_only_for_not_in() {
        let build = images(vec![Some(1), None, Some(5)]);
        let probe = images(vec![Some(3), None]);
        let all = || {
            let mut b = Vec::new();
            let mut p = Vec::new();
            for pi in 0..2 {
                for bi in 0..3 {
                    b.push(bi);
                    p.push(pi);
                }
            }
            (b, p)
        };
        // probe < build
        let (mut b, mut p) = all();
        let lt = SideCondition {
            probe: 0,
            op: CmpOp::Lt,
            build: 0,
            offset: 0,
        };
        retain_condition(&lt, &build, &probe, false, &mut b, &mut p);
        assert_eq!((b, p), (vec![2], vec![0]));
        let (mut b, mut p) = all();
        retain_condition(&lt, &build, &probe, true, &mut b, &mut p);
        assert_eq!((b, p), (vec![1, 2, 0, 1, 2], vec![0, 0, 1, 1, 1]));
    }

    #[test]
    fn filter_results_of_the_wrong_length_are_an_error() {
        let batch =
            RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from(vec![1, 2])) as _)])
                .unwrap();
        let short = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
            Ok(BooleanArray::from(vec![true]))
        };
        let r = Residual::new(
            &[],
            Some(&short),
            false,
            false,
            &batch,
            &MemoryBudget::unlimited(),
        )
        .unwrap();
        let (mut b, mut p) = (vec![0, 1], vec![0, 0]);
        let err = r.apply(&batch, &Vec::new(), &mut b, &mut p).unwrap_err();
        assert!(err.to_string().contains("1 values for 2"), "{err}");
    }
}
