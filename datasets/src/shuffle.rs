//! Random permutations of `0..n`, generated in parallel.
//!
//! A sequential Fisher–Yates shuffle of 10M ids spends most of its time on
//! cache misses. [`shuffled`] instead uses a two-level scheme: every id is
//! sent to one of `B` buckets chosen uniformly at random (in parallel, one
//! seeded generator per chunk of ids), the buckets are laid out one after
//! another in bucket order, and each bucket (small enough to stay in cache)
//! is Fisher–Yates shuffled with its own seeded generator. Given the bucket
//! sizes `s_1..s_B`, any fixed permutation is produced with probability
//! `B^-n * prod(1 / s_b!)` summed over the same size vectors, which does not
//! depend on the permutation: the result is a uniformly random permutation.
//! `B` and the chunking depend only on `n`, so the output depends only on
//! `(n, seed, stream)`, never on the number of threads.

use rayon::prelude::*;

use crate::columns::CHUNK_ROWS;
use crate::rng::{SplitMix64, Stream};

/// Target number of ids per bucket (256 KiB of 8-byte outputs).
const BUCKET_IDS: usize = 1 << 15;

/// Fisher–Yates shuffle of `values` driven by `rng`.
fn shuffle_in_place<T>(values: &mut [T], rng: &mut SplitMix64) {
    for i in (1..values.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        values.swap(i, j);
    }
}

/// The ids of chunk `chunk` grouped by their random bucket, and where each
/// bucket's group starts (`buckets + 1` entries). The bucket draws are made
/// twice from the same generator state (count, then place), so they need no
/// storage.
fn group_chunk(
    chunk: usize,
    n: usize,
    buckets: usize,
    seed: u64,
    stream: Stream,
) -> (Vec<u32>, Vec<usize>) {
    let ids = chunk * CHUNK_ROWS..((chunk + 1) * CHUNK_ROWS).min(n);
    let rng = SplitMix64::for_chunk(seed, stream, 2 * chunk as u64);
    let mut starts = vec![0usize; buckets + 1];
    let mut count_rng = rng.clone();
    for _ in ids.clone() {
        starts[count_rng.below(buckets as u64) as usize + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut cursor = starts.clone();
    let mut grouped = vec![0u32; ids.len()];
    let mut place_rng = rng;
    for id in ids {
        let bucket = place_rng.below(buckets as u64) as usize;
        // Fits: `shuffled` checks that n <= 2^32.
        grouped[cursor[bucket]] = id as u32;
        cursor[bucket] += 1;
    }
    (grouped, starts)
}

/// A uniformly random permutation of the ids `0..n`, each passed through
/// `map` (e.g. key scrambling), determined by `(n, seed, stream)`.
pub(crate) fn shuffled<T, F>(n: usize, seed: u64, stream: Stream, map: F) -> Vec<T>
where
    T: Copy + Default + Send + Sync,
    F: Fn(u64) -> T + Sync,
{
    assert!(n as u64 <= 1 << 32, "cannot shuffle more than 2^32 ids");
    let buckets = n.div_ceil(BUCKET_IDS).max(1);
    let chunks: Vec<(Vec<u32>, Vec<usize>)> = (0..n.div_ceil(CHUNK_ROWS))
        .into_par_iter()
        .map(|chunk| group_chunk(chunk, n, buckets, seed, stream))
        .collect();

    let mut out = vec![T::default(); n];
    let mut slices = Vec::with_capacity(buckets);
    let mut rest = out.as_mut_slice();
    for bucket in 0..buckets {
        let size: usize = chunks.iter().map(|(_, s)| s[bucket + 1] - s[bucket]).sum();
        let (head, tail) = rest.split_at_mut(size);
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .enumerate()
        .for_each(|(bucket, slots)| {
            let ids = chunks
                .iter()
                .flat_map(|(grouped, starts)| &grouped[starts[bucket]..starts[bucket + 1]]);
            for (slot, &id) in slots.iter_mut().zip(ids) {
                *slot = map(u64::from(id));
            }
            let mut rng = SplitMix64::for_chunk(seed, stream, 2 * bucket as u64 + 1);
            shuffle_in_place(slots, &mut rng);
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffled_contains_every_id_once() {
        for n in [0, 1, 2, 1_000, 3 * BUCKET_IDS + 5] {
            let perm = shuffled(n, 11, Stream::BuildOrder, |id| id);
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n as u64).collect::<Vec<u64>>(), "n={n}");
            if n >= 1_000 {
                assert_ne!(
                    perm, sorted,
                    "a shuffle of {n} ids should not be the identity"
                );
            }
        }
    }

    #[test]
    fn shuffled_applies_the_map() {
        let doubled = shuffled(100, 1, Stream::ProbeOrder, |id| id * 2);
        assert!(doubled.iter().all(|v| v % 2 == 0));
        let plain = shuffled(100, 1, Stream::ProbeOrder, |id| id);
        assert_eq!(doubled, plain.iter().map(|v| v * 2).collect::<Vec<_>>());
    }

    #[test]
    fn shuffled_is_independent_of_thread_count() {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| shuffled(2 * BUCKET_IDS + 77, 3, Stream::ZipfRanks, |id| id))
        };
        assert_eq!(run(1), run(3));
    }

    #[test]
    fn every_position_is_equally_likely_for_a_small_permutation() {
        // 6000 permutations of 3 ids: each of the 6 orders about 1000 times.
        let mut counts = std::collections::HashMap::new();
        for seed in 0..6_000 {
            *counts
                .entry(shuffled(3, seed, Stream::BuildOrder, |id| id))
                .or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        assert!(
            counts.values().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn first_id_lands_anywhere_across_buckets() {
        // With several buckets, id 0 must be able to reach every bucket.
        let n = 4 * BUCKET_IDS;
        let mut positions_seen = std::collections::HashSet::new();
        for seed in 0..32 {
            let perm = shuffled(n, seed, Stream::ProbeOrder, |id| id);
            let position = perm.iter().position(|&id| id == 0).unwrap();
            positions_seen.insert(position / BUCKET_IDS);
        }
        assert_eq!(positions_seen.len(), 4, "{positions_seen:?}");
    }
}
