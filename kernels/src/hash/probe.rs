//! Probing: keys in, candidate index pairs out, resumable.
//!
//! ```text
//!             ┌───────────── Cursor { i, k } ─────────────┐
//!  probe row i ─ find(tag) ─► group of build rows ─ + extra ─► pairs (k-th candidate of row i)
//!      │                                                        │
//!      └─ NULL key ─► the NULL group (null-equal / NOT IN) ─────┘
//!                           stops when `limit` pairs are out; call again to go on
//! ```
//!
//! A probe row's *candidates* are the build rows of its key's group, then
//! `extra` rows every non-NULL probe row is paired with (the NULL-keyed
//! build rows of a filtered NOT IN). A probe row with a NULL key has the
//! candidates `null_group` (the NULL-keyed build rows in a null-equal join,
//! or for NOT IN every build row). `first_only` keeps only the first
//! candidate, for semi and anti joins on the probe side without a filter,
//! where one candidate decides.

use crate::hash::table::JoinTable;
use crate::keys::KeySource;

/// Where a probe stopped.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cursor {
    /// Next probe position.
    pub i: usize,
    /// Candidates of position `i` already emitted.
    pub k: usize,
}

/// Candidate rules beyond the table lookup.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Candidates<'a> {
    pub null_group: Option<&'a [u32]>,
    pub extra: &'a [u32],
    pub first_only: bool,
}

/// Probe keys addressed by position.
pub(crate) trait ProbeKeys<T> {
    /// Positions.
    fn len(&self) -> usize;
    /// The tag at position `i` (`None` for a NULL key) and its probe row.
    fn get(&self, i: usize) -> (Option<T>, u32);
    /// Every position's tag as one slice, when no key is NULL and the tags
    /// are stored that way, with the probe rows (`None`: the row is the
    /// position).
    #[inline(always)]
    fn run(&self) -> Option<(&[T], Option<&[u32]>)> {
        None
    }
}

/// A morsel of a probe batch: positions are rows of the morsel.
pub(crate) struct MorselKeys<'a, S> {
    pub keys: &'a S,
    pub nulls: Option<&'a arrow_buffer::NullBuffer>,
    pub len: usize,
}

impl<S: KeySource> ProbeKeys<S::Tag> for MorselKeys<'_, S> {
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn get(&self, i: usize) -> (Option<S::Tag>, u32) {
        match self.nulls {
            Some(n) if n.is_null(i) => (None, i as u32),
            _ => (Some(self.keys.tag(i)), i as u32),
        }
    }
    #[inline(always)]
    fn run(&self) -> Option<(&[S::Tag], Option<&[u32]>)> {
        match self.nulls {
            Some(_) => None,
            None => self.keys.tags().map(|t| (&t[..self.len], None)),
        }
    }
}

/// The positions `sel` of other probe keys (those a key filter let through).
pub(crate) struct Selected<'a, P> {
    pub inner: &'a P,
    pub sel: &'a [u32],
}

impl<T, P: ProbeKeys<T>> ProbeKeys<T> for Selected<'_, P> {
    fn len(&self) -> usize {
        self.sel.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> (Option<T>, u32) {
        self.inner.get(self.sel[i] as usize)
    }
}

/// Sets `sel` to the positions of `input` whose key `pass` lets through,
/// and those with a NULL key (a key filter cannot rule them out: the
/// candidate rules decide). Compiled for the CPU's instruction-set level
/// (see `crate::cpu`).
#[inline]
pub(crate) fn select<T, P: ProbeKeys<T>>(input: &P, pass: impl Fn(T) -> bool, sel: &mut Vec<u32>) {
    #[inline(always)]
    fn select_loop<T, P: ProbeKeys<T>>(input: &P, pass: &impl Fn(T) -> bool, sel: &mut Vec<u32>) {
        sel.clear();
        sel.reserve(input.len());
        for i in 0..input.len() {
            if input.get(i).0.is_none_or(pass) {
                sel.push(i as u32);
            }
        }
    }
    crate::cpu::dispatch!(select_loop(input, &pass, sel))
}

/// A partition of scattered probe keys.
pub(crate) struct PartKeys<'a, T> {
    pub tags: &'a [T],
    pub rows: &'a [u32],
}

impl<T: Copy> ProbeKeys<T> for PartKeys<'_, T> {
    fn len(&self) -> usize {
        self.tags.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> (Option<T>, u32) {
        (Some(self.tags[i]), self.rows[i])
    }
    #[inline(always)]
    fn run(&self) -> Option<(&[T], Option<&[u32]>)> {
        Some((self.tags, Some(self.rows)))
    }
}

/// Probe rows whose key is NULL.
pub(crate) struct NullKeys<'a> {
    pub rows: &'a [u32],
}

impl<T> ProbeKeys<T> for NullKeys<'_> {
    fn len(&self) -> usize {
        self.rows.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> (Option<T>, u32) {
        (None, self.rows[i])
    }
}

/// Probes from `cur` on, appending (build row, probe row) candidate pairs
/// until `limit` pairs are held or the input ends. Returns `true` when the
/// input is done.
///
/// `same(probe_row, build_row)` confirms a tag match for byte keys.
///
/// Compiled for the CPU's instruction-set level (see `crate::cpu`).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn probe<S: KeySource, P: ProbeKeys<S::Tag>>(
    table: &JoinTable<S::Tag>,
    input: &P,
    cand: &Candidates<'_>,
    same: impl Fn(u32, u32) -> bool,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    crate::cpu::dispatch!(probe_loop::<S, P>(
        table, input, cand, &same, cur, limit, build_rows, probe_rows
    ))
}

/// [`probe`] at one instruction-set level.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn probe_loop<S: KeySource, P: ProbeKeys<S::Tag>>(
    table: &JoinTable<S::Tag>,
    input: &P,
    cand: &Candidates<'_>,
    same: &impl Fn(u32, u32) -> bool,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    if table.unique() && cand.null_group.is_none() && cand.extra.is_empty() {
        if !S::VERIFY {
            match input.run() {
                Some((tags, None)) => {
                    return probe_unique_run::<S>(
                        table,
                        tags,
                        |i| i as u32,
                        cur,
                        limit,
                        build_rows,
                        probe_rows,
                    );
                }
                Some((tags, Some(rows))) => {
                    return probe_unique_run::<S>(
                        table,
                        tags,
                        |i| rows[i],
                        cur,
                        limit,
                        build_rows,
                        probe_rows,
                    );
                }
                None => {}
            }
        }
        return if table.large() {
            probe_unique::<S, P, true>(table, input, same, cur, limit, build_rows, probe_rows)
        } else {
            probe_unique::<S, P, false>(table, input, same, cur, limit, build_rows, probe_rows)
        };
    }
    let n = input.len();
    // Rows are looked up in blocks: tags and hashes first, with a prefetch
    // of each home slot, then the lookups, so that the cache misses of a
    // large table overlap instead of queueing one after another.
    const BLOCK: usize = 32;
    let mut block = [(None, 0u64, 0u32); BLOCK];
    while cur.i < n {
        let start = cur.i;
        let end = (start + BLOCK).min(n);
        for (slot, j) in block.iter_mut().zip(start..end) {
            let (tag, prow) = input.get(j);
            let h = tag.map_or(0, S::hash);
            if tag.is_some() && table.large() {
                table.prefetch(h);
            }
            *slot = (tag, h, prow);
        }
        for &(tag, h, prow) in &block[..end - start] {
            let (group, extra): (&[u32], &[u32]) = match tag {
                Some(t) => {
                    let g = table
                        .find(t, h, |b| !S::VERIFY || same(prow, b))
                        .map(|e| table.group(e))
                        .unwrap_or(&[]);
                    (g, cand.extra)
                }
                None => (cand.null_group.unwrap_or(&[]), &[]),
            };
            let mut total = group.len() + extra.len();
            if cand.first_only {
                total = total.min(1);
            }
            while cur.k < total {
                let room = limit - build_rows.len();
                if room == 0 {
                    return false;
                }
                let (src, at) = if cur.k < group.len() {
                    (group, cur.k)
                } else {
                    (extra, cur.k - group.len())
                };
                let take = room.min(src.len() - at).min(total - cur.k);
                build_rows.extend_from_slice(&src[at..at + take]);
                probe_rows.resize(probe_rows.len() + take, prow);
                cur.k += take;
            }
            cur.i += 1;
            cur.k = 0;
        }
    }
    true
}

/// [`probe`] for a table whose keys are unique and no extra candidates: at
/// most one match per probe row, so a run of `room` rows cannot overflow
/// the output and the loop needs no per-candidate bookkeeping. With
/// `PREFETCH`, rows go in blocks whose home slots are prefetched first.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn probe_unique<S: KeySource, P: ProbeKeys<S::Tag>, const PREFETCH: bool>(
    table: &JoinTable<S::Tag>,
    input: &P,
    same: &impl Fn(u32, u32) -> bool,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    const BLOCK: usize = 32;
    let n = input.len();
    // A function, not a closure: a closure is not always inlined, and one
    // left out of line runs at the baseline level, outside `dispatch!`.
    #[inline(always)]
    fn look<S: KeySource>(
        table: &JoinTable<S::Tag>,
        same: &impl Fn(u32, u32) -> bool,
        tag: Option<S::Tag>,
        h: u64,
        prow: u32,
        bi: &mut Vec<u32>,
        pi: &mut Vec<u32>,
    ) {
        let found = match tag {
            None => None,
            Some(t) if !S::VERIFY => table.find_exact(t, h),
            Some(t) => table.find(t, h, |b| same(prow, b)),
        };
        if let Some(e) = found {
            bi.push(e.start);
            pi.push(prow);
        }
    }
    while cur.i < n {
        let room = limit - build_rows.len();
        if room == 0 {
            return false;
        }
        let end = n.min(cur.i + room);
        if PREFETCH {
            let mut block = [(None, 0u64, 0u32); BLOCK];
            let mut at = cur.i;
            while at < end {
                let stop = end.min(at + BLOCK);
                for (slot, j) in block.iter_mut().zip(at..stop) {
                    let (tag, prow) = input.get(j);
                    let h = tag.map_or(0, S::hash);
                    table.prefetch(h);
                    *slot = (tag, h, prow);
                }
                for &(tag, h, prow) in &block[..stop - at] {
                    look::<S>(table, same, tag, h, prow, build_rows, probe_rows);
                }
                at = stop;
            }
        } else {
            for j in cur.i..end {
                let (tag, prow) = input.get(j);
                look::<S>(
                    table,
                    same,
                    tag,
                    tag.map_or(0, S::hash),
                    prow,
                    build_rows,
                    probe_rows,
                );
            }
        }
        cur.i = end;
    }
    true
}

/// Rows of [`probe_unique_run`] hashed, then looked up, together.
const RUN: usize = 64;

/// [`probe_unique`] for exact tags stored as one slice with no NULL key:
/// a run of rows is hashed in a loop of its own (straight-line code the
/// compiler vectorizes), prefetched when the table is large, then looked
/// up, every row's pair written to a buffer on the stack and kept when it
/// matched, so the loop has no branch on the match.
#[inline(always)]
fn probe_unique_run<S: KeySource>(
    table: &JoinTable<S::Tag>,
    tags: &[S::Tag],
    row_of: impl Fn(usize) -> u32,
    cur: &mut Cursor,
    limit: usize,
    build_rows: &mut Vec<u32>,
    probe_rows: &mut Vec<u32>,
) -> bool {
    let n = tags.len();
    let mut hashes = [0u64; RUN];
    let mut starts = [0usize; RUN];
    let mut found_b = [0u32; RUN];
    let mut found_p = [0u32; RUN];
    while cur.i < n {
        let room = limit - build_rows.len();
        if room == 0 {
            return false;
        }
        let end = n.min(cur.i + room.min(RUN));
        let run = &tags[cur.i..end];
        for (h, &t) in hashes.iter_mut().zip(run) {
            *h = S::hash(t);
        }
        table.bucket_starts(&hashes[..run.len()], &mut starts);
        if table.large() {
            for &at in &starts[..run.len()] {
                table.prefetch_slot(at);
            }
        }
        let mut m = 0;
        for (j, ((&t, &h), &at)) in run.iter().zip(&hashes).zip(&starts).enumerate() {
            let e = table.find_exact_from(t, h, at);
            found_b[m] = e.map_or(0, |e| e.start);
            found_p[m] = row_of(cur.i + j);
            m += e.is_some() as usize;
        }
        build_rows.extend_from_slice(&found_b[..m]);
        probe_rows.extend_from_slice(&found_p[..m]);
        cur.i = end;
    }
    true
}
