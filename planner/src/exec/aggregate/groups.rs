//! Group keys to dense group ids: the grouping hash table.
//!
//! ```text
//!  key columns of a batch ──► one key per row ──► group id: u32, dense, numbered
//!                                                  in order of first appearance
//!
//!  Global  no GROUP BY: every row is group 0 (the table has one group even
//!          before the first row: SQL's one row over an empty input)
//!  Word    one fixed-width column of 1, 2, 4 or 8 bytes: the bits of the
//!          value (zero-extended to u64) index an array of group ids while
//!          the keys are dense, else a HashMap; NULL a group of its own
//!          (see `word_groups`)
//!  Packed  several fixed-width columns of at most 16 bytes together: one
//!          u128 word a key, plus a mask of NULL columns (see
//!          `packed_groups`)
//!  Columns several columns, or one string, decimal or boolean column, all
//!          of flat types: hashed and compared column by column against
//!          the groups' key values where they already are (see
//!          `column_groups`); few keys of short strings and fixed-width
//!          values are answered by a cache in front (`inline_keys`)
//!  Rows    anything else (nested types): arrow-row encoded keys; a
//!          HashTable of group ids, each group's key bytes at
//!          bytes[offsets[g]..offsets[g + 1]] and its hash at hashes[g], so
//!          the table stores 4 bytes a slot and no key copies
//! ```
//!
//! The key *values* of the groups are the key columns `take`n at the rows
//! that created groups, one small piece per batch, in group id order: the
//! output key columns are one `concat`, with no decoding and for any type.
//!
//! Floats are canonicalized before they are hashed (`-0.0` becomes `0.0`,
//! every NaN the same NaN), so `0.0` and `-0.0` are one group and so are all
//! NaNs, as in PostgreSQL and DuckDB.
//!
//! Every group also has a *partition hash* ([`GroupTable::partition_hashes`])
//! that depends only on its key and the table's `RandomState`: tables built
//! with clones of one state agree on it, which is what lets the combine step
//! split the groups of several partial aggregates into disjoint partitions.

use ahash::RandomState;
use arrow_array::{Array, ArrayRef, UInt32Array, new_empty_array};
use arrow_row::{RowConverter, SortField};
use arrow_schema::DataType;
use hashbrown::HashTable;

use super::column_groups::ColumnTable;
use super::dictionary_keys::CodeSlots;
use super::inline_keys::InlineKeys;
use super::packed_groups::PackedTable;
use super::word_groups::WordTable;
use crate::exec::error::{ExecError, Result};
use tenon_kernels::canonical_floats;

/// Partition hash of the NULL group of a one-column fixed-width key (any
/// constant: it only has to be the same in every table).
const NULL_HASH: u64 = 0x9e37_79b9_7f4a_7c15;

/// Group keys to dense group ids; see the module docs.
#[derive(Debug)]
pub(super) struct GroupTable {
    kind: Kind,
    state: RandomState,
    /// The key columns' types (after float canonicalization: unchanged).
    types: Vec<DataType>,
    num_groups: usize,
    /// The groups' key columns in pieces: per batch that created groups,
    /// the key columns at those rows (merged as they accumulate, see
    /// [`GroupTable::merge_parts`]).
    parts: Vec<Vec<ArrayRef>>,
    /// The first group id of each part.
    part_starts: Vec<usize>,
    /// Reused: rows of the current batch that created a group.
    new_rows: Vec<u32>,
    /// Reused: the codes of key columns that come as dictionaries.
    code_slots: CodeSlots,
}

#[derive(Debug)]
enum Kind {
    Global,
    Word(WordTable),
    Packed(PackedTable),
    /// The column-wise table, and a cache of short keys in front of it
    /// (when the key types allow one).
    Columns(ColumnTable, Option<Box<InlineKeys>>),
    Rows(RowTable),
}

impl GroupTable {
    /// A table for keys of `types` (none: the global aggregate's one group).
    ///
    /// # Errors
    ///
    /// Key types arrow-row cannot encode (it encodes every type SQL
    /// produces; unions and the like are the exception).
    pub(super) fn new(types: &[DataType], state: RandomState) -> Result<Self> {
        let kind = match types {
            [] => Kind::Global,
            [t] if word_width(t).is_some() => {
                Kind::Word(WordTable::new(word_width(t).unwrap_or(8), state.clone()))
            }
            _ if PackedTable::try_new(types).is_some() => {
                Kind::Packed(PackedTable::try_new(types).unwrap_or_default())
            }
            _ if ColumnTable::supports(types) => Kind::Columns(
                ColumnTable::default(),
                InlineKeys::try_new(types).map(Box::new),
            ),
            _ => {
                let fields = types.iter().map(|t| SortField::new(t.clone())).collect();
                let converter = RowConverter::new(fields).map_err(|e| {
                    ExecError::Unsupported(format!(
                        "GROUP BY / DISTINCT over the types {types:?}: {e}"
                    ))
                })?;
                Kind::Rows(RowTable {
                    converter,
                    table: HashTable::new(),
                    hashes: Vec::new(),
                    bytes: Vec::new(),
                    offsets: vec![0],
                })
            }
        };
        let num_groups = usize::from(matches!(kind, Kind::Global));
        Ok(GroupTable {
            kind,
            state,
            types: types.to_vec(),
            num_groups,
            parts: Vec::new(),
            part_starts: Vec::new(),
            new_rows: Vec::new(),
            code_slots: CodeSlots::default(),
        })
    }

    /// Makes room for `additional` more groups of packed keys at once,
    /// instead of growing the table by rehashing as they come (a combine
    /// that regroups a partial's millions of distinct pairs knows their
    /// count up front). Other kinds grow as they go.
    pub(super) fn reserve(&mut self, additional: usize) {
        if let Kind::Packed(t) = &mut self.kind {
            t.reserve(additional);
        }
    }

    /// Number of groups so far.
    pub(super) fn num_groups(&self) -> usize {
        self.num_groups
    }

    /// Replaces `ids` by the group id of each of the `rows` rows of `keys`
    /// (one array per key column), creating groups for new keys.
    ///
    /// # Errors
    ///
    /// More than `u32::MAX` groups, or an Arrow failure encoding the keys.
    pub(super) fn intern(
        &mut self,
        keys: &[ArrayRef],
        rows: usize,
        ids: &mut Vec<u32>,
    ) -> Result<()> {
        if keys
            .iter()
            .any(|k| matches!(k.data_type(), DataType::Dictionary(..)))
        {
            return self.intern_dictionaries(keys, rows, ids);
        }
        ids.clear();
        ids.reserve(rows);
        self.new_rows.clear();
        let keys: Vec<ArrayRef> = keys.iter().map(canonical_floats).collect();
        let mut next = self.num_groups;
        match &mut self.kind {
            Kind::Global => {
                ids.resize(rows, 0);
                return Ok(());
            }
            Kind::Word(t) => t.intern(&keys[0], &mut next, ids, &mut self.new_rows)?,
            Kind::Packed(t) => t.intern(&keys, &self.state, &mut next, ids, &mut self.new_rows)?,
            Kind::Columns(t, cache) => match cache
                .as_mut()
                .and_then(|c| Some((c.lookup(&keys, rows)?, c)))
            {
                None => t.intern(
                    &keys,
                    (&self.parts, &self.part_starts),
                    &self.state,
                    &mut next,
                    ids,
                    &mut self.new_rows,
                )?,
                Some((lookup, cache)) => {
                    // The keys new to the cache, once each, through the
                    // column-wise table (which owns the groups).
                    let mut miss_groups = Vec::with_capacity(lookup.misses.len());
                    if !lookup.misses.is_empty() {
                        let at = UInt32Array::from(lookup.misses.clone());
                        let sub = keys
                            .iter()
                            .map(|k| arrow_select::take::take(k.as_ref(), &at, None))
                            .collect::<Result<Vec<_>, _>>()
                            .map_err(|e| {
                                cache.disable();
                                ExecError::arrow("aggregate (group keys)", e)
                            })?;
                        let interned = t.intern(
                            &sub,
                            (&self.parts, &self.part_starts),
                            &self.state,
                            &mut next,
                            &mut miss_groups,
                            &mut self.new_rows,
                        );
                        if interned.is_err() {
                            cache.disable();
                        }
                        interned?;
                        // New groups' rows: of the batch, not of `sub`.
                        for r in &mut self.new_rows {
                            *r = lookup.misses[*r as usize];
                        }
                    }
                    cache.resolve(&lookup, &miss_groups, ids);
                }
            },
            Kind::Rows(t) => t.intern(&keys, &self.state, &mut next, ids, &mut self.new_rows)?,
        }
        self.num_groups = next;
        if !self.new_rows.is_empty() {
            let at = UInt32Array::from(std::mem::take(&mut self.new_rows));
            let part = keys
                .iter()
                .map(|k| arrow_select::take::take(k.as_ref(), &at, None))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ExecError::arrow("aggregate (group keys)", e))?;
            let first = self.part_starts.last().map_or(0, |&s| s)
                + self.parts.last().map_or(0, |p| p[0].len());
            self.parts.push(part);
            self.part_starts.push(first);
            if matches!(self.kind, Kind::Columns(..)) {
                self.merge_parts()?;
            }
        }
        Ok(())
    }

    /// [`GroupTable::intern`] of keys some of which come as dictionaries
    /// (a held table's string columns, see `dictionary_keys`): each
    /// combination of codes of the batch is interned once, by its first
    /// row's widened values; keys of too many combinations are widened
    /// and interned row by row.
    fn intern_dictionaries(
        &mut self,
        keys: &[ArrayRef],
        rows: usize,
        ids: &mut Vec<u32>,
    ) -> Result<()> {
        let widen = |k: &ArrayRef, t: &DataType| -> Result<ArrayRef> {
            if k.data_type() == t {
                return Ok(k.clone());
            }
            arrow_cast::cast(k, t).map_err(|e| ExecError::arrow("aggregate (group keys)", e))
        };
        let mut slots = std::mem::take(&mut self.code_slots);
        let result = if slots.encode(keys, rows) {
            let at = UInt32Array::from(slots.firsts.clone());
            let firsts = keys
                .iter()
                .zip(&self.types)
                .map(|(k, t)| {
                    let taken = arrow_select::take::take(k.as_ref(), &at, None)
                        .map_err(|e| ExecError::arrow("aggregate (group keys)", e))?;
                    widen(&taken, t)
                })
                .collect::<Result<Vec<_>>>();
            let mut first_groups = Vec::new();
            firsts
                .and_then(|f| self.intern(&f, at.len(), &mut first_groups))
                .map(|()| slots.assign(&first_groups, ids))
        } else {
            keys.iter()
                .zip(&self.types)
                .map(|(k, t)| widen(k, t))
                .collect::<Result<Vec<_>>>()
                .and_then(|wide| self.intern(&wide, rows, ids))
        };
        self.code_slots = slots;
        result
    }

    /// Merges the last two parts while the older is at most twice the
    /// newer, like a binary counter: there are then O(log groups) parts
    /// and each group's key is copied O(log groups) times. The column-wise
    /// table compares against the parts, one comparator per part and
    /// batch, so it must not see one part per batch of a long input.
    fn merge_parts(&mut self) -> Result<()> {
        while let [.., older, newer] = self.parts.as_slice() {
            if older[0].len() > 2 * newer[0].len() {
                break;
            }
            let merged = older
                .iter()
                .zip(newer)
                .map(|(a, b)| arrow_select::concat::concat(&[a.as_ref(), b.as_ref()]))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ExecError::arrow("aggregate (group keys)", e))?;
            self.parts.pop();
            self.parts.pop();
            self.part_starts.pop();
            self.parts.push(merged);
        }
        Ok(())
    }

    /// For every group, a hash of its key that is the same in every table
    /// built with a clone of this table's `RandomState`.
    pub(super) fn partition_hashes(&self) -> Vec<u64> {
        match &self.kind {
            Kind::Global => vec![0; self.num_groups],
            Kind::Word(t) => (0..self.num_groups)
                .map(|g| match t.null_group() {
                    Some(n) if n as usize == g => NULL_HASH,
                    _ => self.state.hash_one(t.word(g)),
                })
                .collect(),
            Kind::Packed(t) => t.hashes().to_vec(),
            Kind::Columns(t, _) => t.hashes().to_vec(),
            Kind::Rows(t) => t.hashes.clone(),
        }
    }

    /// The key columns of the groups, in group id order (no columns for the
    /// global aggregate). Leaves the table without its key values.
    ///
    /// # Errors
    ///
    /// An Arrow failure concatenating the pieces.
    pub(super) fn take_keys(&mut self) -> Result<Vec<ArrayRef>> {
        let parts = std::mem::take(&mut self.parts);
        self.part_starts.clear();
        self.types
            .iter()
            .enumerate()
            .map(|(c, t)| {
                let pieces: Vec<&dyn Array> = parts.iter().map(|p| p[c].as_ref()).collect();
                match pieces.len() {
                    0 => Ok(new_empty_array(t)),
                    1 => Ok(parts[0][c].clone()),
                    _ => arrow_select::concat::concat(&pieces)
                        .map_err(|e| ExecError::arrow("aggregate (group keys)", e)),
                }
            })
            .collect()
    }
}

/// Keys encoded by arrow-row.
struct RowTable {
    converter: RowConverter,
    table: HashTable<u32>,
    hashes: Vec<u64>,
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl std::fmt::Debug for RowTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowTable")
            .field("groups", &self.hashes.len())
            .field("key_bytes", &self.bytes.len())
            .finish()
    }
}

impl RowTable {
    fn intern(
        &mut self,
        keys: &[ArrayRef],
        state: &RandomState,
        next: &mut usize,
        ids: &mut Vec<u32>,
        new_rows: &mut Vec<u32>,
    ) -> Result<()> {
        let rows = self
            .converter
            .convert_columns(keys)
            .map_err(|e| ExecError::arrow("aggregate (encoding group keys)", e))?;
        let RowTable {
            table,
            hashes,
            bytes,
            offsets,
            ..
        } = self;
        for (i, row) in rows.iter().enumerate() {
            let key: &[u8] = row.as_ref();
            let hash = state.hash_one(key);
            let found = table.find(hash, |&g| {
                let g = g as usize;
                hashes[g] == hash && &bytes[offsets[g]..offsets[g + 1]] == key
            });
            let id = match found {
                Some(&g) => g,
                None => {
                    let g = new_group(next, i, new_rows)?;
                    bytes.extend_from_slice(key);
                    offsets.push(bytes.len());
                    hashes.push(hash);
                    table.insert_unique(hash, g, |&g| hashes[g as usize]);
                    g
                }
            };
            ids.push(id);
        }
        Ok(())
    }
}

/// The next group id, created at row `row` of the batch.
pub(super) fn new_group(next: &mut usize, row: usize, new_rows: &mut Vec<u32>) -> Result<u32> {
    let g = u32::try_from(*next)
        .ok()
        .filter(|&g| g < u32::MAX)
        .ok_or_else(|| {
            ExecError::Unsupported(
                "more than 4 294 967 294 groups in one aggregation; add a GROUP BY column \
                 with fewer values or aggregate in several queries"
                    .into(),
            )
        })?;
    *next += 1;
    // Batches hold fewer than 2^32 rows (group ids would overflow first).
    new_rows.push(row as u32);
    Ok(g)
}

/// Bytes a value of `t` when it can be hashed as one word, else `None`.
fn word_width(t: &DataType) -> Option<usize> {
    if !t.is_primitive() {
        return None;
    }
    t.primitive_width().filter(|w| matches!(w, 1 | 2 | 4 | 8))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Int64Array, StringViewArray};

    use super::*;

    #[test]
    fn column_wise_key_parts_stay_few_over_many_batches() {
        let types = [DataType::Int64, DataType::Utf8View];
        let mut table = GroupTable::new(&types, RandomState::new()).unwrap();
        let mut ids = Vec::new();
        let mut expected = std::collections::HashMap::new();
        // 300 batches, each with new keys and keys of earlier batches.
        for b in 0..300i64 {
            let ks: Vec<i64> = (0..3).map(|j| 3 * b + j).chain([0, 3 * b / 2, 7]).collect();
            let keys: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(ks.clone())),
                Arc::new(StringViewArray::from_iter_values(
                    ks.iter()
                        .map(|k| format!("a string longer than twelve bytes {k}")),
                )),
            ];
            table.intern(&keys, ks.len(), &mut ids).unwrap();
            let want: Vec<u32> = ks
                .iter()
                .map(|&k| {
                    let next = expected.len() as u32;
                    *expected.entry(k).or_insert(next)
                })
                .collect();
            assert_eq!(ids, want, "batch {b}");
            assert!(table.parts.len() <= 20, "{} parts", table.parts.len());
            assert_eq!(table.part_starts.len(), table.parts.len());
        }
        assert_eq!(table.num_groups(), 900);
        let keys = table.take_keys().unwrap();
        assert_eq!(keys[0].len(), 900);
    }
}
