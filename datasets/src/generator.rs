//! Materializing a [`Workload`] into probe and build [`RecordBatch`]es.

use arrow_array::RecordBatch;

use crate::Workload;
use crate::columns::{Side, fill_random, scramble, side_batch};
use crate::rng::{SplitMix64, Stream, small_below};
use crate::shuffle::shuffled;
use crate::zipf::ZipfTable;

/// Zipf exponent of the `zipf` workload.
pub(crate) const ZIPF_EXPONENT: f64 = 1.1;
/// Distinct key ids of `m2n` at scale 1.0 (scaled like the row counts).
pub(crate) const M2N_FULL_IDS: usize = 100_000;
/// Distinct key ids of `band` at scale 1.0 (scaled like the row counts).
pub(crate) const BAND_FULL_IDS: usize = 1_000;
/// `band` times are uniform in `0..BAND_T_RANGE`. For independent uniform
/// integers on `0..T`, `P(|a - b| <= 10) = (21 T - 110) / T^2`, which is
/// 0.99988% for `T = 2095` (the root of `(21 T - 110) / T^2 = 1%`).
pub(crate) const BAND_T_RANGE: u64 = 2_095;
/// Distinct key ids of `interval` at scale 1.0 (scaled like the row counts).
pub(crate) const INTERVAL_FULL_IDS: usize = 10_000;
/// Distinct key ids (symbols) of `asof` at scale 1.0 (scaled like the row
/// counts, so each key keeps about 10K trades and 1K quotes).
pub(crate) const ASOF_FULL_IDS: usize = 1_000;
/// `interval` and `asof` times are uniform over one day in microseconds
/// (`0..DAY_US`). For `interval`, a pair of one key is within 5 minutes
/// with probability about `600 / 86400`.
pub(crate) const DAY_US: u64 = 86_400_000_000;
/// `nlj` values are uniform in `0..NLJ_V_RANGE`.
pub(crate) const NLJ_V_RANGE: u64 = 1_000_000_000;
/// `low_match` has exactly one matching probe row per block of this many
/// consecutive rows.
pub(crate) const LOW_MATCH_BLOCK: usize = 100;

/// The two tables of a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    /// The big/left side (the side probed against the hash table).
    pub probe: RecordBatch,
    /// The small/right side (the side the hash table is built from).
    pub build: RecordBatch,
}

/// `full * scale`, rounded to nearest, at least 1.
fn scaled(full: usize, scale: f64) -> usize {
    ((full as f64 * scale).round() as usize).max(1)
}

/// Generates `workload` at `scale` (row counts are
/// [`Workload::full_size`] times `scale`, rounded, at least one row per
/// side; `m2n`, `band`, `interval` and `asof` scale their number of
/// distinct key ids the same way). The output is a pure function of `(workload, scale, seed)`: it does
/// not depend on the number of rayon threads.
///
/// Each side has the non-null columns `k: Int64` (join key), `p: Int64`
/// (row index within its table), `s: Utf8` (4 to 12 characters hashed from
/// the side and row index); `band`, `interval` and `asof` append `t: Int64`
/// (for `interval` and `asof`, microseconds: the bench reads it as a
/// timestamp) and `nlj` appends `v: Int64`. See the crate README for each workload's distribution.
///
/// # Panics
/// If `scale` is not a finite positive number, or a side is so large that
/// its `s` column would exceed `i32::MAX` bytes (about 250M rows).
pub fn generate(workload: Workload, scale: f64, seed: u64) -> Tables {
    assert!(
        scale.is_finite() && scale > 0.0,
        "scale must be a finite positive number, got {scale}"
    );
    let (full_probe, full_build) = workload.full_size();
    let probe_rows = scaled(full_probe, scale);
    let build_rows = scaled(full_build, scale);
    let (probe, build) = match workload {
        Workload::FkSmall | Workload::FkMedium => rayon::join(
            || uniform_side(Side::Probe, probe_rows, build_rows as u64, seed, None),
            || shuffled_side(Side::Build, build_rows, seed),
        ),
        Workload::FkLarge => rayon::join(
            || shuffled_side(Side::Probe, probe_rows, seed),
            || shuffled_side(Side::Build, build_rows, seed),
        ),
        Workload::Zipf => rayon::join(
            || zipf_probe(probe_rows, build_rows, seed),
            || shuffled_side(Side::Build, build_rows, seed),
        ),
        Workload::LowMatch => rayon::join(
            || low_match_probe(probe_rows, build_rows, seed),
            || shuffled_side(Side::Build, build_rows, seed),
        ),
        Workload::M2n => {
            let ids = scaled(M2N_FULL_IDS, scale) as u64;
            rayon::join(
                || uniform_side(Side::Probe, probe_rows, ids, seed, None),
                || uniform_side(Side::Build, build_rows, ids, seed, None),
            )
        }
        Workload::Band | Workload::Interval | Workload::Asof => {
            let (ids, range) = match workload {
                Workload::Band => (BAND_FULL_IDS, BAND_T_RANGE),
                Workload::Interval => (INTERVAL_FULL_IDS, DAY_US),
                _ => (ASOF_FULL_IDS, DAY_US),
            };
            let ids = scaled(ids, scale) as u64;
            rayon::join(
                || uniform_side(Side::Probe, probe_rows, ids, seed, Some(("t", range))),
                || uniform_side(Side::Build, build_rows, ids, seed, Some(("t", range))),
            )
        }
        Workload::Nlj => rayon::join(
            || nlj_side(Side::Probe, probe_rows, seed),
            || nlj_side(Side::Build, build_rows, seed),
        ),
    };
    Tables { probe, build }
}

/// The id, order and extra-column streams of a side.
fn streams(side: Side) -> (Stream, Stream, Stream) {
    match side {
        Side::Probe => (Stream::ProbeIds, Stream::ProbeOrder, Stream::ProbeExtra),
        Side::Build => (Stream::BuildIds, Stream::BuildOrder, Stream::BuildExtra),
    }
}

/// `rows` rows holding each id of `0..rows` exactly once, in random order.
fn shuffled_side(side: Side, rows: usize, seed: u64) -> RecordBatch {
    let (_, order, _) = streams(side);
    side_batch(side, shuffled(rows, seed, order, scramble), None)
}

/// `rows` rows with ids uniform in `0..ids`, plus optionally an extra column
/// `(name, range)` uniform in `0..range`.
fn uniform_side(
    side: Side,
    rows: usize,
    ids: u64,
    seed: u64,
    extra: Option<(&'static str, u64)>,
) -> RecordBatch {
    let (id_stream, _, extra_stream) = streams(side);
    let keys = fill_random(rows, seed, id_stream, |rng, _| scramble(rng.below(ids)));
    let extra = extra.map(|(name, range)| {
        (
            name,
            fill_random(rows, seed, extra_stream, |rng, _| rng.below(range) as i64),
        )
    });
    side_batch(side, keys, extra)
}

/// The `zipf` rank-to-key mapping: rank `r` (0 = hottest) is the key of
/// build id `perm[r]`, where `perm` is a random permutation of the build ids.
pub(crate) fn zipf_rank_keys(build_rows: usize, seed: u64) -> Vec<i64> {
    shuffled(build_rows, seed, Stream::ZipfRanks, scramble)
}

/// `zipf` probe side: Zipf(1.1) ranks over the build ids, mapped through
/// [`zipf_rank_keys`].
fn zipf_probe(rows: usize, build_rows: usize, seed: u64) -> RecordBatch {
    let (table, rank_keys) = rayon::join(
        || ZipfTable::new(build_rows, ZIPF_EXPONENT),
        || zipf_rank_keys(build_rows, seed),
    );
    let keys = fill_random(rows, seed, Stream::ProbeIds, |rng, _| {
        rank_keys[table.sample(rng.unit_f64())]
    });
    side_batch(Side::Probe, keys, None)
}

/// Whether probe row `row` of `low_match` is the matching row of its block.
pub(crate) fn low_match_row_matches(row: usize, seed: u64) -> bool {
    let block = (row / LOW_MATCH_BLOCK) as u64;
    let slot = small_below(
        SplitMix64::for_chunk(seed, Stream::MatchSlots, block).next_u64(),
        LOW_MATCH_BLOCK as u64,
    );
    (row % LOW_MATCH_BLOCK) as u64 == slot
}

/// `low_match` probe side: one row per block of 100 draws an id uniform in
/// the build ids `0..build_rows`; the others draw from the disjoint range
/// `build_rows..build_rows + rows`.
fn low_match_probe(rows: usize, build_rows: usize, seed: u64) -> RecordBatch {
    let build_ids = build_rows as u64;
    let keys = fill_random(rows, seed, Stream::ProbeIds, |rng, row| {
        let id = if low_match_row_matches(row, seed) {
            rng.below(build_ids)
        } else {
            build_ids + rng.below(rows as u64)
        };
        scramble(id)
    });
    side_batch(Side::Probe, keys, None)
}

/// `nlj` side: key id = row index, `v` uniform in `0..NLJ_V_RANGE`.
fn nlj_side(side: Side, rows: usize, seed: u64) -> RecordBatch {
    let (_, _, extra_stream) = streams(side);
    let keys = (0..rows as u64).map(scramble).collect();
    let v = fill_random(rows, seed, extra_stream, |rng, _| {
        rng.below(NLJ_V_RANGE) as i64
    });
    side_batch(side, keys, Some(("v", v)))
}

#[cfg(test)]
mod tests;
