//! Group keys that come as dictionaries with one-byte codes: a held
//! table's string columns of few values ([`held_form`]), read by the
//! aggregate as they are held.
//!
//! ```text
//!  l_returnflag codes  2 0 0 1 ...   (dictionary ['N', 'R', 'A'], + NULL: 4)
//!  l_linestatus codes  1 1 0 1 ...   (dictionary ['F', 'O'],      + NULL: 3)
//!  combination         2+4*1 ...     one small integer a row
//!  slot[combination] ──► group id    each combination of the batch looked
//!                                     up once, by its first row's values
//! ```
//!
//! A row's key is then found with two byte loads, a multiply-add and one
//! load from a table of a few entries, where the widened strings would be
//! packed, hashed and probed row by row (TPC-H Q1 groups 60M rows by two
//! one-character flags at scale 10). The group table itself never sees the
//! codes: the first row of each combination is widened and interned as any
//! key is, so equal strings under different codes (or dictionaries) are one
//! group, and the groups' keys, hashes and order of first appearance are
//! what they would be without the codes.
//!
//! [`held_form`]: crate::exec::held_form

use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef};

/// Most combinations of codes a batch may have (the product of the
/// dictionaries' sizes, each plus one for NULL); past it the keys are
/// widened and interned as strings.
const MAX_COMBINATIONS: usize = 1 << 12;

/// Reused per batch: each row's combination, the slot of each
/// combination and the first row of each.
#[derive(Debug, Default)]
pub(super) struct CodeSlots {
    codes: Vec<u32>,
    slots: Vec<u32>,
    /// The first row of each combination of the batch, in row order.
    pub(super) firsts: Vec<u32>,
}

impl CodeSlots {
    /// Encodes the `rows` rows of `keys`: each row's combination of codes,
    /// and the first row of each distinct one ([`CodeSlots::firsts`]).
    /// False when a key column is not a dictionary of one-byte codes with
    /// values free of NULLs, or the combinations would be too many.
    pub(super) fn encode(&mut self, keys: &[ArrayRef], rows: usize) -> bool {
        self.codes.clear();
        self.codes.resize(rows, 0);
        let mut stride = 1usize;
        for key in keys {
            let Some(d) = key.as_dictionary_opt::<UInt8Type>() else {
                return false;
            };
            if d.len() != rows || d.values().null_count() > 0 {
                return false;
            }
            // One more than the largest code: NULL's combination.
            let size = d.values().len() + 1;
            let null_code = (size - 1) as u32;
            let step = stride as u32;
            let codes = d.keys();
            match codes.nulls().filter(|n| n.null_count() > 0) {
                None => {
                    for (slot, &c) in self.codes.iter_mut().zip(codes.values().iter()) {
                        *slot += u32::from(c) * step;
                    }
                }
                Some(nulls) => {
                    for ((slot, &c), valid) in self
                        .codes
                        .iter_mut()
                        .zip(codes.values().iter())
                        .zip(nulls.iter())
                    {
                        *slot += if valid { u32::from(c) } else { null_code } * step;
                    }
                }
            }
            stride = stride.saturating_mul(size);
            if stride > MAX_COMBINATIONS {
                return false;
            }
        }
        self.slots.clear();
        self.slots.resize(stride, u32::MAX);
        self.firsts.clear();
        for (row, &c) in self.codes.iter().enumerate() {
            let slot = &mut self.slots[c as usize];
            if *slot == u32::MAX {
                // Rows of a batch fit u32, as its group ids must.
                *slot = self.firsts.len() as u32;
                self.firsts.push(row as u32);
            }
        }
        true
    }

    /// Every row's group into `ids`, given `first_groups[j]`, the group of
    /// the key of row `firsts[j]`.
    pub(super) fn assign(&mut self, first_groups: &[u32], ids: &mut Vec<u32>) {
        for (&row, &g) in self.firsts.iter().zip(first_groups) {
            self.slots[self.codes[row as usize] as usize] = g;
        }
        ids.clear();
        ids.extend(self.codes.iter().map(|&c| self.slots[c as usize]));
    }
}
