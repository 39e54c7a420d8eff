//! Comparisons of a column with one value (`l_quantity < 24`), the most
//! common filter, compiled for the CPU they run on ([`compare_scalar`]).
//!
//! Arrow's comparison kernels are built at tenon's baseline target (SSE2),
//! where packing a comparison's results into bits takes a shift and an OR
//! per value. Compiled for x86-64-v3 the same loop becomes vector compares
//! and one mask move per 8 (AVX2) or 16 (AVX-512) values, so a filter over
//! a held column runs at the speed its values arrive from memory.

use arrow_buffer::{BooleanBuffer, Buffer};

use crate::condition::CmpOp;
use crate::cpu::dispatch;

/// A comparison of [`compare_scalar`]: an order ([`CmpOp`]) or (in)equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarCmp {
    /// `value <op> scalar`.
    Order(CmpOp),
    /// `value = scalar`.
    Eq,
    /// `value <> scalar`.
    NotEq,
}

/// A value type [`compare_scalar`] compares: the integer types Arrow's
/// integer, decimal, date, time and timestamp columns hold.
pub trait ComparedNative: Copy + PartialOrd + PartialEq + Send + Sync + 'static {
    /// [`compare_scalar`]'s words for this type.
    #[doc(hidden)]
    fn compare_words(values: &[Self], cmp: ScalarCmp, scalar: Self) -> Vec<u64> {
        // One loop per operator, each with a comparison LLVM can
        // vectorize (a closure chosen per call would be a call per value).
        match cmp {
            ScalarCmp::Order(CmpOp::Lt) => dispatch!(pack(values, |v| v < scalar)),
            ScalarCmp::Order(CmpOp::Le) => dispatch!(pack(values, |v| v <= scalar)),
            ScalarCmp::Order(CmpOp::Gt) => dispatch!(pack(values, |v| v > scalar)),
            ScalarCmp::Order(CmpOp::Ge) => dispatch!(pack(values, |v| v >= scalar)),
            ScalarCmp::Eq => dispatch!(pack(values, |v| v == scalar)),
            ScalarCmp::NotEq => dispatch!(pack(values, |v| v != scalar)),
        }
    }
}

impl ComparedNative for i8 {}
impl ComparedNative for i16 {}
impl ComparedNative for i32 {}
impl ComparedNative for i64 {}
impl ComparedNative for u8 {}
impl ComparedNative for u16 {}
impl ComparedNative for u32 {}
impl ComparedNative for u64 {}

/// Decimals: an `i128` comparison compiles to scalar code whatever the
/// level, so each value is compared as its two 64-bit halves (the high one
/// signed, then the low one unsigned), which vectorizes.
impl ComparedNative for i128 {
    fn compare_words(values: &[i128], cmp: ScalarCmp, scalar: i128) -> Vec<u64> {
        let (sh, sl) = ((scalar >> 64) as i64, scalar as u64);
        let halves = |v: i128| ((v >> 64) as i64, v as u64);
        match cmp {
            ScalarCmp::Order(CmpOp::Lt) => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h < sh) | ((h == sh) & (l < sl))
            })),
            ScalarCmp::Order(CmpOp::Le) => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h < sh) | ((h == sh) & (l <= sl))
            })),
            ScalarCmp::Order(CmpOp::Gt) => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h > sh) | ((h == sh) & (l > sl))
            })),
            ScalarCmp::Order(CmpOp::Ge) => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h > sh) | ((h == sh) & (l >= sl))
            })),
            ScalarCmp::Eq => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h == sh) & (l == sl)
            })),
            ScalarCmp::NotEq => dispatch!(pack(values, |v| {
                let (h, l) = halves(v);
                (h != sh) | (l != sl)
            })),
        }
    }
}

/// `values[i] <cmp> scalar` for every `i`, as bits (bit `i` set when it
/// holds), compiled for the best instruction-set level of this CPU. NULLs
/// are the caller's: the bit of a NULL slot is whatever its value gives.
///
/// ```
/// use tenon_kernels::{CmpOp, ScalarCmp, compare_scalar};
///
/// let bits = compare_scalar(&[5i64, 24, 30, -1], ScalarCmp::Order(CmpOp::Lt), 24);
/// assert_eq!(bits.iter().collect::<Vec<_>>(), [true, false, false, true]);
/// let bits = compare_scalar(&[3i32, 4], ScalarCmp::NotEq, 4);
/// assert_eq!(bits.iter().collect::<Vec<_>>(), [true, false]);
/// ```
pub fn compare_scalar<T: ComparedNative>(values: &[T], cmp: ScalarCmp, scalar: T) -> BooleanBuffer {
    let words = T::compare_words(values, cmp, scalar);
    BooleanBuffer::new(Buffer::from_vec(words), 0, values.len())
}

/// `holds(v)` of each value, 64 to a word (the last word's unused bits
/// clear).
#[inline(always)]
fn pack<T: Copy>(values: &[T], holds: impl Fn(T) -> bool) -> Vec<u64> {
    let chunks = values.chunks_exact(64);
    let rest = chunks.remainder();
    let mut words = Vec::with_capacity(values.len().div_ceil(64));
    for chunk in chunks {
        let mut word = 0u64;
        for (i, &v) in chunk.iter().enumerate() {
            word |= u64::from(holds(v)) << i;
        }
        words.push(word);
    }
    if !rest.is_empty() {
        let mut word = 0u64;
        for (i, &v) in rest.iter().enumerate() {
            word |= u64::from(holds(v)) << i;
        }
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::tests::at_every_level;

    fn naive<T: ComparedNative>(values: &[T], cmp: ScalarCmp, s: T) -> Vec<bool> {
        values
            .iter()
            .map(|&v| match cmp {
                ScalarCmp::Order(op) => op.holds(v, s),
                ScalarCmp::Eq => v == s,
                ScalarCmp::NotEq => v != s,
            })
            .collect()
    }

    const CMPS: [ScalarCmp; 6] = [
        ScalarCmp::Order(CmpOp::Lt),
        ScalarCmp::Order(CmpOp::Le),
        ScalarCmp::Order(CmpOp::Gt),
        ScalarCmp::Order(CmpOp::Ge),
        ScalarCmp::Eq,
        ScalarCmp::NotEq,
    ];

    fn check<T: ComparedNative + std::fmt::Debug>(values: &[T], scalars: &[T]) {
        for n in [0, 1, 7, 63, 64, 65, 130, values.len()] {
            let values = &values[..n.min(values.len())];
            for &cmp in &CMPS {
                for &s in scalars {
                    let want = naive(values, cmp, s);
                    for (level, got) in at_every_level(|| compare_scalar(values, cmp, s)) {
                        assert_eq!(got.len(), values.len());
                        let got: Vec<bool> = got.iter().collect();
                        assert_eq!(got, want, "{level:?} {cmp:?} {s:?} over {n} values");
                    }
                }
            }
        }
    }

    #[test]
    fn every_type_operator_and_level_agrees_with_a_naive_comparison() {
        let ints: Vec<i64> = (0..200).map(|i| (i * 7919) % 61 - 30).collect();
        check(&ints, &[-30, 0, 5, 30, i64::MIN, i64::MAX]);
        let narrow: Vec<i8> = ints.iter().map(|&v| v as i8).collect();
        check(&narrow, &[-128, 0, 5, 127]);
        let dates: Vec<i32> = ints.iter().map(|&v| v as i32 * 1000).collect();
        check(&dates, &[-30_000, 0, 5_000, i32::MAX]);
        let wide: Vec<i128> = ints.iter().map(|&v| i128::from(v) << 70).collect();
        check(&wide, &[-(30 << 70), 0, 1, 5 << 70, i128::MAX]);
        let unsigned: Vec<u64> = ints.iter().map(|&v| v as u64).collect();
        check(&unsigned, &[0, 5, u64::MAX, 1 << 63]);
    }
}
