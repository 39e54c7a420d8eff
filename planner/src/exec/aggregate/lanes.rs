//! Sums of a batch into few groups, and sums of values a held table keeps
//! in narrow integer types.
//!
//! With few groups, consecutive rows mostly add to the same few sums: one
//! set of sums is then a chain of dependent loads and stores through the
//! same slots. [`add_in_lanes`] adds row `i` to set `i % LANES` and folds
//! the sets at the end of the batch.
//!
//! The aggregate reads a held table's columns as they are held
//! ([`held_form`](crate::exec::held_form)): a `DECIMAL(15, 2)` price as
//! 4-byte integers (its unscaled values), and an arithmetic argument over
//! such columns computed in 64-bit integers
//! ([`evaluate_narrow`](crate::expr::evaluate_narrow)). [`add_narrow`] sums
//! those integers straight into the sums (64-bit lanes for few groups)
//! without first widening them into 16-byte decimals.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int8Type, Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, ArrowNativeTypeOp};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use tenon_kernels::group_sums;

use super::accumulate::FlaggedAdd;

/// Most groups for which a batch is summed in [`LANES`] interleaved sets
/// of sums (folded at the end of the batch).
pub(super) const LANE_GROUPS: usize = 16;

/// Most groups for which a batch without NULLs is summed in one pass over
/// its rows per group ([`group_sums`]) rather than in lanes.
pub(super) const PASS_GROUPS: usize = 8;

/// Interleaved sums: row `i` adds to set `i % LANES`. When consecutive
/// rows belong to one group (few groups: TPC-H Q1 has four), one set of
/// sums is a chain of dependent loads and stores through the same slot;
/// four sets make four shorter chains that the CPU runs side by side.
pub(super) const LANES: usize = 4;

/// `sums[groups[i]] += values[i]` for the valid rows, with wrapping
/// additions in [`LANES`] interleaved sets of sums folded into `sums` at
/// the end (exact: the caller proved that no sum overflows in any order);
/// `seen` marks the groups that got a value.
pub(super) fn add_in_lanes<V: Copy, S: ArrowNativeTypeOp, L: ArrowNativeTypeOp>(
    groups: &[u32],
    values: &[V],
    nulls: Option<&NullBuffer>,
    sums: &mut [S],
    seen: &mut [bool],
    to_lane: impl Fn(V) -> L,
    from_lane: impl Fn(L) -> S,
) {
    let n = sums.len();
    let mut lanes = vec![L::ZERO; LANES * n];
    let mut lane_seen = vec![false; LANES * n];
    let mut add = |i: usize, g: u32, v: V, valid: bool| {
        let at = (i % LANES) * n + g as usize;
        let v = if valid { to_lane(v) } else { L::ZERO };
        lanes[at] = lanes[at].add_wrapping(v);
        lane_seen[at] |= valid;
    };
    match nulls {
        None => {
            for (i, (&g, &v)) in groups.iter().zip(values).enumerate() {
                add(i, g, v, true);
            }
        }
        Some(nulls) => {
            for (i, ((&g, &v), valid)) in groups.iter().zip(values).zip(nulls.iter()).enumerate() {
                add(i, g, v, valid);
            }
        }
    }
    for (part, part_seen) in lanes
        .chunks_exact(n.max(1))
        .zip(lane_seen.chunks_exact(n.max(1)))
    {
        for ((sum, was_seen), (&v, &v_seen)) in sums
            .iter_mut()
            .zip(seen.iter_mut())
            .zip(part.iter().zip(part_seen))
        {
            *sum = sum.add_wrapping(from_lane(v));
            *was_seen |= v_seen;
        }
    }
}

/// Adds a batch of narrow integers (`values`: Int8, Int16, Int32 or Int64,
/// each the unscaled value of what the sums hold) to `sums`, by group:
/// row `i` to `sums[groups[i]]`; `seen` marks the groups that got a value.
/// `bound` is the sums' running bound on the magnitude of any sum
/// ([`FlaggedAdd::EXACT_BOUND`]; `u128::MAX` once unknown), kept as
/// `SumAcc` keeps it. Few groups and a bound within `exact` are added in
/// 64-bit lanes with wrapping (then exact) additions; otherwise each
/// addition is flagged.
///
/// `None` when `values` is not such an array; else whether an addition
/// overflowed (the sums are then to be discarded with an error).
pub(super) fn add_narrow<S: FlaggedAdd + ArrowNativeTypeOp>(
    groups: &[u32],
    values: &ArrayRef,
    sums: &mut [S],
    seen: &mut [bool],
    bound: &mut u128,
    exact: Option<u128>,
) -> Option<bool> {
    macro_rules! ints {
        ($t:ty) => {{
            let a = values.as_primitive::<$t>();
            let nulls = a.nulls().filter(|n| n.null_count() > 0);
            add_ints(groups, a.values(), nulls, sums, seen, bound, exact)
        }};
    }
    Some(match values.data_type() {
        DataType::Int8 => ints!(Int8Type),
        DataType::Int16 => ints!(Int16Type),
        DataType::Int32 => ints!(Int32Type),
        DataType::Int64 => ints!(Int64Type),
        _ => return None,
    })
}

/// [`add_narrow`] of one integer type.
fn add_ints<N: Copy + Into<i64>, S: FlaggedAdd + ArrowNativeTypeOp>(
    groups: &[u32],
    values: &[N],
    nulls: Option<&NullBuffer>,
    sums: &mut [S],
    seen: &mut [bool],
    bound: &mut u128,
    exact: Option<u128>,
) -> bool {
    let n = sums.len();
    if n > LANE_GROUPS {
        // Groups only grow: the bound is never needed again.
        *bound = u128::MAX;
    } else if *bound != u128::MAX {
        let largest = values
            .iter()
            .fold(0u64, |m, &v| m.max(v.into().unsigned_abs()));
        let batch = u128::from(largest).saturating_mul(values.len() as u128);
        *bound = bound.saturating_add(batch);
        if values.len() >= LANES * n
            && exact.is_some_and(|e| *bound <= e)
            && batch <= i64::MAX as u128
        {
            if nulls.is_none() && n <= PASS_GROUPS {
                // One vectorized pass per group (`group_sums`).
                let (mut part, mut rows) = ([0i64; PASS_GROUPS], [0i64; PASS_GROUPS]);
                group_sums(groups, values, &mut part[..n], &mut rows[..n]);
                for (((sum, seen), &p), &r) in sums.iter_mut().zip(seen).zip(&part).zip(&rows) {
                    *sum = sum.add_wrapping(S::from_i64(p));
                    *seen |= r > 0;
                }
                return false;
            }
            add_in_lanes(groups, values, nulls, sums, seen, |v| v.into(), S::from_i64);
            return false;
        }
    }
    let mut overflow = false;
    let mut add = |g: u32, v: N| {
        let g = g as usize;
        let (sum, o) = sums[g].flagged_add(S::from_i64(v.into()));
        sums[g] = sum;
        overflow |= o;
        seen[g] = true;
    };
    match nulls {
        None => groups.iter().zip(values).for_each(|(&g, &v)| add(g, v)),
        Some(nulls) => groups
            .iter()
            .zip(values)
            .zip(nulls.iter())
            .for_each(|((&g, &v), valid)| {
                if valid {
                    add(g, v)
                }
            }),
    }
    overflow
}
