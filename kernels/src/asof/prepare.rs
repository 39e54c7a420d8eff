//! The versioned (right) side, grouped by key and sorted by time.
//!
//! The right rows that can match (key and time not NULL) are grouped with
//! the hash join's table ([`JoinTable`]) over the join's key encoding: one
//! entry per distinct key. A key of one row keeps that row in place (the
//! row list in input order); the rows of a repeated key are laid out
//! contiguously, as the table lays out its groups, and each group is
//! sorted by time, equal times kept in input order, so that a left row's
//! version is one binary search away ([`super::search::choose`]). Without
//! equality keys every row is one group.
//!
//! Building costs one pass to insert, one lookup per row to lay out the
//! groups, and a sort of each group (in parallel): `O(n log g)` for groups
//! of `g` rows, never more than a sort of the right side.

use rayon::prelude::*;

use super::search::{FENCE, Fenced};

use crate::hash::table::JoinTable;
use crate::keys::KeySource;

/// One version: its time's image and its right row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(super) struct Version {
    /// The order-preserving image of the time (or the row number).
    pub time: i64,
    /// The row in the right side.
    pub row: u32,
}

/// Where a key's versions are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GroupRef {
    /// In the sorted repeated groups (else one row of the input-order list).
    many: bool,
    start: u32,
    len: u32,
}

/// Versions as parallel columns: the times (what a binary search reads,
/// kept dense), every [`FENCE`]-th time (see `search`), and the right
/// rows.
#[derive(Debug, Default)]
struct Columns {
    times: Vec<i64>,
    fences: Vec<i64>,
    rows: Vec<u32>,
}

impl Columns {
    fn of(versions: &[Version]) -> Columns {
        Columns {
            times: versions.iter().map(|v| v.time).collect(),
            fences: versions.iter().step_by(FENCE).map(|v| v.time).collect(),
            rows: versions.iter().map(|v| v.row).collect(),
        }
    }
}

/// The right side's versions, grouped by key and sorted by time.
pub(super) struct Versions<T> {
    /// Distinct keys; `None` when the join has no equality keys.
    table: Option<JoinTable<T>>,
    /// The versions in input order; a key of one row points here.
    single: Columns,
    /// The groups of repeated keys, each sorted by (time, row).
    grouped: Columns,
}

/// Bytes [`Versions::build`] holds for `n` rows, with a table when `keyed`.
pub(super) fn bytes_for<T: Copy + Eq + Default>(n: usize, keyed: bool) -> usize {
    let table = if keyed {
        JoinTable::<T>::bytes_for(&[n])
    } else {
        0
    };
    // The versions before and after grouping (at most n each), both as
    // `Version`s and as columns (with fences), and the build's scratch.
    table + 4 * n * std::mem::size_of::<Version>() + 2 * n * 8 / FENCE + n * 8
}

impl<T: Copy + Eq + Default + Send + Sync> Versions<T> {
    /// Groups `versions` (rows in input order, each with its time) by key:
    /// `keys` gives a row's tag and hash (`None`: no equality keys, one
    /// group), `same(a, b)` whether right rows `a` and `b` hold the same
    /// key (asked only for equal tags). `skip_bits` are the top hash bits
    /// already spent on choosing a partition.
    pub(super) fn build(
        versions: Vec<Version>,
        keys: Option<&(dyn Fn(u32) -> (T, u64) + Sync)>,
        same: impl Fn(u32, u32) -> bool + Sync,
        skip_bits: u32,
    ) -> Self {
        let Some(keys) = keys else {
            let mut grouped = versions;
            grouped.par_sort_unstable();
            return Versions {
                table: None,
                single: Columns::default(),
                grouped: Columns::of(&grouped),
            };
        };
        let n = versions.len();
        let tagged: Vec<(T, u64)> = versions.iter().map(|v| keys(v.row)).collect();
        let mut table = JoinTable::default();
        let mut scratch = Vec::new();
        let repeated = table.single(n, skip_bits).build(
            n,
            |i| (tagged[i].0, tagged[i].1, i as u32),
            |a, b| same(versions[a as usize].row, versions[b as usize].row),
            &mut scratch,
        );
        table.set_repeated(repeated);
        drop(scratch);
        let mut grouped = Vec::new();
        if repeated {
            // Lay out each repeated group where the table put its rows,
            // once, then sort the groups (they tile `0..grouped.len()`).
            grouped.resize(n, Version::default());
            let mut len_at = vec![0u32; n];
            let mut used = 0;
            for (i, &(tag, h)) in tagged.iter().enumerate() {
                let row = versions[i].row;
                let e = table.find(tag, h, |first| same(versions[first as usize].row, row));
                let Some(e) = e.filter(|e| e.len > 1) else {
                    continue;
                };
                if len_at[e.start as usize] == 0 {
                    len_at[e.start as usize] = e.len;
                    used += e.len as usize;
                    for (slot, &local) in grouped[e.start as usize..].iter_mut().zip(table.group(e))
                    {
                        *slot = versions[local as usize];
                    }
                }
            }
            grouped.truncate(used);
            let mut groups: Vec<&mut [Version]> = Vec::new();
            let mut rest: &mut [Version] = &mut grouped;
            let mut at = 0;
            while at < used {
                let len = (len_at[at] as usize).max(1);
                let (group, tail) = std::mem::take(&mut rest).split_at_mut(len);
                groups.push(group);
                rest = tail;
                at += len;
            }
            groups.into_par_iter().for_each(|g| g.sort_unstable());
        }
        Versions {
            table: Some(table),
            single: Columns::of(&versions),
            grouped: Columns::of(&grouped),
        }
    }

    /// The group of a left key of tag `tag` and hash `h`; `same(row)` says
    /// whether right row `row` holds the left key (asked only for equal
    /// tags). `None` when no right row has the key.
    #[inline(always)]
    pub(super) fn lookup(
        &self,
        tag: T,
        h: u64,
        verify: bool,
        same: impl Fn(u32) -> bool,
    ) -> Option<GroupRef> {
        let Some(table) = &self.table else {
            return (!self.grouped.rows.is_empty()).then_some(GroupRef {
                many: true,
                start: 0,
                len: self.grouped.rows.len() as u32,
            });
        };
        let e = if verify {
            table.find(tag, h, |first| same(self.single.rows[first as usize]))
        } else {
            table.find_exact(tag, h)
        }?;
        Some(if e.len == 1 {
            GroupRef {
                many: false,
                start: e.start,
                len: 1,
            }
        } else {
            GroupRef {
                many: true,
                start: e.start,
                len: e.len,
            }
        })
    }

    /// How many positions the groups hold in all (see
    /// [`position`](Self::position)).
    pub(super) fn positions(&self) -> usize {
        self.single.rows.len() + self.grouped.rows.len()
    }

    /// A number for position `pos` of group `g` (in `0..positions()`), unique
    /// over all groups: one slot per version, for whoever keeps a value per
    /// version (the small-left path's best candidates).
    #[inline(always)]
    pub(super) fn position(&self, g: GroupRef, pos: usize) -> usize {
        if g.many {
            self.single.rows.len() + g.start as usize + pos
        } else {
            g.start as usize + pos
        }
    }

    /// The versions of a group, sorted by time (ties in input order): their
    /// times and their right rows.
    #[inline(always)]
    pub(super) fn group(&self, g: GroupRef) -> (Fenced<'_>, &[u32]) {
        let list = if g.many { &self.grouped } else { &self.single };
        let (start, end) = (g.start as usize, (g.start + g.len) as usize);
        let times = Fenced {
            times: &list.times,
            fences: &list.fences,
            start,
            end,
        };
        (times, &list.rows[start..end])
    }
}

/// The tag and hash of right row `row` of `keys`.
#[inline(always)]
pub(super) fn tag_hash<S: KeySource>(keys: &S, row: u32) -> (S::Tag, u64) {
    let tag = keys.tag(row as usize);
    (tag, S::hash(tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::hash_u64;

    fn versions(keys: &[u64], times: &[i64]) -> (Vec<Version>, Versions<u64>) {
        let v: Vec<Version> = times
            .iter()
            .enumerate()
            .map(|(row, &time)| Version {
                time,
                row: row as u32,
            })
            .collect();
        let key = |r: u32| (keys[r as usize], hash_u64(keys[r as usize]));
        (v.clone(), Versions::build(v, Some(&key), |_, _| true, 0))
    }

    #[test]
    fn groups_hold_their_rows_sorted_by_time_then_input_order() {
        let keys = [7, 3, 7, 7, 9, 3];
        let times = [5, 1, 2, 5, 8, 0];
        let (_, built) = versions(&keys, &times);
        let rows = |k: u64| {
            let g = built.lookup(k, hash_u64(k), false, |_| true).unwrap();
            built.group(g).1.to_vec()
        };
        assert_eq!(rows(7), vec![2, 0, 3]);
        assert_eq!(rows(3), vec![5, 1]);
        assert_eq!(rows(9), vec![4]);
        assert!(built.lookup(4, hash_u64(4), false, |_| true).is_none());
    }
}
