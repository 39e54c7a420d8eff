//! One built input of a multi-way join: its rows grouped by key.
//!
//! The rows of equal keys are stored together (`rows`, in key groups, as
//! a compressed sparse row layout: group `g` is `rows[starts[g]..
//! starts[g + 1]]`), and a map from a key's hash to its group finds a
//! group with one lookup. Keys that share a hash (possible only for keys
//! held as their hash, strings and composite keys: [`KeySource::VERIFY`])
//! are chained and told apart by their bytes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use arrow_array::{ArrayRef, RecordBatch};

use crate::error::Result;
use crate::keys::{KeyKind, KeySource, key_nulls};

/// A hasher for keys that are hashes already: passes the `u64` through.
#[derive(Default)]
pub(super) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // only `write_u64` is used; fold anything else in
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Groups of one key hash, by the hash.
type GroupMap = HashMap<u64, u32, BuildHasherDefault<PassThrough>>;

/// No group (end of a hash's chain).
const NONE: u32 = u32::MAX;

/// One built input: its rows (the columns the join outputs) and its rows'
/// groups by key.
pub(super) struct KeyIndex<S: KeySource> {
    /// The input's rows, as one batch.
    pub(super) batch: RecordBatch,
    /// The encoded keys of `batch`'s rows.
    keys: S,
    /// The first group of each key hash.
    first: GroupMap,
    /// Per group: the next group of the same hash (`NONE` ends it).
    next: Vec<u32>,
    /// Per group: a row holding its key.
    rep: Vec<u32>,
    /// Per group `g`: its rows are `rows[starts[g]..starts[g + 1]]`.
    starts: Vec<u32>,
    /// Row numbers of `batch`, grouped by key.
    rows: Vec<u32>,
}

impl<S: KeySource> KeyIndex<S> {
    /// Groups `batch`'s rows by the key columns `key_cols` (of `kind`).
    /// Rows with a NULL key are left out: they match nothing.
    pub(super) fn build(batch: RecordBatch, key_cols: &[ArrayRef], kind: &KeyKind) -> Result<Self> {
        let n = batch.num_rows();
        let keys = S::encode(kind, key_cols)?;
        let nulls = key_nulls(key_cols, kind, false);
        let mut first = GroupMap::default();
        let mut next: Vec<u32> = Vec::new();
        let mut rep: Vec<u32> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        let mut group_of: Vec<u32> = vec![NONE; n];
        for (i, slot) in group_of.iter_mut().enumerate() {
            if nulls.as_ref().is_some_and(|v| v.is_null(i)) {
                continue;
            }
            let tag = keys.tag(i);
            let h = S::hash(tag);
            let mut g = first.get(&h).copied().unwrap_or(NONE);
            while g != NONE {
                let r = rep[g as usize] as usize;
                if keys.tag(r) == tag && (!S::VERIFY || keys.same_key(r, &keys, i)) {
                    break;
                }
                g = next[g as usize];
            }
            if g == NONE {
                g = rep.len() as u32;
                next.push(first.insert(h, g).unwrap_or(NONE));
                rep.push(i as u32);
                counts.push(0);
            }
            counts[g as usize] += 1;
            *slot = g;
        }
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut total = 0u32;
        starts.push(0);
        for c in &counts {
            total += c;
            starts.push(total);
        }
        let mut fill: Vec<u32> = starts[..counts.len()].to_vec();
        let mut rows = vec![0u32; total as usize];
        for (i, &g) in group_of.iter().enumerate() {
            if g != NONE {
                rows[fill[g as usize] as usize] = i as u32;
                fill[g as usize] += 1;
            }
        }
        Ok(KeyIndex {
            batch,
            keys,
            first,
            next,
            rep,
            starts,
            rows,
        })
    }

    /// The rows of `batch` whose key is row `i`'s of `probe` (an encoding
    /// of the same kind), or an empty slice.
    #[inline]
    pub(super) fn matches(&self, probe: &S, i: usize) -> &[u32] {
        let tag = probe.tag(i);
        let Some(&head) = self.first.get(&S::hash(tag)) else {
            return &[];
        };
        let mut g = head;
        while g != NONE {
            let r = self.rep[g as usize] as usize;
            if self.keys.tag(r) == tag && (!S::VERIFY || self.keys.same_key(r, probe, i)) {
                let (a, b) = (self.starts[g as usize], self.starts[g as usize + 1]);
                return &self.rows[a as usize..b as usize];
            }
            g = self.next[g as usize];
        }
        &[]
    }

    /// Bytes the index holds besides the batch.
    pub(super) fn index_bytes(&self) -> usize {
        let words = self.next.len() + self.rep.len() + self.starts.len() + self.rows.len();
        words * 4 + self.first.capacity() * 16
    }
}
