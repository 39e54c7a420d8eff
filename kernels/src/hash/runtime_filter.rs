//! What a hash join's complete build side tells the operators *before* its
//! probe: which keys a probe row can have and still match (sideways
//! information passing).
//!
//! Once a hash join has its whole build side, every probe row whose key is
//! not among the build side's keys is one the join drops (for the join
//! types where probe rows without a match are not output). A
//! [`RuntimeFilter`] over those keys lets a scan drop such rows before any
//! other work is spent on them: before the scan's own predicates, before
//! columns are copied, before the joins and aggregates between the scan and
//! the join. It has no false negatives; a false positive only costs the
//! work the filter would have saved.
//!
//! It is made of the pieces the hash join itself uses in front of its
//! table, over the key encoding the join compares with (so floats, strings
//! and composite keys match exactly as in the join):
//!
//! ```text
//!  integer-like keys   the key range (min..=max), then the exact key bits
//!                      of that range (dense: `KeyBits`) when they take at
//!                      most 4 times the Bloom filter's bytes (or 256 KiB)
//!                      and the range is at most 2^26 keys, else the Bloom
//!                      filter of the keys (`KeyFilter`)
//!  any other key       the Bloom filter of the keys' hashes
//!  no key at all       nothing passes
//! ```
//!
//! NULL keys never pass: SQL `=` never matches them. (A null-equal join
//! gets no runtime filter: [`FedProbe::runtime_filter_keys`].)
//!
//! The Bloom filter hashes the keys again, with a seed of its own
//! ([`filter_hash`]): the rows that pass a Bloom filter include its false
//! positives, which gather in the filter's most crowded words, so they
//! share bits of the hash that picked those words. Those rows often become
//! the build side of a later join (TPC-H Q18: the 624 orders of the
//! subquery pass 22,791 orders at scale 10, built to probe lineitem); with
//! the join's own hash their homes crowded a few stretches of its table
//! into runs thousands of slots long, and the join probed 60M rows in 15 s
//! instead of 0.5 s.
//!
//! Whether testing pays is measured as it runs: once the first rows tested
//! show that more than 75% of them pass, the filter says so
//! ([`RuntimeFilter::worth_testing`]) and its users stop testing.
//!
//! [`FedProbe::runtime_filter_keys`]: crate::FedProbe::runtime_filter_keys

use arrow_array::ArrayRef;
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;
use rayon::prelude::*;

use super::bloom::{FilterStats, KeyFilter};
use super::dense::{KeyBits, KeyRange};
use super::table::JoinTable;
use crate::error::{KernelError, Result};
use crate::kernel::dispatch::with_key_encoding;
use crate::keys::{KeyKind, KeySource, hash_u64, key_nulls};

/// The hash a runtime filter's Bloom filter uses for a key whose join hash
/// is `h`: a second, differently seeded mix, so that which keys pass is
/// independent of where the join tables place them (module docs).
#[inline(always)]
fn filter_hash(h: u64) -> u64 {
    hash_u64(h ^ 0x6a09_e667_f3bc_c909)
}

/// A filter stops being tested once more than this fraction of the rows
/// tested pass it: a test costs a few nanoseconds a row, and what it saves
/// (the operators between the filter and the join, the probe itself) is
/// paid only for the rows it drops.
const MAX_PASS_RATE: f64 = 0.75;

/// Exact key bits are used instead of a Bloom filter when they take at most
/// this many times the Bloom filter's bytes ...
const BITS_PER_BLOOM: usize = 4;
/// ... or at most this many bytes (they stay in the L2 cache).
const SMALL_BITS: usize = 256 << 10;
/// Exact key bits cover ranges of at most this many keys (8 MiB of bits):
/// beyond the L2 cache, but a probe column in key order (TPC-H lineitem's
/// `l_orderkey`, ids that grow with time) reads them in order, and they
/// pass no false positive.
const MAX_FILTER_BITS: u64 = 1 << 26;

/// A filter over the keys of a hash join's complete build side (see the
/// module docs).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array};
/// use tenon_kernels::RuntimeFilter;
///
/// let build: ArrayRef = Arc::new(Int64Array::from(vec![Some(3), Some(7), None, Some(7)]));
/// let filter = RuntimeFilter::build(&[vec![build]]).unwrap();
/// assert_eq!(filter.keys(), 3);
/// let probe: ArrayRef = Arc::new(Int64Array::from(vec![Some(7), Some(4), None, Some(3)]));
/// let pass = filter.may_match(&[probe]).unwrap();
/// assert_eq!(pass.iter().collect::<Vec<_>>(), [true, false, false, true]);
/// ```
#[derive(Debug)]
pub struct RuntimeFilter {
    kind: KeyKind,
    types: Vec<DataType>,
    /// Non-NULL build keys (rows, duplicates included).
    keys: usize,
    test: Test,
    stats: FilterStats,
}

/// How a key is tested.
#[derive(Debug)]
enum Test {
    /// The build side has no non-NULL key: nothing passes.
    Nothing,
    /// Integer-like keys (their 64-bit words): within the range, then set
    /// in the bits or possibly in the Bloom filter.
    Words {
        range: KeyRange,
        bits: Option<KeyBits>,
        bloom: Option<KeyFilter>,
    },
    /// Any other key: possibly in the Bloom filter of the hashes.
    Hashed(KeyFilter),
}

impl RuntimeFilter {
    /// A filter over the keys of a build side: for each of its batches, the
    /// key columns (one array per key column, of the same types in every
    /// batch; several columns make one composite key).
    ///
    /// # Errors
    ///
    /// No key column, key columns of different lengths or types between
    /// batches, or a key type the hash join cannot compare.
    pub fn build(batches: &[Vec<ArrayRef>]) -> Result<Self> {
        let Some(first) = batches.first() else {
            return Err(KernelError::InvalidKeys(
                "a runtime filter needs the build side's key columns (no batches given)".into(),
            ));
        };
        if first.is_empty() {
            return Err(KernelError::InvalidKeys(
                "a runtime filter needs at least one key column".into(),
            ));
        }
        let types: Vec<DataType> = first.iter().map(|a| a.data_type().clone()).collect();
        for cols in batches {
            check_columns(&types, cols)?;
        }
        let kind = KeyKind::try_new(&types)?;
        let (keys, test) = with_key_encoding!(&kind, S => build_test::<S>(&kind, batches)?);
        Ok(RuntimeFilter {
            kind,
            types,
            keys,
            test,
            stats: FilterStats::with_max_pass_rate(MAX_PASS_RATE),
        })
    }

    /// For each row of the key columns `cols` (the types the filter was
    /// built over), whether its key may be among the build side's keys
    /// (`false`: it certainly is not, or it is NULL).
    ///
    /// # Errors
    ///
    /// Columns of other types, or of different lengths.
    pub fn may_match(&self, cols: &[ArrayRef]) -> Result<BooleanBuffer> {
        check_columns(&self.types, cols)?;
        let len = cols.first().map_or(0, |c| c.len());
        if matches!(self.test, Test::Nothing) {
            return Ok(BooleanBuffer::new_unset(len));
        }
        with_key_encoding!(&self.kind, S => self.test_keys::<S>(cols, len))
    }

    fn test_keys<S: KeySource>(&self, cols: &[ArrayRef], len: usize) -> Result<BooleanBuffer> {
        let keys = S::encode(&self.kind, cols)?;
        let nulls = key_nulls(cols, &self.kind, false);
        let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        Ok(match &self.test {
            Test::Nothing => BooleanBuffer::new_unset(len),
            Test::Words { range, bits, bloom } => {
                let in_range = |w: u64| w.wrapping_sub(range.min) < range.len;
                match (bits, bloom) {
                    (Some(bits), _) => BooleanBuffer::collect_bool(len, |i| {
                        valid(i) && S::word(keys.tag(i)).is_some_and(|w| bits.contains(w))
                    }),
                    (None, Some(bloom)) => {
                        let pass =
                            |i: usize| valid(i) && S::word(keys.tag(i)).is_some_and(in_range);
                        bloom_test::<S>(&keys, len, bloom, pass)
                    }
                    (None, None) => BooleanBuffer::collect_bool(len, |i| {
                        valid(i) && S::word(keys.tag(i)).is_some_and(in_range)
                    }),
                }
            }
            Test::Hashed(bloom) => bloom_test::<S>(&keys, len, bloom, valid),
        })
    }

    /// Whether testing still pays: `true` until the rows tested so far
    /// ([`RuntimeFilter::record`]) show that more than 75% of them pass. Always `true` for a filter nothing passes.
    pub fn worth_testing(&self) -> bool {
        matches!(self.test, Test::Nothing) || self.stats.worth_it()
    }

    /// Records a test of `tested` rows of which `passed` passed (from any
    /// thread).
    pub fn record(&self, tested: usize, passed: usize) {
        self.stats.record(tested, passed);
    }

    /// Rows tested and rows passed so far.
    pub fn counts(&self) -> (usize, usize) {
        self.stats.counts()
    }

    /// The non-NULL keys the build side gave (rows, duplicates included).
    pub fn keys(&self) -> usize {
        self.keys
    }

    /// The share of the keys in its range that the filter can pass, before
    /// any test has measured it: build keys (duplicates included, so an
    /// upper bound) over the range's width for integer-like keys, 1 for
    /// hashed keys (unknown), 0 when nothing passes. A probe side whose keys
    /// spread over the build side's range passes about this share.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{ArrayRef, Int64Array};
    /// use tenon_kernels::RuntimeFilter;
    ///
    /// let build: ArrayRef = Arc::new(Int64Array::from(vec![1, 100]));
    /// let filter = RuntimeFilter::build(&[vec![build]]).unwrap();
    /// assert_eq!(filter.key_density(), 0.02);
    /// ```
    pub fn key_density(&self) -> f64 {
        match &self.test {
            Test::Nothing => 0.0,
            Test::Words { range, .. } => (self.keys as f64 / range.len as f64).min(1.0),
            Test::Hashed(_) => 1.0,
        }
    }

    /// Whether a test is a range check and at most a lookup in exact key
    /// bits that stay in the L2 cache: no Bloom filter, no hashing, so
    /// cheaper per row than a hash join's own probe.
    pub fn is_cheap(&self) -> bool {
        match &self.test {
            Test::Nothing => true,
            Test::Words {
                bits, bloom: None, ..
            } => bits.as_ref().is_none_or(|b| b.bytes() <= SMALL_BITS),
            _ => false,
        }
    }

    /// Whether a test costs less per row than a hash join's probe of a
    /// table of this filter's keys: [`RuntimeFilter::is_cheap`], or exact
    /// key bits no larger than that table (the join's own sizing,
    /// `JoinTable::bytes_for`, for word keys): a bit test hashes nothing and reads
    /// one bit where the probe reads a slot, so it is the cheaper random
    /// read. TPC-H Q21's semi join of lineitem probes a table of 73K
    /// `l_orderkey`s (2 MiB) for each of 6M rows, with a residual test on
    /// every match; the 750 KiB of exact bits over those keys drop 95% of
    /// the rows first.
    ///
    /// ```
    /// use arrow_array::{ArrayRef, Int64Array};
    /// use std::sync::Arc;
    /// use tenon_kernels::RuntimeFilter;
    ///
    /// // 70,000 keys spread over 6M: 733 KiB of exact bits, beyond the
    /// // L2 cache but under the 2 MiB of a table of those keys.
    /// let keys: ArrayRef = Arc::new(Int64Array::from_iter_values((0..70_000).map(|k| k * 85)));
    /// let filter = RuntimeFilter::build(&[vec![keys]]).unwrap();
    /// assert!(!filter.is_cheap());
    /// assert!(filter.is_cheaper_than_its_probe());
    /// ```
    pub fn is_cheaper_than_its_probe(&self) -> bool {
        if self.is_cheap() {
            return true;
        }
        let Test::Words {
            bits: Some(bits),
            bloom: None,
            ..
        } = &self.test
        else {
            return false;
        };
        bits.bytes() <= JoinTable::<u64>::bytes_for(&[self.keys])
    }

    /// Whether nothing passes (the build side had no non-NULL key).
    pub fn passes_nothing(&self) -> bool {
        matches!(self.test, Test::Nothing)
    }

    /// The bytes the filter holds.
    pub fn bytes(&self) -> usize {
        match &self.test {
            Test::Nothing => 0,
            Test::Words { bits, bloom, .. } => {
                bits.as_ref().map_or(0, KeyBits::bytes) + bloom.as_ref().map_or(0, KeyFilter::bytes)
            }
            Test::Hashed(bloom) => bloom.bytes(),
        }
    }

    /// What the filter is, for EXPLAIN ANALYZE: `1500 keys, range
    /// [3, 5998], exact bits 1 KiB`, `1500000 keys, bloom 4096 KiB`.
    pub fn describe(&self) -> String {
        let kib = |b: usize| b.div_ceil(1024);
        match &self.test {
            Test::Nothing => "no keys: nothing passes".to_string(),
            Test::Words { range, bits, bloom } => {
                let lo = range.min as i64;
                let hi = lo.wrapping_add(range.len.wrapping_sub(1) as i64);
                let what = match (bits, bloom) {
                    (Some(b), _) => format!(", exact bits {} KiB", kib(b.bytes())),
                    (None, Some(f)) => format!(", bloom {} KiB", kib(f.bytes())),
                    (None, None) => String::new(),
                };
                format!("{} keys, range [{lo}, {hi}]{what}", self.keys)
            }
            Test::Hashed(f) => format!("{} keys, bloom {} KiB", self.keys, kib(f.bytes())),
        }
    }
}

/// Checks that `cols` are key columns of `types`, all of one length.
fn check_columns(types: &[DataType], cols: &[ArrayRef]) -> Result<()> {
    if cols.len() != types.len() {
        return Err(KernelError::InvalidKeys(format!(
            "a runtime filter over {} key columns was given {}",
            types.len(),
            cols.len()
        )));
    }
    let len = cols.first().map_or(0, |c| c.len());
    for (i, (c, t)) in cols.iter().zip(types).enumerate() {
        if c.data_type() != t {
            return Err(KernelError::KeyTypeMismatch {
                index: i,
                left: t.clone(),
                right: c.data_type().clone(),
            });
        }
        if c.len() != len {
            return Err(KernelError::InvalidKeys(format!(
                "the key columns of a runtime filter have different lengths ({} and {len})",
                c.len()
            )));
        }
    }
    Ok(())
}

/// One batch's keys, encoded, with their validity.
struct Encoded<S> {
    keys: S,
    nulls: Option<NullBuffer>,
    len: usize,
}

impl<S: KeySource> Encoded<S> {
    /// The tags of the non-NULL keys.
    fn tags(&self) -> impl Iterator<Item = S::Tag> + '_ {
        (0..self.len)
            .filter(|&i| self.nulls.as_ref().is_none_or(|n| n.is_valid(i)))
            .map(|i| self.keys.tag(i))
    }
}

/// The count of non-NULL keys and the test over them.
fn build_test<S: KeySource>(kind: &KeyKind, batches: &[Vec<ArrayRef>]) -> Result<(usize, Test)> {
    let encoded = batches
        .par_iter()
        .map(|cols| {
            Ok(Encoded {
                keys: S::encode(kind, cols)?,
                nulls: key_nulls(cols, kind, false),
                len: cols.first().map_or(0, |c| c.len()),
            })
        })
        .collect::<Result<Vec<Encoded<S>>>>()?;
    let n: usize = encoded
        .iter()
        .map(|e| e.len - e.nulls.as_ref().map_or(0, |nb| nb.null_count()))
        .sum();
    if n == 0 {
        return Ok((0, Test::Nothing));
    }
    let bloom = || {
        encoded
            .par_iter()
            .fold(
                || KeyFilter::with_keys(n),
                |mut f, e| {
                    for t in e.tags() {
                        f.insert(filter_hash(S::hash(t)));
                    }
                    f
                },
            )
            .reduce(
                || KeyFilter::with_keys(n),
                |mut a, b| {
                    a.union(&b);
                    a
                },
            )
    };
    // Integer-like keys: the range first (one pass, in parallel).
    if S::word(S::Tag::default()).is_some() {
        let bounds = encoded
            .par_iter()
            .filter_map(|e| {
                e.tags().filter_map(S::word).fold(None, |b, w| {
                    let w = w as i64;
                    Some(match b {
                        None => (w, w),
                        Some((lo, hi)) => (w.min(lo), w.max(hi)),
                    })
                })
            })
            .reduce_with(|a: (i64, i64), b| (a.0.min(b.0), a.1.max(b.1)));
        // `None` also when the range does not fit a count (i64::MIN..=i64::MAX).
        let range = bounds.and_then(|(lo, hi)| KeyRange::of([lo as u64, hi as u64].into_iter()));
        if let Some(range) = range {
            let bits_bytes = KeyBits::bytes_for(range);
            let small = bits_bytes <= SMALL_BITS
                || bits_bytes <= BITS_PER_BLOOM.saturating_mul(KeyFilter::bytes_for(n, 1));
            let test = if range.len <= MAX_FILTER_BITS && small {
                let words = encoded.iter().flat_map(|e| e.tags().filter_map(S::word));
                Test::Words {
                    range,
                    bits: Some(KeyBits::build(range, words)),
                    bloom: None,
                }
            } else {
                Test::Words {
                    range,
                    bits: None,
                    bloom: Some(bloom()),
                }
            };
            return Ok((n, test));
        }
    }
    Ok((n, Test::Hashed(bloom())))
}

/// Rows `0..len` of `keys` that `pass` lets through and Bloom filter
/// `bloom` may hold, as bits. Rows go 64 at a time: their hashes in a loop
/// of their own (vectorized), then one [`KeyFilter::test_word`], whose
/// prefetches overlap the misses of a filter beyond the cache. Compiled
/// for the CPU's instruction-set level (see `crate::cpu`).
fn bloom_test<S: KeySource>(
    keys: &S,
    len: usize,
    bloom: &KeyFilter,
    pass: impl Fn(usize) -> bool,
) -> BooleanBuffer {
    #[inline(always)]
    fn test_loop<S: KeySource>(
        keys: &S,
        len: usize,
        bloom: &KeyFilter,
        pass: &impl Fn(usize) -> bool,
    ) -> BooleanBuffer {
        let mut words = Vec::with_capacity(len.div_ceil(64));
        let mut hashes = [0u64; 64];
        for first in (0..len).step_by(64) {
            let n = 64.min(len - first);
            for (h, i) in hashes.iter_mut().zip(first..first + n) {
                *h = filter_hash(S::hash(keys.tag(i)));
            }
            let mut passed = 0u64;
            for j in 0..n {
                passed |= u64::from(pass(first + j)) << j;
            }
            words.push(bloom.test_word(&hashes[..n]) & passed);
        }
        BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, len)
    }
    crate::cpu::dispatch!(test_loop::<S>(keys, len, bloom, &pass))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, Int64Array, StringArray};
    use std::sync::Arc;

    fn i64s(v: Vec<Option<i64>>) -> ArrayRef {
        Arc::new(Int64Array::from(v))
    }

    /// Every build key passes; a key outside the build side passes at most
    /// as a rare false positive; NULL never passes.
    fn check(filter: &RuntimeFilter, build: &[i64], probe: impl Iterator<Item = i64>) {
        let build_col = i64s(build.iter().map(|&k| Some(k)).collect());
        let pass = filter.may_match(&[build_col]).unwrap();
        assert!(pass.iter().all(|p| p), "a build key was dropped");
        let set: std::collections::HashSet<i64> = build.iter().copied().collect();
        let probe: Vec<i64> = probe.filter(|k| !set.contains(k)).collect();
        let n = probe.len();
        let pass = filter
            .may_match(&[i64s(probe.into_iter().map(Some).collect())])
            .unwrap();
        let fp = pass.count_set_bits();
        assert!(fp <= n / 50 + 1, "{fp} false positives of {n}");
        let nulls = filter.may_match(&[i64s(vec![None, None])]).unwrap();
        assert_eq!(nulls.count_set_bits(), 0);
    }

    #[test]
    fn dense_keys_get_exact_bits() {
        let build: Vec<i64> = (0..5000).map(|i| i * 3 - 700).collect();
        let batches: Vec<Vec<ArrayRef>> = build
            .chunks(777)
            .map(|c| vec![i64s(c.iter().map(|&k| Some(k)).collect())])
            .collect();
        let f = RuntimeFilter::build(&batches).unwrap();
        assert!(matches!(f.test, Test::Words { bits: Some(_), .. }));
        assert_eq!(f.keys(), 5000);
        check(&f, &build, -2000..20_000);
        // Exact: no false positive at all inside the range.
        let inside = i64s(
            (-700..14_300)
                .filter(|k| (k + 700) % 3 != 0)
                .map(Some)
                .collect(),
        );
        assert_eq!(f.may_match(&[inside]).unwrap().count_set_bits(), 0);
        assert!(
            f.describe().contains("range [-700, 14297]"),
            "{}",
            f.describe()
        );
    }

    /// TPC-H Q21's filters at scale 10: 700K orders keys over a range of
    /// 60M. Bits of the range (7.5 MiB) take less than 4 times the Bloom
    /// filter's 2 MiB: exact bits, beyond the L2 cache but without false
    /// positives; a range past `MAX_FILTER_BITS` gets the Bloom filter.
    #[test]
    fn keys_over_a_wide_range_get_exact_bits_up_to_the_cap() {
        let build: Vec<i64> = (0..700_000).map(|i| i * 85 + 37).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        assert!(
            matches!(f.test, Test::Words { bits: Some(_), .. }),
            "{}",
            f.describe()
        );
        let probe: Vec<Option<i64>> = (0..200_000).map(|i| Some(i * 300 + 1)).collect();
        let want = probe
            .iter()
            .filter(|k| k.is_some_and(|k| k >= 37 && (k - 37) % 85 == 0 && k < 85 * 700_000))
            .count();
        assert_eq!(f.may_match(&[i64s(probe)]).unwrap().count_set_bits(), want);
        let wider: Vec<i64> = (0..700_000).map(|i| i * 97 + 37).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(wider.iter().map(|&k| Some(k)).collect())]]).unwrap();
        assert!(
            matches!(f.test, Test::Words { bloom: Some(_), .. }),
            "{}",
            f.describe()
        );
    }

    #[test]
    fn sparse_keys_get_a_bloom_filter_and_the_range() {
        let build: Vec<i64> = (0..20_000).map(|i| i * 1_000_003).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        assert!(matches!(f.test, Test::Words { bloom: Some(_), .. }));
        check(&f, &build, (0..100_000).map(|i| i * 7919 + 1));
        // Outside the range: never a false positive.
        let outside = i64s(vec![Some(-1), Some(i64::MAX), Some(i64::MIN)]);
        assert_eq!(f.may_match(&[outside]).unwrap().count_set_bits(), 0);
    }

    /// The false positives of a Bloom filter over few keys are spread over
    /// the join table's home positions (the top bits of the join hash) like
    /// any other keys: a later join that builds them does not crowd a few
    /// stretches of its table (module docs).
    #[test]
    fn false_positives_spread_over_the_join_hash() {
        use crate::keys::U64Keys;
        // 624 keys spread over 60M, as TPC-H Q18's subquery at scale 10.
        let build: Vec<i64> = (0..624).map(|i| i * 96_137 + 6_882).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        assert!(matches!(f.test, Test::Words { bloom: Some(_), .. }));
        let set: std::collections::HashSet<i64> = build.iter().copied().collect();
        let probe: Vec<i64> = (0..4_000_000i64)
            .map(|i| i * 15 + 1)
            .filter(|k| !set.contains(k))
            .collect();
        let pass = f
            .may_match(&[i64s(probe.iter().map(|&k| Some(k)).collect())])
            .unwrap();
        // Where a join table of 64 home stretches would place each
        // false positive.
        let mut homes = [0usize; 64];
        for (k, _) in probe.iter().zip(pass.iter()).filter(|(_, p)| *p) {
            homes[(<U64Keys as KeySource>::hash(*k as u64) >> 58) as usize] += 1;
        }
        let fp: usize = homes.iter().sum();
        assert!(
            fp >= 640,
            "too few false positives ({fp}) to judge the spread"
        );
        let most = *homes.iter().max().unwrap();
        // Uniform: about fp / 64 each. With the join's own hash, one
        // stretch got 585 of 5,591 (6.7 times its share).
        assert!(
            most * 64 <= fp * 3,
            "{most} of {fp} false positives share one of 64 home stretches: {homes:?}"
        );
    }

    /// The Bloom test of a run of rows at a time agrees with the filter's
    /// one-row test, at every CPU level, over NULLs and lengths that are
    /// not multiples of 64.
    #[test]
    fn the_bloom_test_of_a_run_agrees_with_one_row_at_a_time() {
        let build: Vec<i64> = (0..3_000).map(|i| i * 1_000_003 + 17).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        let Test::Words {
            bloom: Some(bloom),
            range,
            ..
        } = &f.test
        else {
            panic!("expected a Bloom filter: {}", f.describe());
        };
        for len in [0, 1, 63, 64, 65, 1_000] {
            let probe: Vec<Option<i64>> = (0..len as i64)
                .map(|i| (i % 11 != 3).then_some(i * 333_337 % 3_100_000_000))
                .collect();
            let want: Vec<bool> = probe
                .iter()
                .map(|k| {
                    k.is_some_and(|k| {
                        let w = k as u64;
                        w.wrapping_sub(range.min) < range.len
                            && bloom.may_contain(filter_hash(hash_u64(w)))
                    })
                })
                .collect();
            for (level, got) in
                crate::cpu::tests::at_every_level(|| f.may_match(&[i64s(probe.clone())]).unwrap())
            {
                assert_eq!(
                    got.iter().collect::<Vec<_>>(),
                    want,
                    "{len} rows at {level:?}"
                );
            }
        }
    }

    #[test]
    fn a_runtime_bloom_filter_is_at_most_2_mib_and_keeps_every_key() {
        let build: Vec<i64> = (0..2_000_000).map(|i| i * 7_919 + 3).collect();
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        let Test::Words {
            bloom: Some(bloom), ..
        } = &f.test
        else {
            panic!("expected a Bloom filter: {}", f.describe());
        };
        assert_eq!(bloom.bytes(), 2 << 20);
        let pass = f
            .may_match(&[i64s(build.iter().map(|&k| Some(k)).collect())])
            .unwrap();
        assert_eq!(pass.count_set_bits(), build.len());
    }

    #[test]
    fn the_extreme_range_uses_hashes() {
        let build = vec![i64::MIN, 0, i64::MAX];
        let f =
            RuntimeFilter::build(&[vec![i64s(build.iter().map(|&k| Some(k)).collect())]]).unwrap();
        assert!(matches!(f.test, Test::Hashed(_)));
        check(&f, &build, -1000..1000);
    }

    #[test]
    fn no_keys_pass_nothing_and_nulls_are_not_keys() {
        let f = RuntimeFilter::build(&[vec![i64s(vec![None, None])], vec![i64s(vec![])]]).unwrap();
        assert!(f.passes_nothing() && f.worth_testing());
        assert_eq!(f.keys(), 0);
        let probe = i64s(vec![Some(1), None]);
        assert_eq!(f.may_match(&[probe]).unwrap().count_set_bits(), 0);
    }

    #[test]
    fn strings_floats_and_composite_keys_compare_as_the_join_does() {
        let s: ArrayRef = Arc::new(StringArray::from(vec![Some("ab"), None, Some("cd")]));
        let f = RuntimeFilter::build(&[vec![s]]).unwrap();
        let p: ArrayRef = Arc::new(StringArray::from(vec![Some("cd"), Some("zz"), None]));
        let got: Vec<bool> = f.may_match(&[p]).unwrap().iter().collect();
        assert_eq!(got, [true, false, false]);

        let x: ArrayRef = Arc::new(Float64Array::from(vec![0.0, f64::NAN]));
        let f = RuntimeFilter::build(&[vec![x]]).unwrap();
        let p: ArrayRef = Arc::new(Float64Array::from(vec![-0.0, -f64::NAN, 1.0]));
        let got: Vec<bool> = f.may_match(&[p]).unwrap().iter().collect();
        assert_eq!(got[..2], [true, true]);

        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(2), None]));
        let b: ArrayRef = Arc::new(StringArray::from(vec!["x", "y", "z"]));
        let f = RuntimeFilter::build(&[vec![a, b]]).unwrap();
        let pa: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(3), None]));
        let pb: ArrayRef = Arc::new(StringArray::from(vec!["x", "x", "z"]));
        let got: Vec<bool> = f.may_match(&[pa, pb]).unwrap().iter().collect();
        assert!(got[0]);
        assert!(!got[2], "a NULL in a composite key never matches");
        assert_eq!(f.keys(), 2);
    }

    #[test]
    fn other_types_are_refused() {
        let f = RuntimeFilter::build(&[vec![i64s(vec![Some(1)])]]).unwrap();
        let p: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        assert!(f.may_match(&[p]).is_err());
        assert!(f.may_match(&[]).is_err());
        assert!(RuntimeFilter::build(&[]).is_err());
        let a = i64s(vec![Some(1)]);
        let b: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        assert!(RuntimeFilter::build(&[vec![a], vec![b]]).is_err());
    }

    #[test]
    fn testing_stops_once_most_rows_pass() {
        let f = RuntimeFilter::build(&[vec![i64s((0..100).map(Some).collect())]]).unwrap();
        assert!(f.worth_testing());
        f.record(10_000, 9_000);
        assert!(!f.worth_testing());
        let g = RuntimeFilter::build(&[vec![i64s((0..100).map(Some).collect())]]).unwrap();
        g.record(10_000, 5_000);
        assert!(g.worth_testing());
        assert_eq!(g.counts(), (10_000, 5_000));
    }
}
