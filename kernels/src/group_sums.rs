//! Sums and counts of a batch by group, for few groups: one vectorized
//! pass over the rows per group instead of a scattered addition per row.
//!
//! An aggregate into few groups (TPC-H Q1: four) adds row `i`'s value to
//! `sums[groups[i]]`: a load, an add and a store through a slot the next
//! rows mostly hit too, so the rows wait on each other. Comparing the
//! group ids with `g` and adding the values where they match is a
//! compare, an AND and an add on 8 or 16 rows at once (AVX2, AVX-512: the
//! loops are compiled for the CPU it runs on, `cpu::dispatch!`), so for
//! `n` groups the batch costs `n` such passes, less than one scattered
//! addition a row while `n` is small.
//!
//! ```
//! use tenon_kernels::{group_counts, group_sums};
//!
//! let groups = [0, 1, 0, 2, 1];
//! let mut sums = [0i64; 3];
//! let mut counts = [0i64; 3];
//! group_sums(&groups, &[5i32, -1, 7, 2, 4], &mut sums, &mut counts);
//! assert_eq!((sums, counts), ([12, 3, 2], [2, 2, 1]));
//! let mut rows = [0i64; 3];
//! group_counts(&groups, &mut rows);
//! assert_eq!(rows, [2, 2, 1]);
//! ```

use crate::cpu::dispatch;

/// Adds to `sums[g]` the values of the rows of group `g`
/// (`groups[i] == g`) and to `counts[g]` their number, for every
/// `g < sums.len()`; rows of other groups are not added anywhere. The
/// additions wrap: the caller bounds the sums (a batch of values whose
/// magnitudes times its length fit `i64` cannot overflow).
///
/// # Panics
///
/// Never: `groups` and `values` are read to the shorter of the two, and
/// `counts` up to `sums.len()`.
pub fn group_sums<N: Copy + Into<i64>>(
    groups: &[u32],
    values: &[N],
    sums: &mut [i64],
    counts: &mut [i64],
) {
    dispatch!(masked_sums(groups, values, sums, counts))
}

/// Adds to `counts[g]` the number of rows of group `g`, for every
/// `g < counts.len()`.
pub fn group_counts(groups: &[u32], counts: &mut [i64]) {
    dispatch!(masked_counts(groups, counts))
}

#[inline(always)]
fn masked_sums<N: Copy + Into<i64>>(
    groups: &[u32],
    values: &[N],
    sums: &mut [i64],
    counts: &mut [i64],
) {
    for (g, (sum, count)) in sums.iter_mut().zip(counts.iter_mut()).enumerate() {
        let g = g as u32;
        let (mut s, mut c) = (0i64, 0i64);
        for (&gi, &v) in groups.iter().zip(values) {
            let hit = i64::from(gi == g);
            // All ones where the row is of group `g`: the value, else 0.
            s = s.wrapping_add(v.into() & hit.wrapping_neg());
            c += hit;
        }
        *sum = sum.wrapping_add(s);
        *count += c;
    }
}

#[inline(always)]
fn masked_counts(groups: &[u32], counts: &mut [i64]) {
    for (g, count) in counts.iter_mut().enumerate() {
        let g = g as u32;
        // u32 counts vectorize twice as wide; a batch has fewer rows.
        let c = groups
            .iter()
            .fold(0u32, |c, &gi| c.wrapping_add(u32::from(gi == g)));
        *count += i64::from(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sums_and_counts_match_a_scattered_addition(
            rows in prop::collection::vec((0u32..6, any::<i16>()), 0..300),
            n in 0usize..6,
        ) {
            let groups: Vec<u32> = rows.iter().map(|r| r.0).collect();
            let values: Vec<i16> = rows.iter().map(|r| r.1).collect();
            let (mut sums, mut counts, mut rows_of) = (vec![3i64; n], vec![1i64; n], vec![0i64; n]);
            group_sums(&groups, &values, &mut sums, &mut counts);
            group_counts(&groups, &mut rows_of);
            let (mut want_sums, mut want_counts) = (vec![3i64; n], vec![1i64; n]);
            for (&g, &v) in groups.iter().zip(&values) {
                if let Some(s) = want_sums.get_mut(g as usize) {
                    *s += i64::from(v);
                    want_counts[g as usize] += 1;
                }
            }
            prop_assert_eq!(&sums, &want_sums);
            prop_assert_eq!(&counts, &want_counts);
            let want_rows: Vec<i64> = want_counts.iter().map(|c| c - 1).collect();
            prop_assert_eq!(rows_of, want_rows);
        }
    }
}
