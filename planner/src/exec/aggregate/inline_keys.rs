//! A cache of few, short group keys in front of the column-wise group
//! table: each key column's value as one 128-bit word, the words of a row
//! hashed and compared together.
//!
//! ```text
//!  (l_returnflag: Utf8View, l_linestatus: Utf8View)   'A', 'F'
//!        view of 'A': len 1 | 'A' | (padding, masked off)  ─► word 0
//!        view of 'F'                                         ─► word 1
//!  words of the row ── cache ──► entry ──► group id
//!                        │ miss: the row's key goes to the column-wise
//!                        ▼       table (which owns the groups), once per
//!                     new entry  distinct key of the batch
//! ```
//!
//! The column-wise table ([`super::column_groups`]) hashes each column's
//! values and compares them through a comparator per column, per row; for
//! a GROUP BY of many rows into few groups of short strings (TPC-H Q1
//! groups 6M rows by two one-character flags) that is most of the
//! aggregation's time. A string view of at most 12 bytes *is* its value
//! (its length and its bytes, once the bytes after the value are masked
//! off, since Arrow does not promise they are zero), and a fixed-width
//! value is its bits, so a row's key is a few words and equal keys are
//! equal words.
//!
//! The cache never decides a group on its own: a key it has not seen is
//! looked up in (or added to) the column-wise table, which keeps the
//! groups, their key values and their partition hashes as before, and the
//! cache remembers the answer. A batch holding a longer string goes
//! around the cache. Keys of many distinct values would only fill it, so
//! it turns itself off when it grows past [`MAX_ENTRIES`] keys, or past
//! [`MIN_JUDGED`] keys seen in fewer than two rows each.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::DataType;
use hashbrown::HashTable;
use tenon_kernels::hash_u64;

/// Most key columns a cache handles (words a key).
const MAX_COLUMNS: usize = 4;

/// Most cached keys: past this many the keys are not few, and the
/// column-wise table alone does the work.
const MAX_ENTRIES: usize = 1 << 16;

/// Cached keys past which the cache turns off when it has seen fewer than
/// two rows a key (the keys do not repeat enough to pay for it).
const MIN_JUDGED: usize = 1024;

/// How a key column becomes a word.
#[derive(Debug, Clone, Copy)]
enum Column {
    /// A primitive of this many bytes: its bits, zero-extended.
    Fixed(usize),
    /// A string or binary view: the view, when the value is inline.
    View,
    /// A string or binary of 32-bit offsets: its length and bytes as an
    /// inline view would hold them, when at most 12 bytes.
    Offsets,
}

/// The cache; see the module docs.
#[derive(Debug)]
pub(super) struct InlineKeys {
    columns: Vec<Column>,
    /// Entry ids by the hash of their words.
    table: HashTable<u32>,
    /// Each entry's words (`columns.len()` a key) and NULL mask.
    words: Vec<u128>,
    masks: Vec<u8>,
    hashes: Vec<u64>,
    /// Each entry's group id (`u32::MAX` while pending in a batch).
    groups: Vec<u32>,
    /// Off for good (too many distinct keys).
    off: bool,
    /// Rows looked up so far.
    rows_seen: usize,
    /// Reused per batch: the rows' words, NULL masks and entries.
    batch_words: Vec<u128>,
    batch_masks: Vec<u8>,
    batch_entries: Vec<u32>,
}

/// What the cache made of a batch: the rows it could not answer.
pub(super) struct Lookup {
    /// One row for each key new to the cache, in row order (the first row
    /// with that key).
    pub(super) misses: Vec<u32>,
}

impl InlineKeys {
    /// A cache for keys of `types`, when every column can be a word (a
    /// primitive of 1 to 16 bytes, or a string or binary view) and there
    /// are at most [`MAX_COLUMNS`].
    pub(super) fn try_new(types: &[DataType]) -> Option<Self> {
        if types.is_empty() || types.len() > MAX_COLUMNS {
            return None;
        }
        let columns = types
            .iter()
            .map(|t| match t {
                DataType::Utf8View | DataType::BinaryView => Some(Column::View),
                DataType::Utf8 | DataType::Binary => Some(Column::Offsets),
                t if t.is_primitive() => t
                    .primitive_width()
                    .filter(|w| matches!(w, 1 | 2 | 4 | 8 | 16))
                    .map(Column::Fixed),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(InlineKeys {
            columns,
            table: HashTable::new(),
            words: Vec::new(),
            masks: Vec::new(),
            hashes: Vec::new(),
            groups: Vec::new(),
            off: false,
            rows_seen: 0,
            batch_words: Vec::new(),
            batch_masks: Vec::new(),
            batch_entries: Vec::new(),
        })
    }

    /// Looks up the `rows` rows of `keys`: `None` when the cache is off or
    /// a value of the batch is not inline (the caller then interns the
    /// batch without the cache), else the rows whose keys are new to it.
    /// Finish with [`InlineKeys::resolve`].
    pub(super) fn lookup(&mut self, keys: &[ArrayRef], rows: usize) -> Option<Lookup> {
        if self.off || keys.len() != self.columns.len() || !self.pack(keys, rows) {
            return None;
        }
        // The key width as a constant: a key is then compared as an array
        // of words (a few vector compares, no `memcmp` call per row).
        let misses = match self.columns.len() {
            1 => self.find_rows::<1>(),
            2 => self.find_rows::<2>(),
            3 => self.find_rows::<3>(),
            _ => self.find_rows::<MAX_COLUMNS>(),
        };
        self.rows_seen = self.rows_seen.saturating_add(rows);
        let entries = self.groups.len();
        if entries > MAX_ENTRIES || (entries > MIN_JUDGED && 2 * entries > self.rows_seen) {
            self.off = true;
        }
        Some(Lookup { misses })
    }

    /// The entry of each packed row of the batch into `batch_entries`, new
    /// entries made for new keys; returns the rows that made them. `K` is
    /// the number of key columns.
    fn find_rows<const K: usize>(&mut self) -> Vec<u32> {
        let mut misses = Vec::new();
        let InlineKeys {
            table,
            words,
            masks,
            hashes,
            groups,
            batch_words,
            batch_masks,
            batch_entries,
            ..
        } = self;
        batch_entries.clear();
        batch_entries.reserve(batch_masks.len());
        // The previous row's key and entry: a repeat costs no lookup.
        let mut last: Option<([u128; K], u8, u32)> = None;
        for (row, (key, &mask)) in batch_words
            .chunks_exact(K)
            .zip(batch_masks.iter())
            .enumerate()
        {
            let Ok(key) = <[u128; K]>::try_from(key) else {
                continue; // chunks_exact(K): always K words
            };
            if let Some((lk, lm, le)) = last
                && lk == key
                && lm == mask
            {
                batch_entries.push(le);
                continue;
            }
            let hash = words_hash(&key, mask);
            let found = table.find(hash, |&e| {
                let e = e as usize;
                masks[e] == mask
                    && <[u128; K]>::try_from(&words[e * K..(e + 1) * K]).is_ok_and(|w| w == key)
            });
            let entry = match found {
                Some(&e) => e,
                None => {
                    // Entries stay under MAX_ENTRIES + one call's rows,
                    // and a call's rows fit u32 (as group ids must).
                    let e = groups.len() as u32;
                    words.extend_from_slice(&key);
                    masks.push(mask);
                    hashes.push(hash);
                    groups.push(u32::MAX);
                    table.insert_unique(hash, e, |&e| hashes[e as usize]);
                    // Rows of a batch fit u32 (group ids would overflow first).
                    misses.push(row as u32);
                    e
                }
            };
            last = Some((key, mask, entry));
            batch_entries.push(entry);
        }
        misses
    }

    /// Turns the cache off for good (its last lookup cannot be resolved:
    /// interning the new keys failed).
    pub(super) fn disable(&mut self) {
        self.off = true;
    }

    /// Completes a [`InlineKeys::lookup`]: `miss_groups[j]` is the group of
    /// the key of row `lookup.misses[j]`; `ids` gets every row's group.
    pub(super) fn resolve(&mut self, lookup: &Lookup, miss_groups: &[u32], ids: &mut Vec<u32>) {
        for (&row, &g) in lookup.misses.iter().zip(miss_groups) {
            let e = self.batch_entries[row as usize] as usize;
            self.groups[e] = g;
        }
        ids.clear();
        ids.extend(self.batch_entries.iter().map(|&e| self.groups[e as usize]));
    }

    /// The words and NULL masks of the batch's rows into `batch_words` and
    /// `batch_masks`; false when a view column holds a value that is not
    /// inline.
    fn pack(&mut self, keys: &[ArrayRef], rows: usize) -> bool {
        let k = self.columns.len();
        self.batch_words.clear();
        self.batch_words.resize(rows * k, 0);
        self.batch_masks.clear();
        self.batch_masks.resize(rows, 0);
        for (c, (key, column)) in keys.iter().zip(&self.columns).enumerate() {
            if key.len() != rows {
                return false;
            }
            let nulls = key.logical_nulls().filter(|n| n.null_count() > 0);
            let out = self.batch_words.iter_mut().skip(c).step_by(k);
            let packed = match *column {
                Column::Offsets => {
                    let bytes = match key.data_type() {
                        DataType::Utf8 => key
                            .as_string_opt::<i32>()
                            .map(|a| (&a.offsets()[..], a.values().as_slice())),
                        _ => key
                            .as_binary_opt::<i32>()
                            .map(|a| (&a.offsets()[..], a.values().as_slice())),
                    };
                    bytes.is_some_and(|(offsets, values)| {
                        offset_words(offsets, values, nulls.as_ref(), out)
                    })
                }
                Column::View => {
                    let views = match key.data_type() {
                        DataType::Utf8View => key.as_string_view_opt().map(|a| a.views()),
                        _ => key.as_binary_view_opt().map(|a| a.views()),
                    };
                    match views {
                        Some(views) if inline_views(views, nulls.as_ref()) => {
                            for (slot, &v) in out.zip(views.iter()) {
                                *slot = masked_view(v);
                            }
                            true
                        }
                        _ => false,
                    }
                }
                Column::Fixed(width) => fixed_words(key, width, rows, out),
            };
            if !packed {
                return false;
            }
            if let Some(nulls) = &nulls {
                let bit = 1u8 << c;
                for i in nulls
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| (!v).then_some(i))
                {
                    self.batch_words[i * k + c] = 0;
                    self.batch_masks[i] |= bit;
                }
            }
        }
        true
    }
}

/// The bits of a primitive column of `width` bytes, zero-extended, into
/// `out` (one slot per row); false when the array has no values buffer.
fn fixed_words<'a>(
    key: &ArrayRef,
    width: usize,
    rows: usize,
    out: impl Iterator<Item = &'a mut u128>,
) -> bool {
    let data = key.to_data();
    let Some(buffer) = data.buffers().first() else {
        return false;
    };
    let offset = data.offset();
    macro_rules! put {
        ($t:ty) => {{
            let values = ScalarBuffer::<$t>::new(buffer.clone(), offset, rows);
            for (slot, &v) in out.zip(values.iter()) {
                *slot = v as u128;
            }
        }};
    }
    match width {
        1 => put!(u8),
        2 => put!(u16),
        4 => put!(u32),
        8 => put!(u64),
        _ => put!(u128),
    }
    true
}

/// The words of the values of an offsets array into `out` (one slot per
/// row): length and bytes as an inline view holds them; false when a
/// non-NULL value is longer than 12 bytes (`out` is then partly written).
fn offset_words<'a>(
    offsets: &[i32],
    values: &[u8],
    nulls: Option<&NullBuffer>,
    out: impl Iterator<Item = &'a mut u128>,
) -> bool {
    for (i, (slot, w)) in out.zip(offsets.windows(2)).enumerate() {
        if nulls.is_some_and(|n| n.is_null(i)) {
            continue; // zeroed by the caller
        }
        let (start, end) = (w[0] as usize, w[1] as usize);
        let Some(value) = values.get(start..end).filter(|v| v.len() <= 12) else {
            return false;
        };
        let mut view = [0u8; 16];
        view[..4].copy_from_slice(&(value.len() as u32).to_le_bytes());
        view[4..4 + value.len()].copy_from_slice(value);
        *slot = u128::from_le_bytes(view);
    }
    true
}

/// Whether every non-NULL view holds its value inline (at most 12 bytes).
fn inline_views(views: &[u128], nulls: Option<&NullBuffer>) -> bool {
    let long = |v: u128| (v as u32) > 12;
    match nulls {
        None => !views.iter().any(|&v| long(v)),
        Some(n) => !views
            .iter()
            .zip(n.iter())
            .any(|(&v, valid)| valid && long(v)),
    }
}

/// Masks that keep an inline view's length (its low 4 bytes) and its
/// first `len` value bytes, by `len` (0 to 12).
const VIEW_MASKS: [u128; 13] = {
    let mut masks = [0u128; 13];
    let mut len = 0;
    while len < 13 {
        let bits = 32 + 8 * len;
        masks[len] = if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        len += 1;
    }
    masks
};

/// An inline view with the bytes after its value zeroed: its length (the
/// low 4 bytes) and its value's bytes. One table lookup and one AND: a
/// 128-bit shift by a variable count is a branchy sequence that took a
/// fifth of TPC-H Q1's grouping.
#[inline(always)]
fn masked_view(view: u128) -> u128 {
    view & VIEW_MASKS[(view as u32).min(12) as usize]
}

/// The cache's hash of a row's words and NULL mask: each word's halves
/// multiplied in, then the join keys' finalizer ([`hash_u64`]); cheaper
/// than a general hasher over a slice, and the hash never leaves the cache.
#[inline(always)]
fn words_hash(key: &[u128], mask: u8) -> u64 {
    let mut h = u64::from(mask) ^ 0x9e37_79b9_7f4a_7c15;
    for &w in key {
        h = (h ^ w as u64)
            .wrapping_mul(0xff51_afd7_ed55_8ccd)
            .rotate_left(31);
        h = (h ^ (w >> 64) as u64)
            .wrapping_mul(0xc4ce_b9fe_1a85_ec53)
            .rotate_left(31);
    }
    hash_u64(h)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use ahash::RandomState;
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{Int32Array, StringArray, StringViewArray};
    use proptest::prelude::*;

    use super::super::groups::GroupTable;
    use super::*;

    type Key = (Option<String>, Option<i32>);

    fn arrays(rows: &[Key], views: bool) -> Vec<ArrayRef> {
        let strings: Vec<Option<&str>> = rows.iter().map(|r| r.0.as_deref()).collect();
        let s: ArrayRef = if views {
            Arc::new(StringViewArray::from(strings))
        } else {
            Arc::new(StringArray::from(strings))
        };
        vec![
            s,
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
        ]
    }

    #[test]
    fn masked_views_keep_length_and_value_only() {
        let a = StringViewArray::from(vec!["A", "", "twelve bytes"]);
        let junk = |v: u128, len: u32| v | (u128::MAX << (32 + 8 * len));
        for (i, &v) in a.views().iter().enumerate() {
            let len = v as u32;
            if len < 12 {
                assert_eq!(masked_view(junk(v, len)), masked_view(v));
            }
            assert_eq!(masked_view(v) as u32, len, "{i}");
        }
    }

    #[test]
    fn the_cache_only_takes_short_flat_keys() {
        assert!(InlineKeys::try_new(&[DataType::Utf8View, DataType::Utf8View]).is_some());
        assert!(InlineKeys::try_new(&[DataType::Utf8, DataType::Decimal128(15, 2)]).is_some());
        assert!(InlineKeys::try_new(&[DataType::LargeUtf8]).is_none());
        assert!(InlineKeys::try_new(&[DataType::Boolean, DataType::Int8]).is_none());
        assert!(InlineKeys::try_new(&vec![DataType::Int8; 5]).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Group ids in order of first appearance and the keys back in
        /// group order, whether a batch goes through the cache or around
        /// it (a long string), on views and offsets strings, with NULLs
        /// and empty strings; partition hashes equal to a table that never
        /// used the cache (every batch holding a long string).
        #[test]
        fn groups_match_first_appearance_with_and_without_the_cache(
            batches in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::option::weighted(0.9, 0usize..6), proptest::option::weighted(0.9, -2i32..3)),
                    0..40,
                ),
                1..8,
            ),
            long_batches in proptest::collection::vec(any::<bool>(), 8),
            views in any::<bool>(),
        ) {
            let words = ["", "A", "F", "twelve bytes", "a string over twelve bytes", "N"];
            let types = [
                if views { DataType::Utf8View } else { DataType::Utf8 },
                DataType::Int32,
            ];
            let state = RandomState::new();
            let mut table = GroupTable::new(&types, state.clone()).unwrap();
            let mut reference = GroupTable::new(&types, state).unwrap();
            let mut expected: HashMap<Key, u32> = HashMap::new();
            let mut all: Vec<Key> = Vec::new();
            let (mut ids, mut ref_ids) = (Vec::new(), Vec::new());
            for (b, batch) in batches.iter().enumerate() {
                let mut rows: Vec<Key> = batch
                    .iter()
                    .map(|&(s, i)| (s.map(|s| words[s].to_string()), i))
                    .collect();
                // A long string: the batch goes around the cache.
                if long_batches[b] && !rows.is_empty() {
                    rows[0].0 = Some(words[4].to_string());
                }
                table.intern(&arrays(&rows, views), rows.len(), &mut ids).unwrap();
                // The reference sees each row with a long-string row
                // before it, so it never uses the cache.
                for row in &rows {
                    let pair = [(Some(words[4].to_string()), Some(99)), row.clone()];
                    reference.intern(&arrays(&pair, views), 2, &mut ref_ids).unwrap();
                }
                for (row, &id) in rows.iter().zip(&ids) {
                    let next = expected.len() as u32;
                    prop_assert_eq!(id, *expected.entry(row.clone()).or_insert(next), "{:?}", row);
                }
                all.extend(rows);
            }
            prop_assert_eq!(table.num_groups(), expected.len());
            let hashes = table.partition_hashes();
            let ref_hashes = reference.partition_hashes();
            let mut ref_ids_of: HashMap<Key, usize> = HashMap::new();
            let ref_keys = reference.take_keys().unwrap();
            for g in 0..reference.num_groups() {
                let s = arrow_array::cast::AsArray::as_string_opt::<i32>(ref_keys[0].as_ref())
                    .map(|a| (!a.is_null(g)).then(|| a.value(g).to_string()))
                    .unwrap_or_else(|| {
                        let a = ref_keys[0].as_string_view();
                        (!a.is_null(g)).then(|| a.value(g).to_string())
                    });
                let i = ref_keys[1].as_primitive::<Int32Type>();
                ref_ids_of.insert((s, (!i.is_null(g)).then(|| i.value(g))), g);
            }
            let keys = table.take_keys().unwrap();
            prop_assert_eq!(keys[0].len(), expected.len());
            let ints = keys[1].as_primitive::<Int32Type>();
            for (key, &g) in &expected {
                let g = g as usize;
                prop_assert_eq!((!ints.is_null(g)).then(|| ints.value(g)), key.1);
                prop_assert_eq!(hashes[g], ref_hashes[ref_ids_of[key]]);
            }
        }
    }
}
