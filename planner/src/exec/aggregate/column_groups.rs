//! Group keys of several columns (or one string column), kept column by
//! column: the keys are hashed per column and compared per column, never
//! encoded into rows.
//!
//! ```text
//!  key columns ─ hash each column, combine ─► hash per row ─ table lookup ─► candidate group g
//!                                                                   │
//!        g's key values: column c, row at[g].1 of part at[g].0 ◄────┘ compared with the row,
//!                                                                      column by column
//! ```
//!
//! Encoding keys with arrow-row (the `Rows` kind) costs a copy of every
//! key byte per input row, in an order-preserving format meant for sorting;
//! for a GROUP BY over long strings (TPC-H Q10 groups by seven customer
//! columns, including `c_comment`, 73 bytes on average) that copy is a
//! large part of the whole query. Here each row costs a hash of its values and, on a hash hit,
//! one comparison per column against the group's first row, read where it
//! already is: in the key columns the group table keeps anyway (its
//! `parts`: pieces of consecutive groups, O(log groups) of them) or, for a
//! group made earlier in the same batch, in the batch itself.
//!
//! Comparators come from `arrow_ord::ord::make_comparator` (NULL equals
//! NULL, as GROUP BY wants; floats are canonicalized by the caller), built
//! lazily once per (batch, part) pair that a lookup actually meets.

use std::cmp::Ordering;

use ahash::RandomState;
use arrow_array::ArrayRef;
use arrow_ord::ord::{DynComparator, make_comparator};
use arrow_schema::{DataType, SortOptions};
use hashbrown::HashTable;

use super::groups::new_group;
use crate::exec::error::{ExecError, Result};

/// Keys compared column by column: see the module docs.
#[derive(Default)]
pub(super) struct ColumnTable {
    table: HashTable<u32>,
    /// Each group's hash.
    hashes: Vec<u64>,
    /// Reused: the hashes of the current batch's rows.
    batch_hashes: Vec<u64>,
}

impl std::fmt::Debug for ColumnTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnTable")
            .field("groups", &self.hashes.len())
            .finish()
    }
}

impl ColumnTable {
    /// Whether keys of these types are hashed and compared column by
    /// column: flat types only (nested ones go through arrow-row).
    pub(super) fn supports(types: &[DataType]) -> bool {
        types.iter().all(|t| {
            t.is_primitive()
                || matches!(
                    t,
                    DataType::Boolean
                        | DataType::Utf8
                        | DataType::LargeUtf8
                        | DataType::Utf8View
                        | DataType::Binary
                        | DataType::LargeBinary
                        | DataType::BinaryView
                        | DataType::FixedSizeBinary(_)
                )
        })
    }

    /// Each group's hash (the same in every table hashing with a clone of
    /// the same `RandomState`).
    pub(super) fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Group ids of the rows of `keys` into `ids`, creating groups (their
    /// rows into `new_rows`). `parts` are the key values of the groups made
    /// by earlier batches, each part holding consecutive groups from its
    /// start id on; the caller appends this batch's new groups' key values
    /// as the next part.
    pub(super) fn intern(
        &mut self,
        keys: &[ArrayRef],
        (parts, starts): (&[Vec<ArrayRef>], &[usize]),
        state: &RandomState,
        next: &mut usize,
        ids: &mut Vec<u32>,
        new_rows: &mut Vec<u32>,
    ) -> Result<()> {
        let rows = keys.first().map_or(0, |k| k.len());
        let ColumnTable {
            table,
            hashes,
            batch_hashes,
        } = self;
        batch_hashes.clear();
        batch_hashes.resize(rows, 0);
        datafusion_common::hash_utils::create_hashes_with_hasher(keys, state, batch_hashes)
            .map_err(|e| ExecError::Unsupported(format!("hashing GROUP BY keys: {e}")))?;
        // Comparators of this batch against part p (p == parts.len(): the
        // batch itself, for groups it created).
        let current = parts.len();
        let mut comparators: Vec<Option<Vec<DynComparator>>> =
            std::iter::repeat_with(|| None).take(current + 1).collect();
        let mut failed = None;
        let first_new = *next;
        for (i, &hash) in batch_hashes.iter().enumerate() {
            let found = table.find(hash, |&g| {
                let g = g as usize;
                if hashes[g] != hash {
                    return false;
                }
                // Where g's key is: a part, or this batch for a new group.
                let (p, r) = match g.checked_sub(first_new) {
                    Some(k) => (current, new_rows[k] as usize),
                    None => {
                        let p = starts.partition_point(|&s| s <= g) - 1;
                        (p, g - starts[p])
                    }
                };
                if comparators[p].is_none() {
                    let other = parts.get(p).map_or(keys, |part| part.as_slice());
                    match column_comparators(keys, other) {
                        Ok(c) => comparators[p] = Some(c),
                        Err(e) => {
                            failed = Some(e);
                            return false;
                        }
                    }
                }
                comparators[p]
                    .as_ref()
                    .is_some_and(|cs| cs.iter().all(|c| c(i, r) == Ordering::Equal))
            });
            if let Some(e) = failed.take() {
                return Err(e);
            }
            let id = match found {
                Some(&g) => g,
                None => {
                    let g = new_group(next, i, new_rows)?;
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

/// One comparator per key column: row `i` of `keys` against row `j` of
/// `other`.
fn column_comparators(keys: &[ArrayRef], other: &[ArrayRef]) -> Result<Vec<DynComparator>> {
    keys.iter()
        .zip(other)
        .map(|(k, o)| {
            make_comparator(k.as_ref(), o.as_ref(), SortOptions::default())
                .map_err(|e| ExecError::arrow("aggregate (comparing group keys)", e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::{Array, Int64Array, StringViewArray};

    use super::super::groups::GroupTable;
    use super::*;

    type Key = (Option<i64>, Option<String>);

    /// Batches of (Int64, Utf8View) keys with repeats within and across
    /// batches, NULLs in both columns, short and long strings.
    fn batches() -> Vec<Vec<Key>> {
        let s = |i: u64| match i % 5 {
            0 => None,
            1 => Some("x".to_string()),
            2 => Some(format!("a string longer than twelve bytes {}", i % 3)),
            _ => Some(format!("s{}", i % 4)),
        };
        let mut x = 7u64;
        (0..6)
            .map(|b| {
                (0..(1 + b * 37))
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let k = (x >> 33) % 9;
                        let n = (k != 8).then_some(k as i64 % 4);
                        (n, s(x >> 40))
                    })
                    .collect()
            })
            .collect()
    }

    fn arrays(rows: &[Key]) -> Vec<ArrayRef> {
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(StringViewArray::from(
                rows.iter().map(|r| r.1.as_deref()).collect::<Vec<_>>(),
            )),
        ]
    }

    #[test]
    fn equal_keys_get_one_group_and_the_keys_come_back_in_group_order() {
        let types = [DataType::Int64, DataType::Utf8View];
        assert!(ColumnTable::supports(&types));
        let state = RandomState::new();
        let mut table = GroupTable::new(&types, state.clone()).unwrap();
        let mut expected: HashMap<Key, u32> = HashMap::new();
        let mut ids = Vec::new();
        for batch in batches() {
            table
                .intern(&arrays(&batch), batch.len(), &mut ids)
                .unwrap();
            assert_eq!(ids.len(), batch.len());
            for (row, &id) in batch.iter().zip(&ids) {
                let next = expected.len() as u32;
                let want = *expected.entry(row.clone()).or_insert(next);
                assert_eq!(id, want, "row {row:?}");
            }
        }
        assert_eq!(table.num_groups(), expected.len());
        let hashes = table.partition_hashes();
        let keys = table.take_keys().unwrap();
        let (ints, strs) = (
            keys[0].as_primitive::<Int64Type>(),
            keys[1].as_string_view(),
        );
        for (key, &g) in &expected {
            let g = g as usize;
            let got_int = (!ints.is_null(g)).then(|| ints.value(g));
            let got_str = (!strs.is_null(g)).then(|| strs.value(g).to_string());
            assert_eq!(&(got_int, got_str), key);
        }
        // Equal keys have equal partition hashes in another table of the
        // same state that saw them in another order.
        let mut other = GroupTable::new(&types, state).unwrap();
        let mut other_ids: HashMap<Key, u32> = HashMap::new();
        for batch in batches().into_iter().rev() {
            other
                .intern(&arrays(&batch), batch.len(), &mut ids)
                .unwrap();
            for (row, &id) in batch.iter().zip(&ids) {
                other_ids.insert(row.clone(), id);
            }
        }
        let other_hashes = other.partition_hashes();
        for (key, &g) in &expected {
            assert_eq!(hashes[g as usize], other_hashes[other_ids[key] as usize]);
        }
    }

    #[test]
    fn nested_types_are_left_to_arrow_row() {
        let list = DataType::new_list(DataType::Int64, true);
        assert!(!ColumnTable::supports(&[DataType::Int64, list]));
        assert!(ColumnTable::supports(&[DataType::Utf8]));
    }
}
