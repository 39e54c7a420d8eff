//! Deterministic pseudo-random numbers.
//!
//! Everything random in this crate comes from [`SplitMix64`], a tiny 64-bit
//! generator (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", 2014). Large columns are generated in fixed-size chunks, and
//! each chunk gets its own generator seeded from `(seed, stream, chunk index)`
//! by [`SplitMix64::for_chunk`], so the data does not depend on how many
//! threads fill it or in which order.

/// The 64-bit golden-ratio increment used by SplitMix64 (also the key
/// scrambling multiplier, see `columns::scramble`).
pub(crate) const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function: a bijective 64-bit mixer.
pub(crate) const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Maps the high 32 bits of `h` uniformly onto `0..n` (multiply-shift;
/// the bias is below `n / 2^32`, used only for small `n`).
pub(crate) const fn small_below(h: u64, n: u64) -> u64 {
    ((h >> 32) * n) >> 32
}

/// Independent random streams: one per purpose, so that e.g. the probe ids
/// and the build ids of a workload never share a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Stream {
    /// Join-key ids of the probe side.
    ProbeIds = 1,
    /// Join-key ids of the build side.
    BuildIds = 2,
    /// Row order (permutation) of the probe side.
    ProbeOrder = 3,
    /// Row order (permutation) of the build side.
    BuildOrder = 4,
    /// Zipf rank to build id mapping.
    ZipfRanks = 5,
    /// Extra column (`t` or `v`) of the probe side.
    ProbeExtra = 6,
    /// Extra column (`t` or `v`) of the build side.
    BuildExtra = 7,
    /// Which probe row of each block of 100 matches (low_match).
    MatchSlots = 8,
    /// Array lengths, NULL rows and elements (`arrays`).
    Arrays = 9,
}

/// SplitMix64: a 64-bit state advanced by [`GOLDEN_GAMMA`] and passed
/// through [`mix64`].
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub(crate) const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The seed of `stream` for the user seed `seed` (hashes both).
    const fn stream_seed(seed: u64, stream: Stream) -> u64 {
        mix64(seed ^ mix64((stream as u64).wrapping_mul(GOLDEN_GAMMA)))
    }

    /// A generator for chunk `chunk` of `stream`: seeded by hashing the
    /// stream seed together with the chunk index.
    pub(crate) const fn for_chunk(seed: u64, stream: Stream, chunk: u64) -> Self {
        let base = Self::stream_seed(seed, stream);
        Self::new(mix64(
            base ^ mix64(chunk.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA)),
        ))
    }

    /// The next 64 random bits.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }

    /// A uniform integer in `0..n` (Lemire's multiply-shift with rejection,
    /// so exactly uniform). `n` must be positive.
    #[inline]
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0, "below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform `f64` in `[0, 1)`, a multiple of `2^-53`.
    #[inline]
    pub(crate) fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_reference_outputs() {
        // Reference values of SplitMix64 seeded with 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = SplitMix64::new(7);
        let mut seen = [0usize; 7];
        for _ in 0..7_000 {
            let x = rng.below(7);
            assert!(x < 7);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_eq!(rng.below(1), 0);
        assert!(rng.below(u64::MAX) < u64::MAX);
    }

    #[test]
    fn unit_f64_is_in_half_open_unit_interval() {
        let mut rng = SplitMix64::new(3);
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let u = rng.unit_f64();
            assert!((0.0..1.0).contains(&u));
            sum += u;
        }
        assert!((sum / 10_000.0 - 0.5).abs() < 0.02);
    }

    #[test]
    fn chunk_generators_differ_between_chunks_streams_and_seeds() {
        let first = |seed, stream, chunk| SplitMix64::for_chunk(seed, stream, chunk).next_u64();
        let base = first(1, Stream::ProbeIds, 0);
        assert_ne!(base, first(1, Stream::ProbeIds, 1));
        assert_ne!(base, first(1, Stream::BuildIds, 0));
        assert_ne!(base, first(2, Stream::ProbeIds, 0));
        assert_eq!(base, first(1, Stream::ProbeIds, 0));
    }
}
