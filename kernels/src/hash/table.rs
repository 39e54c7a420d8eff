//! The join hash table: open addressing over *groups* of equal keys.
//!
//! ```text
//!  hash h (64 bits)
//!  ┌──────────┬───────────────┬─────────┐
//!  │ region   │ home slot     │ unused  │      region = top `region_bits` bits
//!  └──────────┴───────────────┴─────────┘      home   = next bits_r bits
//!
//!  slots: [ Entry { tag, start, len } ... ]   one region after another
//!  rows:  [ u32 ... ]                          build rows of groups with len > 1,
//!                                              each group contiguous, ascending
//! ```
//!
//! An [`Entry`] stands for one distinct key (a *group*): `tag` is the key
//! itself for fixed-width keys, or its hash for byte keys (confirmed by
//! comparing the bytes of the group's first row). `len` is the number of
//! build rows with that key (0 marks an empty slot). When `len == 1`,
//! `start` *is* the build row, so the common unique-key (foreign-key) case
//! costs one random read per probe; when `len > 1`, `start` indexes `rows`.
//!
//! The table is split into regions by the top bits of the hash, each sized
//! for the rows that fall into it (`1.5x` rows rounded up to a power of two,
//! so the load factor is at most 2/3) and built on its own: a parallel build
//! needs no atomics because regions do not overlap. Linear probing wraps
//! within a region.
//!
//! Building takes two passes over a region's rows: the first inserts or
//! counts (remembering each row's slot), the second, only when some key
//! repeats, lays the repeated groups out contiguously in `rows`.

use std::ops::Range;

use crate::cpu::prefetch;
use crate::hugepage::reserve_huge;

/// One slot: a group of build rows sharing a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Entry<T> {
    /// The key (fixed-width) or its hash (byte keys).
    pub tag: T,
    /// The build row when `len == 1`, else the group's first index in `rows`.
    pub start: u32,
    /// Rows in the group; 0 for an empty slot.
    pub len: u32,
}

/// What one bucket says about an exact tag.
enum Look<'a, T> {
    /// The key's slot.
    Found(&'a Entry<T>),
    /// The key is not in the table.
    Absent,
    /// Every slot is used by other keys: search the next bucket.
    Full,
}

/// Where a region's slots are and how to find a home slot in it.
#[derive(Debug, Clone, Copy, Default)]
struct Region {
    base: usize,
    /// `size - 1`, size a power of two.
    mask: usize,
    /// `64 - bits` of this region's size.
    shift: u32,
}

/// Slots scanned together: a key is stored in the first free slot at or
/// after the start of its home bucket, so a lookup can stop at the first
/// bucket with a free slot.
const BUCKET: usize = 4;

/// Smallest region: 16 slots.
const MIN_REGION_BITS: u32 = 4;

/// A finished (or being built) join hash table.
#[derive(Debug, Default)]
pub(crate) struct JoinTable<T> {
    slots: Vec<Entry<T>>,
    regions: Vec<Region>,
    /// Hash bits that select the region (`0` for one region).
    region_bits: u32,
    /// Hash bits skipped before the home bits (partition bits in the
    /// partitioned mode, region bits otherwise).
    skip_bits: u32,
    rows: Vec<u32>,
    /// Build rows in the table.
    n_rows: usize,
    /// No key repeats: every group holds one row.
    unique: bool,
    /// The table is larger than a core's L2 cache: probes prefetch.
    large: bool,
}

/// Tables above this size are probed with prefetches (L2 is 512 KiB here).
const LARGE_TABLE_BYTES: usize = 512 << 10;

/// Slots needed for `n` rows: `1.5 n` rounded up to a power of two.
fn region_bits_for(n: usize) -> u32 {
    let want = (n + n / 2).max(1 << MIN_REGION_BITS);
    want.next_power_of_two().trailing_zeros()
}

impl<T: Copy + Eq + Default> JoinTable<T> {
    /// Bytes a table of `region_counts` rows per region will hold.
    pub(crate) fn bytes_for(region_counts: &[usize]) -> usize {
        let slots: usize = region_counts
            .iter()
            .map(|&n| 1usize << region_bits_for(n))
            .sum();
        let rows: usize = region_counts.iter().sum();
        slots * std::mem::size_of::<Entry<T>>() + rows * 4
    }

    /// Lays out an empty table, reusing this one's allocations.
    ///
    /// `region_counts[r]` is the number of rows hashing to region `r` (the
    /// top `log2(len)` hash bits after `skip_bits`... see the module docs);
    /// `skip_bits` says how many top hash bits are already spent (0 for a
    /// whole table, the partition bits for a partition's table).
    pub(crate) fn reset(&mut self, region_counts: &[usize], skip_bits: u32) {
        debug_assert!(region_counts.len().is_power_of_two());
        self.region_bits = region_counts.len().trailing_zeros();
        self.skip_bits = skip_bits;
        self.regions.clear();
        let mut base = 0;
        for &n in region_counts {
            let bits = region_bits_for(n);
            self.regions.push(Region {
                base,
                mask: (1 << bits) - 1,
                shift: 64 - bits,
            });
            base += 1 << bits;
        }
        self.slots.clear();
        reserve_huge(&mut self.slots, base);
        self.slots.resize(base, Entry::default());
        let rows = region_counts.iter().sum();
        self.rows.clear();
        reserve_huge(&mut self.rows, rows);
        self.rows.resize(rows, 0);
        self.n_rows = 0;
        self.unique = true;
        self.large = base * std::mem::size_of::<Entry<T>>() > LARGE_TABLE_BYTES;
    }

    /// The region of a hash.
    #[inline(always)]
    fn region(&self, h: u64) -> &Region {
        // Two shifts so that region_bits == 0 (one region) gives 0.
        let r = ((h << self.skip_bits) >> 1 >> (63 - self.region_bits)) as usize;
        &self.regions[r]
    }

    /// The slot index where the search for hash `h` starts, and the
    /// region's `(base, mask)`.
    #[inline(always)]
    pub(crate) fn home(&self, h: u64) -> (usize, usize, usize) {
        let reg = self.region(h);
        let pos = ((h << self.skip_bits << self.region_bits) >> reg.shift) as usize;
        (reg.base, reg.mask, pos & !(BUCKET - 1))
    }

    /// Asks the CPU to start loading the home slot of hash `h`, so that a
    /// later [`JoinTable::find`] of a block of keys overlaps their misses.
    #[inline(always)]
    pub(crate) fn prefetch(&self, h: u64) {
        let (base, _, pos) = self.home(h);
        self.prefetch_slot(base + pos);
    }

    /// Asks the CPU to start loading slot `at` (see [`JoinTable::prefetch`]).
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, at: usize) {
        if let Some(e) = self.slots.get(at) {
            prefetch(e);
        }
    }

    /// Finds the group of `tag` when equal tags mean equal keys (fixed-width
    /// keys), looking at a whole bucket at a time: the four comparisons of a
    /// bucket have no branches, so the only branch per probe is "found, or
    /// not", which the CPU predicts well whatever the match rate.
    #[inline(always)]
    pub(crate) fn find_exact(&self, tag: T, h: u64) -> Option<&Entry<T>> {
        let (base, mask, mut pos) = self.home(h);
        loop {
            match Self::look(&self.slots[base + pos..base + pos + BUCKET], tag) {
                Look::Found(e) => return Some(e),
                Look::Absent => return None,
                Look::Full => pos = (pos + BUCKET) & mask,
            }
        }
    }

    /// The first slot of the home bucket of each of `hashes`, for
    /// [`JoinTable::find_exact_from`]. With one region this is two shifts
    /// a hash, which the compiler vectorizes.
    #[inline(always)]
    pub(crate) fn bucket_starts(&self, hashes: &[u64], starts: &mut [usize]) {
        if self.region_bits == 0 {
            let (skip, shift) = (self.skip_bits, self.regions[0].shift);
            for (s, &h) in starts.iter_mut().zip(hashes) {
                *s = ((h << skip) >> shift) as usize & !(BUCKET - 1);
            }
        } else {
            for (s, &h) in starts.iter_mut().zip(hashes) {
                let (base, _, pos) = self.home(h);
                *s = base + pos;
            }
        }
    }

    /// [`JoinTable::find_exact`] of hash `h`, whose home bucket starts at
    /// slot `at` (from [`JoinTable::bucket_starts`]).
    #[inline(always)]
    pub(crate) fn find_exact_from(&self, tag: T, h: u64, at: usize) -> Option<&Entry<T>> {
        match Self::look(&self.slots[at..at + BUCKET], tag) {
            Look::Found(e) => Some(e),
            Look::Absent => None,
            // Rare: the home bucket is full; search on from the start.
            Look::Full => self.find_exact(tag, h),
        }
    }

    /// Looks for exact tag `tag` in one bucket. A bucket's used slots come
    /// first (a key takes the first free slot from a bucket's start), and
    /// tags are unique: the first slot holding `tag` is the key's, unless
    /// it is a free slot (whose tag is the default), which ends the search.
    #[inline(always)]
    fn look(bucket: &[Entry<T>], tag: T) -> Look<'_, T> {
        let mut hit = BUCKET;
        for (j, e) in bucket.iter().enumerate().rev() {
            if e.tag == tag {
                hit = j;
            }
        }
        if hit < BUCKET {
            let e = &bucket[hit];
            if e.len != 0 {
                Look::Found(e)
            } else {
                Look::Absent
            }
        } else if bucket[BUCKET - 1].len == 0 {
            Look::Absent
        } else {
            Look::Full
        }
    }

    /// Finds the group of `tag`; `same(first_row)` confirms a candidate
    /// group when tags can collide.
    #[inline(always)]
    pub(crate) fn find(&self, tag: T, h: u64, same: impl Fn(u32) -> bool) -> Option<&Entry<T>> {
        let (base, mask, mut pos) = self.home(h);
        loop {
            let e = &self.slots[base + pos];
            if e.len == 0 {
                return None;
            }
            if e.tag == tag && same(self.first_row(e)) {
                return Some(e);
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Records whether any key repeated (as [`RegionBuilder::build`] says).
    pub(crate) fn set_repeated(&mut self, repeated: bool) {
        self.unique &= !repeated;
    }

    /// Whether every group holds exactly one build row.
    #[inline]
    pub(crate) fn unique(&self) -> bool {
        self.unique
    }

    /// Whether the table is larger than a core's cache.
    #[inline]
    pub(crate) fn large(&self) -> bool {
        self.large
    }

    /// The build rows of a group.
    #[inline(always)]
    pub(crate) fn group<'a>(&'a self, e: &'a Entry<T>) -> &'a [u32] {
        if e.len == 1 {
            std::slice::from_ref(&e.start)
        } else {
            &self.rows[e.start as usize..(e.start + e.len) as usize]
        }
    }

    #[inline(always)]
    fn first_row(&self, e: &Entry<T>) -> u32 {
        if e.len == 1 {
            e.start
        } else {
            self.rows[e.start as usize]
        }
    }

    /// Build rows held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.n_rows
    }

    /// Splits the table into one builder per region, for a parallel build.
    ///
    /// `row_ranges[r]` is the range of input positions of region `r` (the
    /// regions' inputs are contiguous, in region order, as the partitioner
    /// lays them out); the group lists of region `r` go to the same range of
    /// `rows`.
    pub(crate) fn region_builders(
        &mut self,
        row_ranges: &[Range<usize>],
    ) -> Vec<RegionBuilder<'_, T>> {
        debug_assert_eq!(row_ranges.len(), self.regions.len());
        self.n_rows = row_ranges.last().map_or(0, |r| r.end);
        let mut slots: &mut [Entry<T>] = &mut self.slots;
        let mut rows: &mut [u32] = &mut self.rows;
        let mut out = Vec::with_capacity(self.regions.len());
        for (reg, range) in self.regions.iter().zip(row_ranges) {
            let (s, rest) = std::mem::take(&mut slots).split_at_mut(reg.mask + 1);
            slots = rest;
            let (r, rest) = std::mem::take(&mut rows).split_at_mut(range.len());
            rows = rest;
            out.push(RegionBuilder {
                slots: s,
                rows: r,
                rows_base: range.start as u32,
                shift: reg.shift,
                mask: reg.mask,
                skip: self.skip_bits + self.region_bits,
            });
        }
        out
    }
}

impl<T: Copy + Eq + Default> JoinTable<T> {
    /// Lays out a one-region table for `n` rows (see [`JoinTable::reset`])
    /// and returns its builder; its group lists fill `rows[0..n]`.
    pub(crate) fn single(&mut self, n: usize, skip_bits: u32) -> RegionBuilder<'_, T> {
        self.reset(&[n], skip_bits);
        let whole = 0..n;
        self.region_builders(std::slice::from_ref(&whole))
            .pop()
            .expect("a one-region table has one builder")
    }
}

/// Builds one region of a [`JoinTable`].
pub(crate) struct RegionBuilder<'a, T> {
    slots: &'a mut [Entry<T>],
    rows: &'a mut [u32],
    rows_base: u32,
    shift: u32,
    mask: usize,
    skip: u32,
}

impl<T: Copy + Eq + Default> RegionBuilder<'_, T> {
    /// Inserts build row `row` with tag `tag` from home slot `pos` on
    /// (or counts it in its key's group); returns its slot.
    #[inline(always)]
    fn insert(
        &mut self,
        tag: T,
        row: u32,
        mut pos: usize,
        same: &impl Fn(u32, u32) -> bool,
        repeated: &mut bool,
    ) -> usize {
        loop {
            let e = &mut self.slots[pos];
            if e.len == 0 {
                *e = Entry {
                    tag,
                    start: row,
                    len: 1,
                };
                return pos;
            }
            if e.tag == tag && same(e.start, row) {
                e.len += 1;
                *repeated = true;
                return pos;
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// Inserts `n` rows: `input(i)` gives the i-th row's tag, hash and build
    /// row; `same(a, b)` says whether build rows `a` and `b` hold the same
    /// key (only asked when tags are equal). `slot_of` is scratch space.
    /// Returns whether any key repeated.
    pub(crate) fn build(
        mut self,
        n: usize,
        input: impl Fn(usize) -> (T, u64, u32),
        same: impl Fn(u32, u32) -> bool,
        slot_of: &mut Vec<u32>,
    ) -> bool {
        debug_assert!(n <= self.rows.len());
        slot_of.clear();
        slot_of.reserve(n);
        let mut repeated = false;
        // Pass 1: insert or count. `start` keeps the group's first row.
        // Rows go in blocks whose home slots are prefetched first, so that
        // the cache misses of a region larger than the cache overlap.
        const BLOCK: usize = 16;
        let mut block = [(T::default(), 0u32, 0usize); BLOCK];
        let (skip, shift) = (self.skip, self.shift);
        let home = |h: u64| ((h << skip) >> shift) as usize & !(BUCKET - 1);
        for first in (0..n).step_by(BLOCK) {
            let end = n.min(first + BLOCK);
            for (slot, i) in block.iter_mut().zip(first..end) {
                let (tag, h, row) = input(i);
                let pos = home(h);
                prefetch(&self.slots[pos]);
                *slot = (tag, row, pos);
            }
            for &(tag, row, pos) in &block[..end - first] {
                let pos = self.insert(tag, row, pos, &same, &mut repeated);
                slot_of.push(pos as u32);
            }
        }
        if !repeated {
            return false;
        }
        // Pass 2: give every repeated group a range of `rows` (its end at
        // first), then fill it back to front so rows end up ascending.
        let mut cursor = 0u32;
        for e in self.slots.iter_mut() {
            if e.len > 1 {
                cursor += e.len;
                e.start = self.rows_base + cursor;
            }
        }
        for i in (0..n).rev() {
            let e = &mut self.slots[slot_of[i] as usize];
            if e.len > 1 {
                e.start -= 1;
                self.rows[(e.start - self.rows_base) as usize] = input(i).2;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::hash_u64;

    fn build(keys: &[u64], regions: usize) -> JoinTable<u64> {
        // Route rows to regions the way the partitioner does.
        let bits = regions.trailing_zeros();
        let region = |k: u64| hash_u64(k).checked_shr(64 - bits).unwrap_or(0) as usize;
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_by_key(|&r| region(keys[r as usize]));
        let mut counts = vec![0; regions];
        for &r in &order {
            counts[region(keys[r as usize])] += 1;
        }
        let mut ranges = Vec::new();
        let mut at = 0;
        for c in &counts {
            ranges.push(at..at + c);
            at += c;
        }
        let mut t = JoinTable::default();
        t.reset(&counts, 0);
        let mut scratch = Vec::new();
        for (b, range) in t.region_builders(&ranges).into_iter().zip(&ranges) {
            let rows = &order[range.clone()];
            b.build(
                rows.len(),
                |i| {
                    let k = keys[rows[i] as usize];
                    (k, hash_u64(k), rows[i])
                },
                |_, _| true,
                &mut scratch,
            );
        }
        t
    }

    fn lookup(t: &JoinTable<u64>, k: u64) -> Vec<u32> {
        t.find(k, hash_u64(k), |_| true)
            .map(|e| t.group(e).to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn exact_lookups_agree_with_the_slot_by_slot_search() {
        // Key 0 is also the tag of a free slot: present or absent, an exact
        // lookup must tell it from one. At a load of 2/3 many buckets are
        // full (681 keys in 1,024 slots), so searches go on to the next
        // bucket.
        for with_zero in [false, true] {
            let keys: Vec<u64> = (u64::from(!with_zero)..681)
                .map(|i| i * 0x9e37_79b9)
                .collect();
            for regions in [1, 8] {
                let t = build(&keys, regions);
                let probes: Vec<u64> = (0..1500u64).map(|i| i * 0x9e37_79b9 / 2).collect();
                let hashes: Vec<u64> = probes.iter().map(|&k| hash_u64(k)).collect();
                let mut starts = vec![0; probes.len()];
                t.bucket_starts(&hashes, &mut starts);
                for ((&k, &h), &at) in probes.iter().zip(&hashes).zip(&starts) {
                    let want = lookup(&t, k);
                    let exact = t
                        .find_exact(k, h)
                        .map(|e| vec![e.start])
                        .unwrap_or_default();
                    let from = t.find_exact_from(k, h, at).map(|e| vec![e.start]);
                    assert_eq!(exact, want, "key {k}, {regions} regions");
                    assert_eq!(from.unwrap_or_default(), want, "key {k}, {regions} regions");
                }
            }
        }
    }

    #[test]
    fn unique_keys_store_the_row_in_the_slot() {
        let t = build(&[10, 20, 30], 1);
        assert_eq!(lookup(&t, 20), vec![1]);
        assert_eq!(lookup(&t, 40), Vec::<u32>::new());
    }

    #[test]
    fn repeated_keys_form_ascending_groups() {
        let keys = [5, 7, 5, 5, 7, 9];
        for regions in [1, 2, 8] {
            let t = build(&keys, regions);
            assert_eq!(lookup(&t, 5), vec![0, 2, 3]);
            assert_eq!(lookup(&t, 7), vec![1, 4]);
            assert_eq!(lookup(&t, 9), vec![5]);
            assert_eq!(t.len(), 6);
        }
    }

    #[test]
    fn many_keys_across_regions_are_all_found() {
        let keys: Vec<u64> = (0..5000).map(|i| i * 7919 % 3001).collect();
        let t = build(&keys, 16);
        for k in 0..3001u64 {
            let want: Vec<u32> = (0..5000u32).filter(|&i| keys[i as usize] == k).collect();
            assert_eq!(lookup(&t, k), want, "key {k}");
        }
    }
}
