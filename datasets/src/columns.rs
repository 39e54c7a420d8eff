//! Column builders shared by all workloads: scrambled keys, the row-index
//! payload `p`, the string payload `s`, and the assembly of one side's
//! [`RecordBatch`].
//!
//! Random columns are filled in chunks of [`CHUNK_ROWS`] rows in parallel;
//! chunk `c` uses the generator `SplitMix64::for_chunk(seed, stream, c)`, so
//! the output is independent of the number of threads.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use rayon::prelude::*;

use crate::rng::{GOLDEN_GAMMA, SplitMix64, Stream, mix64, small_below};

/// Rows per independently seeded chunk.
pub(crate) const CHUNK_ROWS: usize = 1 << 14;

/// Shortest string payload, in bytes.
pub(crate) const MIN_STRING_LEN: usize = 4;
/// Longest string payload, in bytes.
pub(crate) const MAX_STRING_LEN: usize = 12;

/// The 32 characters string payloads are made of (lowercase base32).
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// The join key of integer id `id`: `id` times an odd 64-bit constant
/// (wrapping), reinterpreted as `i64`. Multiplication by an odd number is a
/// bijection on 64-bit integers, so distinct ids give distinct keys, while
/// consecutive ids land far apart (no dense key range to exploit).
#[inline]
pub(crate) const fn scramble(id: u64) -> i64 {
    id.wrapping_mul(GOLDEN_GAMMA) as i64
}

/// Which side of the join a table is; salts the string payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The big/left side.
    Probe,
    /// The small/right side.
    Build,
}

impl Side {
    /// Salt mixed into the string payload hash.
    const fn salt(self) -> u64 {
        match self {
            Side::Probe => 0x7072_6F62_6500_0000, // "probe"
            Side::Build => 0x6275_696C_6400_0000, // "build"
        }
    }
}

/// A column of `n` values where row `i` is `value(rng, i)`; `rng` is the
/// generator of the row's chunk and is advanced row by row.
pub(crate) fn fill_random<F>(n: usize, seed: u64, stream: Stream, value: F) -> Vec<i64>
where
    F: Fn(&mut SplitMix64, usize) -> i64 + Sync,
{
    let mut out = vec![0i64; n];
    out.par_chunks_mut(CHUNK_ROWS)
        .enumerate()
        .for_each(|(chunk, slots)| {
            let mut rng = SplitMix64::for_chunk(seed, stream, chunk as u64);
            let first = chunk * CHUNK_ROWS;
            for (offset, slot) in slots.iter_mut().enumerate() {
                *slot = value(&mut rng, first + offset);
            }
        });
    out
}

/// The hash of row `row` of `side` that its string payload is made from.
#[inline]
fn string_hash(side: Side, row: usize) -> u64 {
    mix64(row as u64 ^ side.salt())
}

/// Length of the string payload with hash `h`: 4 to 12 bytes.
#[inline]
fn string_len(h: u64) -> usize {
    MIN_STRING_LEN + small_below(h, (MAX_STRING_LEN - MIN_STRING_LEN + 1) as u64) as usize
}

/// Writes the characters of the string payload with hash `h` into `out`
/// (whose length is `string_len(h)`): 5 bits of a second hash per character.
#[inline]
fn write_string(h: u64, out: &mut [u8]) {
    let bits = mix64(h ^ GOLDEN_GAMMA);
    for (j, c) in out.iter_mut().enumerate() {
        *c = ALPHABET[((bits >> (5 * j)) & 31) as usize];
    }
}

/// The `s` column of `side` with `n` rows. Built in three parallel passes:
/// bytes per chunk, then offsets and values written into one pre-sized
/// buffer each.
///
/// # Panics
/// If the values exceed `i32::MAX` bytes (the limit of `Utf8` offsets),
/// i.e. beyond roughly 250 million rows.
pub(crate) fn string_column(side: Side, n: usize) -> StringArray {
    let chunk_count = n.div_ceil(CHUNK_ROWS);
    let chunk_rows = |chunk: usize| chunk * CHUNK_ROWS..((chunk + 1) * CHUNK_ROWS).min(n);
    let chunk_bytes: Vec<usize> = (0..chunk_count)
        .into_par_iter()
        .map(|chunk| {
            chunk_rows(chunk)
                .map(|row| string_len(string_hash(side, row)))
                .sum()
        })
        .collect();
    let total: usize = chunk_bytes.iter().sum();
    assert!(
        i32::try_from(total).is_ok(),
        "string column of {n} rows needs {total} bytes, more than Utf8 offsets allow"
    );

    let mut values = vec![0u8; total];
    let mut offsets = vec![0i32; n + 1];
    let mut value_chunks = Vec::with_capacity(chunk_count);
    let mut rest = values.as_mut_slice();
    let mut start = 0usize;
    for &bytes in &chunk_bytes {
        let (head, tail) = rest.split_at_mut(bytes);
        value_chunks.push((start, head));
        rest = tail;
        start += bytes;
    }
    offsets[1..]
        .par_chunks_mut(CHUNK_ROWS)
        .zip(value_chunks)
        .enumerate()
        .for_each(|(chunk, (ends, (start, bytes)))| {
            let mut written = 0usize;
            for (row, end) in chunk_rows(chunk).zip(ends.iter_mut()) {
                let h = string_hash(side, row);
                let len = string_len(h);
                write_string(h, &mut bytes[written..written + len]);
                written += len;
                // Fits: the total was checked against i32::MAX above.
                *end = (start + written) as i32;
            }
        });

    StringArray::new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        None,
    )
}

/// One side's batch: `k` (the given keys), `p` (row index), `s` (string
/// payload), then the optional extra `Int64` column (`t` or `v`).
pub(crate) fn side_batch(
    side: Side,
    keys: Vec<i64>,
    extra: Option<(&'static str, Vec<i64>)>,
) -> RecordBatch {
    let n = keys.len();
    let mut fields = vec![
        Field::new("k", DataType::Int64, false),
        Field::new("p", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ];
    let row_index: Vec<i64> = (0..n as i64).into_par_iter().collect();
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::new(ScalarBuffer::from(keys), None)),
        Arc::new(Int64Array::new(ScalarBuffer::from(row_index), None)),
        Arc::new(string_column(side, n)),
    ];
    if let Some((name, values)) = extra {
        assert_eq!(values.len(), n, "extra column {name} has the wrong length");
        fields.push(Field::new(name, DataType::Int64, false));
        columns.push(Arc::new(Int64Array::new(ScalarBuffer::from(values), None)));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .expect("columns match the schema by construction")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn scramble_is_invertible_so_distinct_ids_give_distinct_keys() {
        // Modular inverse of the odd multiplier (Newton iteration mod 2^64).
        let mut inverse = GOLDEN_GAMMA;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(GOLDEN_GAMMA.wrapping_mul(inverse)));
        }
        for id in (0..10_000u64).chain([u64::MAX, 1 << 40, 123_456_789_012]) {
            assert_eq!((scramble(id) as u64).wrapping_mul(inverse), id);
        }
        assert_eq!(scramble(0), 0);
        assert_eq!(scramble(1), GOLDEN_GAMMA as i64);
    }

    #[test]
    fn fill_random_is_independent_of_thread_count() {
        let fill = || {
            fill_random(100_000, 9, Stream::ProbeIds, |rng, row| {
                (rng.below(1_000) + row as u64) as i64
            })
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(fill);
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(fill);
        assert_eq!(one, four);
    }

    #[test]
    fn string_payload_is_4_to_12_base32_chars() {
        let column = string_column(Side::Probe, 3 * CHUNK_ROWS + 17);
        assert_eq!(column.len(), 3 * CHUNK_ROWS + 17);
        assert_eq!(column.null_count(), 0);
        let mut lengths = [0usize; MAX_STRING_LEN + 1];
        for value in column.iter().flatten() {
            assert!(value.bytes().all(|b| ALPHABET.contains(&b)), "{value}");
            lengths[value.len()] += 1;
        }
        assert!(lengths[..MIN_STRING_LEN].iter().all(|&c| c == 0));
        assert!(
            lengths[MIN_STRING_LEN..].iter().all(|&c| c > 0),
            "{lengths:?}"
        );
    }

    #[test]
    fn string_payload_differs_between_sides() {
        let probe = string_column(Side::Probe, 100);
        let build = string_column(Side::Build, 100);
        assert_ne!(probe, build);
        assert_eq!(probe, string_column(Side::Probe, 100));
    }

    #[test]
    fn side_batch_has_k_p_s_and_extra_column() {
        let batch = side_batch(Side::Build, vec![5, 6, 7], Some(("t", vec![1, 2, 3])));
        let names: Vec<_> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["k", "p", "s", "t"]);
        assert!(batch.schema().fields().iter().all(|f| !f.is_nullable()));
        let p = batch
            .column(1)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(p.values().as_ref(), &[0, 1, 2]);
        assert_eq!(side_batch(Side::Probe, vec![], None).num_rows(), 0);
    }
}
