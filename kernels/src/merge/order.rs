//! The order keys are sorted and merged in.
//!
//! Every key becomes a sort key `K` (a `u64` or `u128`) that orders like the
//! key itself, plus, for byte keys, a tie-break on the bytes when two sort
//! keys are equal:
//!
//! | key                         | `K`                                          | tie-break |
//! |-----------------------------|----------------------------------------------|-----------|
//! | one fixed-width column      | an order-preserving image of the value (below) | none    |
//! | one `Decimal128`            | the value with its sign bit flipped          | none      |
//! | one string/binary column    | SQL order: its first 8 bytes, big-endian, zero-padded; hash order: its 64-bit hash | the bytes |
//! | composite or other (arrow-row) | as string/binary, over the row encoding  | the bytes |
//!
//! Images of fixed-width values: signed integers (and dates, times,
//! timestamps, durations, decimals) have their sign bit flipped, unsigned
//! ones and booleans are used as they are, floats (already canonical:
//! `-0.0` is `0.0`, every NaN one NaN) are mapped to the usual total-order
//! bit pattern, which puts NaN above `+inf`, and a `IntervalDayTime` is
//! ordered by days, then milliseconds.
//!
//! *SQL order* is the order of the values, the order a presorted input is
//! declared in. When neither input is declared presorted, byte keys use
//! *hash order* instead (hash, then bytes): any total order consistent with
//! equality is enough to merge, and a hash spreads keys over all 64 bits,
//! which the radix sort likes, where string prefixes often share bytes.

use std::cmp::Ordering;

use arrow_array::RecordBatch;
use arrow_array::{ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_buffer::NullBuffer;
use arrow_row::Rows;
use arrow_schema::{DataType, IntervalUnit, SchemaRef};
use rayon::prelude::*;

use super::sort::{Entry, SortableKey};
use crate::error::Result;
use crate::keys::{ByteRows, BytesKeys, KeyKind, KeySource, U64Keys, U128Keys, key_nulls};
use crate::rows::BatchList;

/// How a fixed-width key's 64-bit word becomes an order-preserving image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageConv {
    /// Two's complement: flip the sign bit.
    Signed,
    /// Unsigned integers and booleans: as they are.
    Unsigned,
    /// A canonical `f32` in the low 32 bits.
    F32,
    /// A canonical `f64`.
    F64,
    /// `IntervalDayTime`: days (low half), then milliseconds (high half).
    DayTime,
}

impl ImageConv {
    /// The conversion of a key column of type `t`.
    pub(crate) fn for_type(t: &DataType) -> Self {
        use DataType::*;
        match t {
            UInt8 | UInt16 | UInt32 | UInt64 | Boolean => ImageConv::Unsigned,
            Float32 => ImageConv::F32,
            Float64 => ImageConv::F64,
            Interval(IntervalUnit::DayTime) => ImageConv::DayTime,
            _ => ImageConv::Signed,
        }
    }

    /// The image of one word.
    #[inline(always)]
    pub(crate) fn image(self, w: u64) -> u64 {
        match self {
            ImageConv::Signed => w ^ (1 << 63),
            ImageConv::Unsigned => w,
            ImageConv::F64 => {
                if w >> 63 == 1 {
                    !w
                } else {
                    w | 1 << 63
                }
            }
            ImageConv::F32 => {
                let b = w as u32;
                (if b >> 31 == 1 { !b } else { b | 1 << 31 }) as u64
            }
            ImageConv::DayTime => {
                let days = (w as u32) ^ (1 << 31);
                let ms = ((w >> 32) as u32) ^ (1 << 31);
                (days as u64) << 32 | ms as u64
            }
        }
    }
}

/// What the sort keys of a join are made of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OrderSpec {
    /// The image of fixed-width keys.
    pub conv: ImageConv,
    /// Byte keys in hash order (no input is presorted) rather than SQL order.
    pub hash_order: bool,
}

/// One side's keys, encoded batch by batch and addressed by global row.
pub(crate) struct SideKeys<'a, S> {
    /// The side's batches (also what its output columns are gathered from).
    pub list: BatchList<'a>,
    /// The encoded keys of each batch.
    pub keys: Vec<S>,
    /// The key validity of each batch (`None`: no NULL keys).
    pub nulls: Vec<Option<NullBuffer>>,
}

impl<'a, S: KeySource> SideKeys<'a, S> {
    /// Encodes the key columns `cols` of every batch, in parallel.
    pub(crate) fn encode(
        kind: &KeyKind,
        schema: SchemaRef,
        batches: &'a [RecordBatch],
        cols: &[usize],
        null_equal: bool,
    ) -> Result<Self> {
        let enc: Vec<(S, Option<NullBuffer>)> = batches
            .par_iter()
            .map(|b| {
                let c: Vec<ArrayRef> = cols.iter().map(|&k| b.column(k).clone()).collect();
                Ok((S::encode(kind, &c)?, key_nulls(&c, kind, null_equal)))
            })
            .collect::<Result<_>>()?;
        let (keys, nulls) = enc.into_iter().unzip();
        Ok(SideKeys {
            list: BatchList::new(schema, batches),
            keys,
            nulls,
        })
    }

    /// Rows.
    pub(crate) fn num_rows(&self) -> usize {
        self.list.num_rows()
    }
}

impl<B: ByteRows> SideKeys<'_, BytesKeys<B>> {
    /// The key bytes of global row `row`.
    #[inline]
    fn bytes(&self, row: u32) -> &[u8] {
        let (b, r) = self.list.locate(row as usize);
        self.keys[b].rows.bytes(r)
    }
}

/// A key encoding the sort-merge join can order (see the module docs).
pub(crate) trait SortKey: KeySource {
    /// The sort key.
    type K: SortableKey;
    /// Whether equal sort keys may still be different keys (then
    /// [`SortKey::tie`] orders them).
    const TIE: bool;
    /// The sort key of row `i` of one batch's keys.
    fn local_key(keys: &Self, i: usize, spec: &OrderSpec) -> Self::K;
    /// The sort key of global row `row` of a side.
    #[inline]
    fn key_of(side: &SideKeys<'_, Self>, row: u32, spec: &OrderSpec) -> Self::K {
        let (b, r) = side.list.locate(row as usize);
        Self::local_key(&side.keys[b], r, spec)
    }
    /// Orders two rows whose sort keys are equal.
    fn tie(a: &SideKeys<'_, Self>, ra: u32, b: &SideKeys<'_, Self>, rb: u32) -> Ordering;
}

/// The order of entry `a` of side `ak` and entry `b` of side `bk`.
#[inline(always)]
pub(crate) fn order<S: SortKey>(
    a: &Entry<S::K>,
    ak: &SideKeys<'_, S>,
    b: &Entry<S::K>,
    bk: &SideKeys<'_, S>,
) -> Ordering {
    match a.key.cmp(&b.key) {
        Ordering::Equal if S::TIE => S::tie(ak, a.row, bk, b.row),
        o => o,
    }
}

impl SortKey for U64Keys {
    type K = u64;
    const TIE: bool = false;

    #[inline(always)]
    fn local_key(keys: &Self, i: usize, spec: &OrderSpec) -> u64 {
        spec.conv.image(keys.tag(i))
    }

    #[inline]
    fn tie(_: &SideKeys<'_, Self>, _: u32, _: &SideKeys<'_, Self>, _: u32) -> Ordering {
        Ordering::Equal
    }
}

impl SortKey for U128Keys {
    type K = u128;
    const TIE: bool = false;

    #[inline(always)]
    fn local_key(keys: &Self, i: usize, _spec: &OrderSpec) -> u128 {
        keys.tag(i) ^ (1 << 127)
    }

    #[inline]
    fn tie(_: &SideKeys<'_, Self>, _: u32, _: &SideKeys<'_, Self>, _: u32) -> Ordering {
        Ordering::Equal
    }
}

/// The first 8 bytes of `b`, big-endian, zero-padded: ordered like `b`
/// except between keys that share those bytes.
#[inline]
fn prefix(b: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = b.len().min(8);
    buf[..n].copy_from_slice(&b[..n]);
    u64::from_be_bytes(buf)
}

macro_rules! bytes_sort_key {
    ($b:ty) => {
        impl SortKey for BytesKeys<$b> {
            type K = u64;
            const TIE: bool = true;

            #[inline]
            fn local_key(keys: &Self, i: usize, spec: &OrderSpec) -> u64 {
                if spec.hash_order {
                    keys.tag(i)
                } else {
                    prefix(keys.rows.bytes(i))
                }
            }

            #[inline]
            fn tie(a: &SideKeys<'_, Self>, ra: u32, b: &SideKeys<'_, Self>, rb: u32) -> Ordering {
                a.bytes(ra).cmp(b.bytes(rb))
            }
        }
    };
}

bytes_sort_key!(BinaryArray);
bytes_sort_key!(LargeBinaryArray);
bytes_sort_key!(BinaryViewArray);
bytes_sort_key!(Rows);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_keep_sql_order() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        let img: Vec<u64> = ints
            .iter()
            .map(|&v| ImageConv::Signed.image(v as u64))
            .collect();
        assert!(img.windows(2).all(|w| w[0] < w[1]));
        let floats = [
            f64::NEG_INFINITY,
            -2.5,
            -0.5,
            0.0,
            1e-300,
            3.0,
            f64::INFINITY,
        ];
        let mut img: Vec<u64> = floats
            .iter()
            .map(|&v| ImageConv::F64.image(v.to_bits()))
            .collect();
        img.push(ImageConv::F64.image(f64::NAN.to_bits()));
        assert!(img.windows(2).all(|w| w[0] < w[1]));
        let f32s = [-1.5f32, 0.0, 2.0, f32::NAN];
        let img: Vec<u64> = f32s
            .iter()
            .map(|&v| ImageConv::F32.image(v.to_bits() as u64))
            .collect();
        assert!(img.windows(2).all(|w| w[0] < w[1]));
        // (days, ms): (-1, 5) < (0, -3) < (0, 2) < (1, 0)
        let dt = |d: i32, m: i32| (d as u32 as u64) | ((m as u32 as u64) << 32);
        let img: Vec<u64> = [dt(-1, 5), dt(0, -3), dt(0, 2), dt(1, 0)]
            .iter()
            .map(|&w| ImageConv::DayTime.image(w))
            .collect();
        assert!(img.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn byte_prefixes_order_like_bytes() {
        let keys: [&[u8]; 6] = [b"", b"\0", b"a", b"a\0", b"ab", b"abcdefghij"];
        for w in keys.windows(2) {
            assert!(prefix(w[0]) <= prefix(w[1]), "{:?} {:?}", w[0], w[1]);
        }
    }
}
