//! Running a join the way the benchmarks do: count the output rows and sum
//! one payload column of each side, without keeping the output.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use tenon_kernels::{Join, JoinInput, JoinKernel, KernelError};

/// Column of the synthetic workloads' numeric payload (`p`).
pub const PAYLOAD_COLUMN: usize = 1;

/// What [`count_and_sum`] measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinSummary {
    /// Output rows.
    pub rows: u64,
    /// Sum of the left payload over the output (NULLs count as 0).
    pub left_sum: i64,
    /// Sum of the right payload over the output (NULLs count as 0).
    pub right_sum: i64,
}

/// The wrapping sum of column `i`'s non-NULL values, 0 when it is not Int64
/// (or missing).
pub(crate) fn sum_column(b: &RecordBatch, i: usize) -> i64 {
    b.columns()
        .get(i)
        .and_then(|c| c.as_primitive_opt::<Int64Type>())
        .map_or(0, |a| {
            let values = a.values();
            let Some(nulls) = a.nulls() else {
                return values.iter().fold(0i64, |s, &v| s.wrapping_add(v));
            };
            // a NULL's slot masked to 0 by its validity bit: no branch
            let masked = |block: &[i64], mask: u64| {
                block.iter().enumerate().fold(0i64, |s, (i, &v)| {
                    s.wrapping_add(v & ((mask >> i) & 1).wrapping_neg() as i64)
                })
            };
            let bits = nulls.inner().bit_chunks();
            let blocks = values.chunks_exact(64);
            let rest = masked(blocks.remainder(), bits.remainder_bits());
            blocks
                .zip(bits.iter())
                .fold(rest, |s, (block, mask)| s.wrapping_add(masked(block, mask)))
        })
}

/// Runs `join` over two inputs whose column 1 is an Int64 payload (the
/// synthetic workloads' `p`), outputting only that column of each side, and
/// returns the row count and the two payload sums.
///
/// The join's own projection is replaced; everything else (mode, build side,
/// threads, batch size) is used as given.
///
/// # Errors
///
/// Whatever the join fails with.
pub fn count_and_sum(
    join: &Join,
    left: &JoinInput,
    right: &JoinInput,
) -> Result<JoinSummary, KernelError> {
    let join = join
        .clone()
        .projection(Some(vec![PAYLOAD_COLUMN]), Some(vec![PAYLOAD_COLUMN]));
    run_summary(&join, left, right)
}

/// Runs `join` outputting no columns at all (a `COUNT(*)` over the join)
/// and returns the row count; the sums are 0.
///
/// # Errors
///
/// Whatever the join fails with.
pub fn count_only(
    join: &Join,
    left: &JoinInput,
    right: &JoinInput,
) -> Result<JoinSummary, KernelError> {
    let join = join.clone().projection(Some(vec![]), Some(vec![]));
    run_summary(&join, left, right)
}

fn run_summary(
    join: &Join,
    left: &JoinInput,
    right: &JoinInput,
) -> Result<JoinSummary, KernelError> {
    let rows = AtomicU64::new(0);
    let (ls, rs) = (AtomicI64::new(0), AtomicI64::new(0));
    let schema = join.output_schema(left.schema(), right.schema())?;
    let (has_l, has_r) = match (schema.fields().len(), join.join_type().output_sides()) {
        (0, _) => (None, None),
        (_, (true, true)) => (Some(0), Some(1)),
        (_, (true, false)) => (Some(0), None),
        (_, (false, _)) => (None, Some(0)),
    };
    join.for_each(left, right, &|b: RecordBatch| {
        rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        if let Some(i) = has_l {
            ls.fetch_add(sum_column(&b, i), Ordering::Relaxed);
        }
        if let Some(i) = has_r {
            rs.fetch_add(sum_column(&b, i), Ordering::Relaxed);
        }
        Ok(())
    })?;
    Ok(JoinSummary {
        rows: rows.into_inner(),
        left_sum: ls.into_inner(),
        right_sum: rs.into_inner(),
    })
}
