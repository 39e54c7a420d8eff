//! Join keys, normalized once per batch so that the hash table is written
//! once, not once per Arrow type.
//!
//! A join's key columns are classified once ([`KeyKind::try_new`]) into one
//! of a few encodings, each a [`KeySource`]:
//!
//! | key columns                                   | encoding      | tag stored in the table |
//! |-----------------------------------------------|---------------|-------------------------|
//! | one integer, date, time, timestamp, duration, decimal32/64, float, boolean | [`U64Keys`] | the key's 64-bit pattern |
//! | one `Decimal128`                              | [`U128Keys`]  | the key's 128 bits      |
//! | two columns, each of a one-column 64-bit kind (not null-equal) | [`U128Keys`] | both keys' 64-bit words side by side |
//! | one Utf8/Binary, LargeUtf8/LargeBinary, Utf8View/BinaryView | [`BytesKeys`] | a 64-bit hash, confirmed by comparing bytes |
//! | more columns, or any other type               | [`BytesKeys`] over arrow-row [`Rows`] | a 64-bit hash, confirmed by comparing rows |
//!
//! Two-column keys of fixed-width types (TPC-H's `(partkey, suppkey)`) are
//! the common composite key: as one 128-bit word they are hashed with two
//! multiplies and compared with one comparison, where arrow-row would
//! encode every row's bytes, hash them and confirm a match with `memcmp`.
//! The sort-merge join keeps arrow-row for them: it orders keys by their
//! encoding, and the packed word does not order like the columns.
//!
//! 64-bit keys are used in place (no copy); narrower ones are widened.
//! Floats are canonicalized first (`-0.0` becomes `0.0`, every NaN the same
//! NaN), so `0.0 = -0.0` matches and NaN matches NaN, as in PostgreSQL and
//! DuckDB.
//!
//! # Float semantics (all of tenon)
//!
//! tenon compares floats one way everywhere, as DuckDB and PostgreSQL do:
//! `-0.0 = 0.0`; every NaN (either sign bit, any payload) equals every NaN
//! and is greater than every other value, `+inf` included; NULL is
//! unknown as always. [`canonical_floats`] is the one definition: after it,
//! Arrow's total order of floats *is* that order. Join keys in every
//! kernel (hash, sort-merge, nested loop, as-of, range conditions), GROUP BY,
//! DISTINCT, INTERSECT / EXCEPT, the comparisons of filters and join
//! predicates (`=, <>, <, <=, >, >=`, BETWEEN, IN, IS [NOT] DISTINCT
//! FROM), ORDER BY (NaN last ascending, `-0.0` and `0.0` tie) and
//! MIN / MAX (a NaN is the max) all canonicalize before comparing. Values
//! themselves are not changed in results (a `-0.0` is shown as `-0.0`)
//! except where an operator returns a compared value: GROUP BY / DISTINCT
//! keys and MIN / MAX give the canonical value (`0.0`, `NaN`).
//!
//! NULLs: the validity of the key (for several columns: NULL when any column
//! is NULL, unless the join is null-equal, in which case arrow-row's encoding
//! of NULL takes part in the comparison and the key is never NULL).

use std::sync::Arc;

use arrow_array::ArrowPrimitiveType;
use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float16Type, Float32Type, Float64Type};

/// Arrow's half-precision float (the `half` crate's, not re-exported).
type F16 = <Float16Type as ArrowPrimitiveType>::Native;
use arrow_array::{Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::DataType;

use crate::error::{KernelError, Result};

/// How one side's key columns become hashable keys; the same for both sides.
#[derive(Debug, Clone)]
pub(crate) enum KeyKind {
    /// One fixed-width column of at most 8 bytes.
    U64(WordConv),
    /// One `Decimal128` column.
    U128,
    /// Two columns of one-column 64-bit kinds, side by side in 128 bits
    /// (the first in the low half). Not for null-equal keys, whose NULLs
    /// are values (see [`KeyKind::for_join`]).
    Pair(WordConv, WordConv),
    /// One Utf8/Binary column (read as bytes).
    Binary,
    /// One LargeUtf8/LargeBinary column.
    LargeBinary,
    /// One Utf8View/BinaryView column.
    BinaryView,
    /// Anything else: arrow-row normalized keys.
    Rows(Arc<RowConverter>),
}

/// How a fixed-width column is read as 64-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WordConv {
    /// Eight bytes a value: used as they are.
    Bits64,
    /// Signed, this many bytes: sign-extended.
    Signed(u8),
    /// Unsigned, this many bytes: zero-extended.
    Unsigned(u8),
    /// Canonicalized floats.
    F32,
    /// Canonicalized doubles.
    F64,
    /// Booleans as 0 and 1.
    Bool,
}

impl KeyKind {
    /// Classifies the key columns: `types[i]` is the type of key pair `i`,
    /// already checked to be equal on both sides.
    pub(crate) fn try_new(types: &[DataType]) -> Result<Self> {
        use DataType::*;
        if let [a, b] = types
            && let (Some(a), Some(b)) = (word_conv(a), word_conv(b))
        {
            return Ok(KeyKind::Pair(a, b));
        }
        if let [t] = types {
            if let Some(conv) = word_conv(t) {
                return Ok(KeyKind::U64(conv));
            }
            match t {
                Decimal128(_, _) => return Ok(KeyKind::U128),
                Utf8 | Binary => return Ok(KeyKind::Binary),
                LargeUtf8 | LargeBinary => return Ok(KeyKind::LargeBinary),
                Utf8View | BinaryView => return Ok(KeyKind::BinaryView),
                _ => {}
            }
        }
        KeyKind::rows(types)
    }

    /// As [`KeyKind::try_new`], for a join whose keys are `null_equal`
    /// (`IS NOT DISTINCT FROM`) or not: a NULL in one column of a
    /// null-equal key of several columns is a value of its own, which
    /// arrow-row encodes and a packed word cannot.
    pub(crate) fn for_join(types: &[DataType], null_equal: bool) -> Result<Self> {
        if null_equal && types.len() > 1 {
            return KeyKind::rows(types);
        }
        KeyKind::try_new(types)
    }

    /// arrow-row encoded keys of `types`.
    pub(crate) fn rows(types: &[DataType]) -> Result<Self> {
        if let Some((index, t)) = types.iter().enumerate().find(|(_, t)| nested_float(t)) {
            return Err(KernelError::UnsupportedKeyType {
                index,
                data_type: t.clone(),
                hint: "floats inside struct, list or map keys cannot be compared as SQL \
                       floats (0.0 = -0.0); unnest the key or cast it",
            });
        }
        let fields = types
            .iter()
            .map(|t| SortField::new(t.clone()))
            .collect::<Vec<_>>();
        let converter = RowConverter::new(fields).map_err(|_| {
            let (index, data_type) = types
                .iter()
                .enumerate()
                .find(|(_, t)| !RowConverter::supports_fields(&[SortField::new((*t).clone())]))
                .map(|(i, t)| (i, t.clone()))
                .unwrap_or((0, types[0].clone()));
            KernelError::UnsupportedKeyType {
                index,
                data_type,
                hint: "cast the key to an integer, decimal, string or binary type",
            }
        })?;
        Ok(KeyKind::Rows(Arc::new(converter)))
    }
}

/// How one key column of type `t` is read as a 64-bit word, when it can be.
fn word_conv(t: &DataType) -> Option<WordConv> {
    use DataType::*;
    match t {
        Int64
        | UInt64
        | Date64
        | Time64(_)
        | Timestamp(_, _)
        | Duration(_)
        | Decimal64(_, _)
        | Interval(arrow_schema::IntervalUnit::DayTime) => Some(WordConv::Bits64),
        Int32
        | Date32
        | Time32(_)
        | Decimal32(_, _)
        | Interval(arrow_schema::IntervalUnit::YearMonth) => Some(WordConv::Signed(4)),
        Int16 => Some(WordConv::Signed(2)),
        Int8 => Some(WordConv::Signed(1)),
        UInt32 => Some(WordConv::Unsigned(4)),
        UInt16 => Some(WordConv::Unsigned(2)),
        UInt8 => Some(WordConv::Unsigned(1)),
        Float32 => Some(WordConv::F32),
        Float64 => Some(WordConv::F64),
        Boolean => Some(WordConv::Bool),
        _ => None,
    }
}

/// Whether a float hides inside a nested type (a struct, list or map).
fn nested_float(t: &DataType) -> bool {
    fn has_float(t: &DataType) -> bool {
        match t {
            DataType::Float16 | DataType::Float32 | DataType::Float64 => true,
            DataType::Dictionary(_, v) => has_float(v),
            DataType::Struct(fs) => fs.iter().any(|f| has_float(f.data_type())),
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::ListView(f)
            | DataType::LargeListView(f)
            | DataType::FixedSizeList(f, _)
            | DataType::Map(f, _) => has_float(f.data_type()),
            _ => false,
        }
    }
    match t {
        DataType::Dictionary(_, v) => nested_float(v),
        other => {
            !matches!(
                other,
                DataType::Float16 | DataType::Float32 | DataType::Float64
            ) && has_float(other)
        }
    }
}

/// The validity of a key: `None` when every key is non-NULL.
///
/// For several columns a key is NULL when any of its columns is, unless
/// `null_equal`, where NULL is a value like any other (arrow-row encodes it).
pub(crate) fn key_nulls(cols: &[ArrayRef], kind: &KeyKind, null_equal: bool) -> Option<NullBuffer> {
    if matches!(kind, KeyKind::Rows(_)) && null_equal {
        return None;
    }
    let all: Vec<Option<NullBuffer>> = cols.iter().map(|c| c.logical_nulls()).collect();
    let nulls = NullBuffer::union_many(all.iter().map(|n| n.as_ref()));
    nulls.filter(|n| n.null_count() > 0)
}

/// Mixes a 64-bit word into a well-spread 64-bit hash: MurmurHash3's
/// 64-bit finalizer (a bijection in which every input bit flips about half
/// of the output bits).
///
/// A full finalizer, not a single multiply: keys that are themselves
/// multiples of a Fibonacci-hashing constant (as the benchmark workloads'
/// scrambled keys are) must not land in long runs of neighbouring slots.
/// Public so that the planner's hash tables mix their words the same way.
///
/// ```
/// use tenon_kernels::hash_u64;
/// assert_eq!(hash_u64(42), hash_u64(42));
/// assert_ne!(hash_u64(1), hash_u64(2));
/// // Neighbouring keys differ in about half of their hash bits.
/// assert!((hash_u64(1) ^ hash_u64(2)).count_ones() > 16);
/// ```
#[inline(always)]
pub fn hash_u64(k: u64) -> u64 {
    let mut h = k;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[inline]
fn hash_bytes(b: &[u8]) -> u64 {
    // Fixed seeds: build and probe (and every run) must agree.
    const STATE: ahash::RandomState = ahash::RandomState::with_seeds(
        0x1357_9bdf_2468_ace0,
        0x0f1e_2d3c_4b5a_6978,
        0xdead_beef_cafe_f00d,
        0x0123_4567_89ab_cdef,
    );
    STATE.hash_one(b)
}

/// One side's keys, encoded for hashing and comparing.
///
/// `tag` is what the hash table stores per distinct key: the key itself for
/// fixed-width keys (so a tag match is a key match), or the key's hash, which
/// [`KeySource::same_key`] confirms when `VERIFY` is set.
pub(crate) trait KeySource: Send + Sync + Sized {
    /// The per-key value stored in the table.
    type Tag: Copy + Eq + Default + Send + Sync + std::fmt::Debug;
    /// Whether equal tags may still be different keys.
    const VERIFY: bool;
    /// Encodes key columns (all of the same length).
    fn encode(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self>;
    /// The tag of row `i`.
    fn tag(&self, i: usize) -> Self::Tag;
    /// The hash of a tag.
    fn hash(tag: Self::Tag) -> u64;
    /// Whether row `i` of `self` and row `j` of `other` hold the same key.
    fn same_key(&self, i: usize, other: &Self, j: usize) -> bool;
    /// The tag as an integer key, when tags are integers whose equality is
    /// the keys' (for the hash join's dense-key structures).
    #[inline(always)]
    fn word(_tag: Self::Tag) -> Option<u64> {
        None
    }
    /// Every row's tag as one slice, when the tags are stored that way (the
    /// probe then hashes a run of them in a loop of its own).
    #[inline(always)]
    fn tags(&self) -> Option<&[Self::Tag]> {
        None
    }
}

/// Keys of one fixed-width column as 64-bit words.
#[derive(Debug)]
pub(crate) struct U64Keys {
    values: ScalarBuffer<u64>,
}

fn canonical_f64(v: f64) -> u64 {
    if v == 0.0 {
        0
    } else if v.is_nan() {
        f64::NAN.to_bits()
    } else {
        v.to_bits()
    }
}

fn canonical_f32(v: f32) -> u64 {
    if v == 0.0 {
        0
    } else if v.is_nan() {
        f32::NAN.to_bits() as u64
    } else {
        v.to_bits() as u64
    }
}

impl KeySource for U64Keys {
    type Tag = u64;
    const VERIFY: bool = false;

    fn encode(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        let KeyKind::U64(conv) = kind else {
            return Err(KernelError::Internal("U64Keys for a non-u64 key".into()));
        };
        Ok(U64Keys {
            values: column_words(*conv, &cols[0]),
        })
    }

    #[inline(always)]
    fn tag(&self, i: usize) -> u64 {
        self.values[i]
    }

    #[inline(always)]
    fn word(tag: u64) -> Option<u64> {
        Some(tag)
    }

    #[inline(always)]
    fn tags(&self) -> Option<&[u64]> {
        Some(&self.values)
    }

    #[inline(always)]
    fn hash(tag: u64) -> u64 {
        hash_u64(tag)
    }

    #[inline(always)]
    fn same_key(&self, _i: usize, _other: &Self, _j: usize) -> bool {
        true
    }
}

/// The 64-bit words of fixed-width column `a` read as `conv` says: 64-bit
/// values in place (no copy), narrower ones widened.
fn column_words(conv: WordConv, a: &ArrayRef) -> ScalarBuffer<u64> {
    let data = a.to_data();
    let (off, len) = (data.offset(), data.len());
    macro_rules! widen {
        ($t:ty) => {{
            let v = ScalarBuffer::<$t>::new(data.buffers()[0].clone(), off, len);
            v.iter().map(|&x| x as i64 as u64).collect::<Vec<u64>>()
        }};
    }
    macro_rules! widen_u {
        ($t:ty) => {{
            let v = ScalarBuffer::<$t>::new(data.buffers()[0].clone(), off, len);
            v.iter().map(|&x| x as u64).collect::<Vec<u64>>()
        }};
    }
    match conv {
        WordConv::Bits64 => {
            let buf = &data.buffers()[0];
            if buf.as_ptr().align_offset(8) == 0 {
                ScalarBuffer::new(buf.clone(), off, len)
            } else {
                // Only 4-byte aligned (IntervalDayTime is two i32s):
                // read the words byte by byte instead.
                buf.as_slice()[off * 8..(off + len) * 8]
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(<[u8; 8]>::try_from(c).unwrap_or([0; 8])))
                    .collect::<Vec<u64>>()
                    .into()
            }
        }
        WordConv::Signed(4) => widen!(i32).into(),
        WordConv::Signed(2) => widen!(i16).into(),
        WordConv::Signed(_) => widen!(i8).into(),
        WordConv::Unsigned(4) => widen_u!(u32).into(),
        WordConv::Unsigned(2) => widen_u!(u16).into(),
        WordConv::Unsigned(_) => widen_u!(u8).into(),
        WordConv::F32 => a
            .as_primitive::<Float32Type>()
            .values()
            .iter()
            .map(|&v| canonical_f32(v))
            .collect::<Vec<_>>()
            .into(),
        WordConv::F64 => a
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .map(|&v| canonical_f64(v))
            .collect::<Vec<_>>()
            .into(),
        WordConv::Bool => {
            let b = a.as_boolean().values();
            (0..len)
                .map(|i| b.value(i) as u64)
                .collect::<Vec<_>>()
                .into()
        }
    }
}

impl U64Keys {
    /// The words.
    #[cfg(test)]
    pub(crate) fn words(&self) -> &[u64] {
        &self.values
    }
}

/// Keys of one `Decimal128` column, or of two columns of 64-bit words
/// ([`KeyKind::Pair`]).
#[derive(Debug)]
pub(crate) struct U128Keys {
    values: ScalarBuffer<i128>,
}

impl KeySource for U128Keys {
    type Tag = u128;
    const VERIFY: bool = false;

    fn encode(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        let values = match kind {
            KeyKind::U128 => cols[0].as_primitive::<Decimal128Type>().values().clone(),
            KeyKind::Pair(a, b) => {
                let (low, high) = (column_words(*a, &cols[0]), column_words(*b, &cols[1]));
                low.iter()
                    .zip(high.iter())
                    .map(|(&l, &h)| (u128::from(l) | (u128::from(h) << 64)) as i128)
                    .collect::<Vec<i128>>()
                    .into()
            }
            _ => return Err(KernelError::Internal("U128Keys for another key".into())),
        };
        Ok(U128Keys { values })
    }

    #[inline(always)]
    fn tag(&self, i: usize) -> u128 {
        self.values[i] as u128
    }

    #[inline(always)]
    fn hash(tag: u128) -> u64 {
        hash_u64(tag as u64 ^ hash_u64((tag >> 64) as u64))
    }

    #[inline(always)]
    fn same_key(&self, _i: usize, _other: &Self, _j: usize) -> bool {
        true
    }
}

/// Byte strings addressed by row.
pub(crate) trait ByteRows: Send + Sync + Sized {
    /// Builds from key columns.
    fn from_columns(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self>;
    /// The bytes of row `i`.
    fn bytes(&self, i: usize) -> &[u8];
}

impl ByteRows for BinaryArray {
    fn from_columns(_kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        Ok(match cols[0].data_type() {
            DataType::Utf8 => BinaryArray::from(cols[0].as_string::<i32>().clone()),
            _ => cols[0].as_binary::<i32>().clone(),
        })
    }
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        self.value(i)
    }
}

impl ByteRows for LargeBinaryArray {
    fn from_columns(_kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        Ok(match cols[0].data_type() {
            DataType::LargeUtf8 => LargeBinaryArray::from(cols[0].as_string::<i64>().clone()),
            _ => cols[0].as_binary::<i64>().clone(),
        })
    }
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        self.value(i)
    }
}

impl ByteRows for BinaryViewArray {
    fn from_columns(_kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        Ok(match cols[0].data_type() {
            DataType::Utf8View => cols[0].as_string_view().clone().to_binary_view(),
            _ => cols[0].as_binary_view().clone(),
        })
    }
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        self.value(i)
    }
}

impl ByteRows for Rows {
    fn from_columns(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        let KeyKind::Rows(conv) = kind else {
            return Err(KernelError::Internal("row keys for a non-row key".into()));
        };
        let cols = cols.iter().map(canonical_floats).collect::<Vec<_>>();
        Ok(conv.convert_columns(&cols)?)
    }
    #[inline(always)]
    fn bytes(&self, i: usize) -> &[u8] {
        self.row(i).data()
    }
}

/// Replaces `-0.0` by `0.0` and every NaN by one NaN in float columns (also
/// a dictionary's float values), so that row encodings of equal floats are
/// equal bytes; other columns are returned as they are.
///
/// This is tenon's one definition of float *equality* for keys: join keys
/// in every kernel, GROUP BY, DISTINCT and INTERSECT / EXCEPT use it.
pub fn canonical_floats(a: &ArrayRef) -> ArrayRef {
    match a.data_type() {
        DataType::Float16 => Arc::new(a.as_primitive::<Float16Type>().unary::<_, Float16Type>(
            |v| {
                if v.to_bits() & 0x7fff == 0 {
                    F16::from_bits(0)
                } else if v.is_nan() {
                    F16::from_bits(0x7e00)
                } else {
                    v
                }
            },
        )) as ArrayRef,
        DataType::Dictionary(_, _) => match a.as_any_dictionary_opt() {
            Some(d) => d.with_values(canonical_floats(d.values())),
            None => a.clone(),
        },
        DataType::Float64 => Arc::new(
            a.as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| f64::from_bits(canonical_f64(v))),
        ) as ArrayRef,
        DataType::Float32 => Arc::new(
            a.as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| f32::from_bits(canonical_f32(v) as u32)),
        ) as ArrayRef,
        _ => a.clone(),
    }
}

/// Keys held as byte strings, hashed on the fly and confirmed by comparing
/// bytes.
#[derive(Debug)]
pub(crate) struct BytesKeys<B> {
    pub(crate) rows: B,
}

impl<B: ByteRows> KeySource for BytesKeys<B> {
    type Tag = u64;
    const VERIFY: bool = true;

    fn encode(kind: &KeyKind, cols: &[ArrayRef]) -> Result<Self> {
        Ok(BytesKeys {
            rows: B::from_columns(kind, cols)?,
        })
    }

    #[inline(always)]
    fn tag(&self, i: usize) -> u64 {
        hash_bytes(self.rows.bytes(i))
    }

    #[inline(always)]
    fn hash(tag: u64) -> u64 {
        tag
    }

    #[inline(always)]
    fn same_key(&self, i: usize, other: &Self, j: usize) -> bool {
        self.rows.bytes(i) == other.rows.bytes(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, Int64Array, StringArray};

    fn enc<S: KeySource>(types: &[DataType], cols: Vec<ArrayRef>) -> S {
        S::encode(&KeyKind::try_new(types).unwrap(), &cols).unwrap()
    }

    #[test]
    fn int32_keys_are_sign_extended_and_sliced() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![5, -1, 7]));
        let k: U64Keys = enc(&[DataType::Int32], vec![a.slice(1, 2)]);
        assert_eq!(k.words(), &[u64::MAX, 7]);
    }

    #[test]
    fn int64_keys_are_read_in_place() {
        let a: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
        let k: U64Keys = enc(&[DataType::Int64], vec![a.slice(1, 2)]);
        assert_eq!(k.words(), &[2, 3]);
    }

    #[test]
    fn negative_zero_and_zero_are_one_float_key() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![0.0, -0.0, f64::NAN, -f64::NAN]));
        let k: U64Keys = enc(&[DataType::Float64], vec![a]);
        assert_eq!(k.tag(0), k.tag(1));
        assert_eq!(k.tag(2), k.tag(3));
    }

    #[test]
    fn utf8_keys_compare_by_bytes() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["ab", "cd", "ab"]));
        let k: BytesKeys<BinaryArray> = enc(&[DataType::Utf8], vec![a]);
        assert_eq!(k.tag(0), k.tag(2));
        assert!(k.same_key(0, &k, 2));
        assert!(!k.same_key(0, &k, 1));
    }

    #[test]
    fn float16_and_dictionary_float_keys_treat_negative_zero_as_zero() {
        use arrow_array::types::Int32Type;
        use arrow_array::{DictionaryArray, Float16Array};
        let h: ArrayRef = Arc::new(Float16Array::from(vec![
            F16::from_bits(0),
            F16::from_bits(0x8000),
            F16::from_bits(0x7e00),
            F16::from_bits(0xfe01),
        ]));
        let k =
            BytesKeys::<Rows>::encode(&KeyKind::try_new(&[h.data_type().clone()]).unwrap(), &[h])
                .unwrap();
        assert!(k.same_key(0, &k, 1) && k.same_key(2, &k, 3));
        let values: ArrayRef = Arc::new(Float64Array::from(vec![0.0, -0.0]));
        let d: ArrayRef =
            Arc::new(DictionaryArray::<Int32Type>::try_new(vec![0, 1].into(), values).unwrap());
        let k =
            BytesKeys::<Rows>::encode(&KeyKind::try_new(&[d.data_type().clone()]).unwrap(), &[d])
                .unwrap();
        assert!(k.same_key(0, &k, 1));
    }

    #[test]
    fn floats_nested_in_struct_keys_are_rejected() {
        use arrow_schema::{Field, Fields};
        let t = DataType::Struct(Fields::from(vec![Field::new("f", DataType::Float64, true)]));
        let err = KeyKind::try_new(&[t]).unwrap_err().to_string();
        assert!(err.contains("0.0 = -0.0"), "{err}");
    }

    #[test]
    fn interval_day_time_keys_read_from_a_four_byte_aligned_buffer() {
        use arrow_array::IntervalDayTimeArray;
        use arrow_buffer::{Buffer, IntervalDayTime};
        let a = IntervalDayTimeArray::from(vec![
            IntervalDayTime::new(1, 2),
            IntervalDayTime::new(3, 4),
        ]);
        // The same values behind a buffer that starts 4 bytes into another.
        let mut bytes = vec![0u8; 4];
        bytes.extend_from_slice(a.values().inner().as_slice());
        let buf = Buffer::from_vec(bytes).slice(4);
        let data = a
            .to_data()
            .into_builder()
            .buffers(vec![buf])
            .build()
            .unwrap();
        let b: ArrayRef = Arc::new(IntervalDayTimeArray::from(data));
        let kind = KeyKind::try_new(&[b.data_type().clone()]).unwrap();
        let want = U64Keys::encode(&kind, &[Arc::new(a) as ArrayRef]).unwrap();
        let got = U64Keys::encode(&kind, &[b]).unwrap();
        assert_eq!(want.words(), got.words());
    }

    #[test]
    fn two_fixed_width_columns_are_one_128_bit_word() {
        let kind = KeyKind::try_new(&[DataType::Int64, DataType::Int32]).unwrap();
        assert!(matches!(
            kind,
            KeyKind::Pair(WordConv::Bits64, WordConv::Signed(4))
        ));
        let a: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(1),
            Some(2),
            Some(1),
            Some(-1),
            None,
        ]));
        let b: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(2),
            Some(1),
            Some(2),
            Some(-1),
            Some(2),
        ]));
        let k = U128Keys::encode(&kind, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(k.tag(0), k.tag(2));
        assert_ne!(k.tag(0), k.tag(1), "(1, 2) and (2, 1) differ");
        // -1 sign-extended in both halves.
        assert_eq!(k.tag(3), u128::MAX);
        assert_eq!(k.tag(0), 1 | (2u128 << 64));
        // A NULL in either column makes the key NULL (it never matches).
        let nulls = key_nulls(&[a, b], &kind, false).unwrap();
        assert_eq!(nulls.null_count(), 1);
        assert!(nulls.is_null(4));
        // Null-equal keys of several columns keep arrow-row's NULLs.
        let types = [DataType::Int64, DataType::Int32];
        assert!(matches!(
            KeyKind::for_join(&types, true).unwrap(),
            KeyKind::Rows(_)
        ));
        assert!(matches!(
            KeyKind::for_join(&types, false).unwrap(),
            KeyKind::Pair(..)
        ));
        // Three columns, or a string among two: arrow-row.
        let three = [DataType::Int32, DataType::Int32, DataType::Int32];
        assert!(matches!(
            KeyKind::try_new(&three).unwrap(),
            KeyKind::Rows(_)
        ));
    }

    #[test]
    fn composite_keys_use_row_encoding() {
        let kind = KeyKind::try_new(&[DataType::Int64, DataType::Utf8]).unwrap();
        assert!(matches!(kind, KeyKind::Rows(_)));
        let a: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(1)]));
        let b: ArrayRef = Arc::new(StringArray::from(vec!["x", "x", "x"]));
        let k = BytesKeys::<Rows>::encode(&kind, &[a.clone(), b.clone()]).unwrap();
        assert!(k.same_key(0, &k, 2));
        assert!(!k.same_key(0, &k, 1));
        assert!(key_nulls(&[a.clone(), b.clone()], &kind, false).is_some());
        assert!(key_nulls(&[a, b], &kind, true).is_none());
    }
}
