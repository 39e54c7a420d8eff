//! Running a sort-merge join: encode, check, partition, sort, merge, and
//! the source of unmatched rows (see the [module docs](super) for the
//! phases).
//!
//! # Which side is "build"
//!
//! The merge is symmetric, but the shared [`Emitter`] holds one side as a
//! single batch (the "build" side, as in the hash join) and reads the other
//! from its batches where they are. The build side is an input that is one
//! batch already, else the smaller input (copied into one batch).
//! [`Roles`](crate::join_type::Roles) turns that choice into the join-type
//! flags; the result does not depend on it.

use arrow_array::RecordBatch;
use rayon::prelude::*;

use super::bucket::{Buckets, Cut, KeyBits, key_bounds, partition};
use super::chunked::{Chunked, chunk_rows};
use super::emit::{Pairs, RunEmitter};
use super::gather::Batches;
use super::order::{ImageConv, OrderSpec, SideKeys, SortKey};
use super::prepare::{Prepared, check_presorted};
use super::ranges::RangeValues;
use super::runs::{merge, split};
use super::sort::{Entry, sort_entries};
use crate::bitmap::AtomicBitmap;
use crate::error::Result;
use crate::join_type::JoinSide;
use crate::kernel::JoinInput;
use crate::kernel::concat::one_batch;
use crate::kernel::dispatch::with_key_encoding;
use crate::kernel::emit::{BatchSink, Emitter};
use crate::memory::{MemoryBudget, MemoryReservation};
use crate::rows::RowSource;

/// Entries (both sides together) per partition: 16384 entries of 16 bytes
/// are 256 KiB, half of a 512 KiB L2 cache, so a partition sorts and
/// merges in cache.
pub(super) const PARTITION_ENTRIES: usize = 16384;
/// At most 2^10 partitions, so the scatter writes to few enough places at
/// once to stay within the TLB (as in the hash join).
const MAX_PARTITION_BITS: u32 = 10;
/// A partition with at least this many entries (and, when there are
/// several, twice the average) is sorted and merged in parallel. Debug
/// builds use 64, so that the tests' small inputs take this path too.
const HOT_ENTRIES: usize = 1 << 16;
/// A run pair with more candidate pairs than this is emitted by several
/// workers. Debug builds use 16.
const BIG_RUN: usize = 1 << 16;
/// [`BIG_RUN`], or a small value in debug builds (see [`hot_entries`]).
pub(crate) fn big_run() -> usize {
    if cfg!(debug_assertions) { 16 } else { BIG_RUN }
}

/// The larger side must have this many rows before a key filter of the
/// smaller side's keys is tried (debug builds: 64, so the tests use it).
const KEY_FILTER_MIN_ROWS: usize = if cfg!(debug_assertions) { 64 } else { 1 << 16 };

/// [`HOT_ENTRIES`], or a small value in debug builds, so that the tests'
/// small inputs take the parallel paths too.
fn hot_entries() -> usize {
    if cfg!(debug_assertions) {
        64
    } else {
        HOT_ENTRIES
    }
}

impl Prepared<'_> {
    /// Runs on the current rayon pool.
    pub(crate) fn run(&self, sink: &BatchSink<'_>) -> Result<()> {
        with_key_encoding!(&self.kind, S => self.run_keys::<S>(sink))
    }

    fn run_keys<S: SortKey>(&self, sink: &BatchSink<'_>) -> Result<()> {
        let join = self.join;
        let mem = &join.options.memory;
        let build_is_left = self.build_side == JoinSide::Left;
        let (build_in, probe_in) = if build_is_left {
            (self.left, self.right)
        } else {
            (self.right, self.left)
        };
        let (build, _copy_mem) = concat(build_in, mem)?;
        let build_batches = std::slice::from_ref(&build);
        let (lb, rb) = if build_is_left {
            (build_batches, probe_in.batches())
        } else {
            (probe_in.batches(), build_batches)
        };
        let (kind, ne) = (&self.kind, join.keys.null_equal);
        let lk = SideKeys::<S>::encode(kind, self.left.schema().clone(), lb, &self.left_keys, ne)?;
        let rk =
            SideKeys::<S>::encode(kind, self.right.schema().clone(), rb, &self.right_keys, ne)?;

        // Presorted declarations are checked in SQL order, the merge order
        // whenever a side is presorted.
        let (pl, pr) = join.presorted;
        let conv = ImageConv::for_type(&self.first_type);
        let sql = OrderSpec {
            conv,
            hash_order: false,
        };
        if pl {
            check_presorted(&lk, &sql, "left")?;
        }
        if pr {
            check_presorted(&rk, &sql, "right")?;
        }
        let spec = OrderSpec {
            conv,
            hash_order: !(pl || pr),
        };

        let (nl, nr) = (lk.num_rows(), rk.num_rows());
        let key = |k: &S, i: usize| S::local_key(k, i, &spec);
        let roles = self.roles;
        let entry = std::mem::size_of::<Entry<S::K>>();
        // A small side against a much larger one: the larger side is sorted
        // and merged chunk by chunk (see `chunked`); else both sides are
        // range-partitioned.
        let chunk = if nl >= nr {
            chunk_rows(nr, nl).map(|c| (c, true))
        } else {
            chunk_rows(nl, nr).map(|c| (c, false))
        };
        let _entries_mem;
        let layout = match chunk {
            Some((chunk, big_is_left)) => {
                let (small, small_presorted) = if big_is_left { (&rk, pr) } else { (&lk, pl) };
                _entries_mem = mem.try_reserve(
                    "the sort entries",
                    (small.num_rows() + 2 * chunk * rayon::current_num_threads()) * entry,
                )?;
                let mut sorted = partition(small, Cut::new(0, 0, 0), key, None);
                if !small_presorted {
                    sort_entries(&mut sorted.entries, small, &mut Vec::new(), false);
                }
                Layout::Chunked {
                    chunk,
                    big_is_left,
                    small: sorted,
                }
            }
            None => {
                _entries_mem = mem.try_reserve("the sort entries", (nl + nr) * entry)?;
                self.partitioned(&lk, &rk, &spec, nl, nr)?
            }
        };

        // Match bitmaps of the sides whose rows are output by whether they
        // matched.
        let (track_l, track_r) = if build_is_left {
            (roles.tracks_build(), roles.tracks_probe())
        } else {
            (roles.tracks_probe(), roles.tracks_build())
        };
        let lmarks = track_l.then(|| AtomicBitmap::new(nl));
        let rmarks = track_r.then(|| AtomicBitmap::new(nr));
        let _marks_mem = mem.try_reserve(
            "the match bitmaps",
            lmarks.as_ref().map_or(0, |_| AtomicBitmap::bytes_for(nl))
                + rmarks.as_ref().map_or(0, |_| AtomicBitmap::bytes_for(nr)),
        )?;
        let (visited, probe_keys) = if build_is_left {
            (lmarks.as_ref(), &rk)
        } else {
            (rmarks.as_ref(), &lk)
        };
        let emitter = Emitter {
            roles,
            layout: &self.layout,
            build_is_left,
            build: &build,
            filter: join.options.filter.as_deref(),
            visited,
            batch_size: join.options.batch_size,
            sink,
        };
        // A probe side of one batch is read as that batch (the filter then
        // sees it without a copy).
        let many = Batches::new(&probe_keys.list);
        let probe: &dyn RowSource = match probe_in.batches() {
            [one] => one,
            _ => &many,
        };
        // Conditions beyond the keys: a pair may fail them.
        let residual = join.options.filter.is_some() || !join.ranges.is_empty();
        let _ranges_mem = mem.try_reserve(
            "the range condition values",
            if join.ranges.is_empty() {
                0
            } else {
                RangeValues::bytes_for(join.ranges.len(), nl, nr)
            },
        )?;
        let ranges = (!join.ranges.is_empty())
            .then(|| RangeValues::new(&join.ranges, lk.list.batches(), rk.list.batches()))
            .transpose()?;
        let runs = RunEmitter {
            emitter: &emitter,
            probe,
            build_is_left,
            left_marks: lmarks.as_ref(),
            right_marks: rmarks.as_ref(),
            marks_only: !roles.emit_pairs && !residual,
            batch_size: join.options.batch_size,
            ranges: ranges.as_ref(),
            parallel: rayon::current_num_threads() > 1,
        };
        let (lnulls, rnulls) = match layout {
            Layout::Partitioned { lsc, rsc } => {
                let work = Work {
                    lk: &lk,
                    rk: &rk,
                    lsc: &lsc,
                    rsc: &rsc,
                    presorted: (pl, pr),
                    runs: &runs,
                    mem,
                };
                work.partitions()?;
                (lsc.null_rows, rsc.null_rows)
            }
            Layout::Chunked {
                chunk,
                big_is_left,
                small,
            } => {
                let (big, small_keys) = if big_is_left { (&lk, &rk) } else { (&rk, &lk) };
                let chunked = Chunked {
                    big,
                    big_is_left,
                    big_presorted: if big_is_left { pl } else { pr },
                    small: small_keys,
                    small_sorted: &small.entries,
                    spec,
                    chunk,
                };
                let big_nulls = chunked.run(&runs)?;
                if big_is_left {
                    (big_nulls, small.null_rows)
                } else {
                    (small.null_rows, big_nulls)
                }
            }
        };

        // NULL keys: one more run in null-equal mode (composite keys carry
        // their NULLs inside the row encoding and have none here).
        let mut pairs = Pairs::default();
        if join.keys.null_equal {
            runs.run(&lnulls[..], &rnulls[..], &mut pairs)?;
        }
        if roles.null_aware {
            if residual {
                self.not_in_candidates(&runs, &lnulls, &rnulls, nl, nr, &mut pairs)?;
            } else if nr > 0 {
                if !rnulls.is_empty() {
                    return Ok(()); // a NULL in the NOT IN list: no row is kept
                }
                // A NULL left key is unknown against every right row.
                if let Some(m) = &lmarks {
                    lnulls.iter().for_each(|&r| m.set(r as usize));
                }
            }
        }
        runs.flush(&mut pairs)?;

        // Source: rows decided by the bitmaps.
        for (marks, is_left, n) in [(&lmarks, true, nl), (&rmarks, false, nr)] {
            let Some(m) = marks else { continue };
            let from_build = is_left == build_is_left;
            let want = if from_build {
                roles.build_semi
            } else {
                roles.probe_semi
            };
            let src: &dyn RowSource = if from_build { &build } else { probe };
            emitter.rows_where(src, from_build, n, |i| m.get(i) == want)?;
        }
        Ok(())
    }

    /// Range-partitions both sides by the top bits of their sort keys
    /// (stable: presorted sides stay sorted), leaving out the larger side's
    /// rows that a key filter rules out.
    fn partitioned<S: SortKey>(
        &self,
        lk: &SideKeys<'_, S>,
        rk: &SideKeys<'_, S>,
        spec: &OrderSpec,
        nl: usize,
        nr: usize,
    ) -> Result<Layout<S::K>> {
        let join = self.join;
        let bits = match join.keys.partitions {
            Some(p) => p.trailing_zeros(),
            None if join.presorted == (true, true) => 0,
            None => (nl + nr)
                .div_ceil(PARTITION_ENTRIES)
                .max(1)
                .next_power_of_two()
                .trailing_zeros()
                .min(MAX_PARTITION_BITS),
        };
        let key = |k: &S, i: usize| S::local_key(k, i, spec);
        let bounds = [key_bounds(lk, key), key_bounds(rk, key)];
        let (lo, hi) = bounds
            .into_iter()
            .flatten()
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
            .unwrap_or((0, 0));
        let cut = Cut::new(lo, hi, bits);
        // Semi-join reduction: when a sample says most of the larger side's
        // rows have no equal key on the other side, a filter of the smaller
        // side's keys keeps them out of the partitions, the sort and the
        // merge. Rows output for *not* matching (outer, anti) still are:
        // that output comes from the match bitmaps, which cover every row.
        // NOT IN is left alone (a key-less candidate can still decide).
        // Tried only when the larger side has at least twice the rows, so
        // that building the filter is cheap beside what it can save.
        let (big_is_left, big_rows, small_rows) = if nl >= nr {
            (true, nl, nr)
        } else {
            (false, nr, nl)
        };
        let mut lkeep = None;
        let mut rkeep = None;
        let mut _filter_mem = None;
        if big_rows >= KEY_FILTER_MIN_ROWS && big_rows >= 2 * small_rows && !self.roles.null_aware {
            let (small, big) = if big_is_left { (rk, lk) } else { (lk, rk) };
            _filter_mem = Some(
                join.options
                    .memory
                    .try_reserve("the key filter", KeyBits::bytes_for(small_rows))?,
            );
            let bits = KeyBits::build(small, key);
            if bits.worth_it(big, key) {
                if big_is_left {
                    lkeep = Some(bits);
                } else {
                    rkeep = Some(bits);
                }
            }
        }
        Ok(Layout::Partitioned {
            lsc: partition(lk, cut, key, lkeep.as_ref()),
            rsc: partition(rk, cut, key, rkeep.as_ref()),
        })
    }

    /// NOT IN with a filter or range conditions: besides equal keys, a NULL on either side is
    /// "unknown" and rules a left row out when the filter holds, so the
    /// candidates also include every left row with a NULL key against every
    /// right row, and every other left row against the right rows with a
    /// NULL key.
    fn not_in_candidates(
        &self,
        runs: &RunEmitter<'_>,
        left_nulls: &[u32],
        right_nulls: &[u32],
        nl: usize,
        nr: usize,
        pairs: &mut Pairs,
    ) -> Result<()> {
        let mem = &self.join.options.memory;
        if !left_nulls.is_empty() && nr > 0 {
            let _m = mem.try_reserve("the NOT IN candidate list", nr * 4)?;
            let all: Vec<u32> = (0..nr as u32).collect();
            runs.run(left_nulls, &all[..], pairs)?;
        }
        if !right_nulls.is_empty() {
            let _m = mem.try_reserve("the NOT IN candidate list", nl * 4)?;
            let mut nulls = left_nulls.iter().peekable();
            let rest: Vec<u32> = (0..nl as u32)
                .filter(|r| {
                    if nulls.peek() == Some(&r) {
                        nulls.next();
                        false
                    } else {
                        true
                    }
                })
                .collect();
            runs.run(&rest[..], right_nulls, pairs)?;
        }
        Ok(())
    }
}

/// How the sides are laid out for the merge.
enum Layout<K> {
    /// Both sides range-partitioned by key.
    Partitioned { lsc: Buckets<K>, rsc: Buckets<K> },
    /// The smaller side sorted whole; the larger merged chunk by chunk.
    Chunked {
        chunk: usize,
        big_is_left: bool,
        small: Buckets<K>,
    },
}

/// One input as one batch (see [`one_batch`]).
fn concat(
    input: &JoinInput,
    mem: &MemoryBudget,
) -> Result<(RecordBatch, Option<MemoryReservation>)> {
    one_batch(input, mem, "copying the smaller input into one batch")
}

/// What the partition tasks share.
struct Work<'a, S: SortKey> {
    lk: &'a SideKeys<'a, S>,
    rk: &'a SideKeys<'a, S>,
    lsc: &'a Buckets<S::K>,
    rsc: &'a Buckets<S::K>,
    presorted: (bool, bool),
    runs: &'a RunEmitter<'a>,
    mem: &'a MemoryBudget,
}

/// A unit of parallel work: a run of ordinary partitions, or one hot one.
#[derive(Debug)]
enum Task {
    Cold(std::ops::Range<usize>),
    Hot(usize),
}

/// A worker's reusable buffers.
struct Worker<K> {
    left: Vec<Entry<K>>,
    right: Vec<Entry<K>>,
    scratch: Vec<Entry<K>>,
    pairs: Pairs,
}

impl<K> Default for Worker<K> {
    fn default() -> Self {
        Worker {
            left: Vec::new(),
            right: Vec::new(),
            scratch: Vec::new(),
            pairs: Pairs::default(),
        }
    }
}

impl<S: SortKey> Work<'_, S> {
    /// Sorts and merges every partition.
    fn partitions(&self) -> Result<()> {
        let parts = self.lsc.offsets.len() - 1;
        let sizes: Vec<usize> = (0..parts)
            .map(|p| self.lsc.range(p).len() + self.rsc.range(p).len())
            .collect();
        let total: usize = sizes.iter().sum();
        let threads = rayon::current_num_threads();
        let hot_min = if parts == 1 {
            hot_entries()
        } else {
            hot_entries().max(2 * total / parts)
        };
        let biggest_cold = sizes.iter().filter(|&&s| s < hot_min).max().copied();
        let _buffers = self.mem.try_reserve(
            "the sort buffers",
            biggest_cold.unwrap_or(0) * std::mem::size_of::<Entry<S::K>>() * 2 * threads,
        )?;
        let tasks = group(&sizes, hot_min, total.div_ceil(threads * 8).max(1));
        tasks
            .par_iter()
            .try_for_each_init(Worker::<S::K>::default, |w, task| match task {
                Task::Hot(p) => self.hot(*p),
                Task::Cold(range) => {
                    for p in range.clone() {
                        self.cold(w, p)?;
                    }
                    self.runs.flush(&mut w.pairs)
                }
            })
    }

    /// Partition `p` of one side, sorted: in place when the side is
    /// presorted (partitioning kept it sorted), else copied into `buf` and
    /// sorted there.
    fn sorted<'b>(
        &'b self,
        left: bool,
        p: usize,
        buf: &'b mut Vec<Entry<S::K>>,
        scratch: &mut Vec<Entry<S::K>>,
        parallel: bool,
    ) -> &'b [Entry<S::K>] {
        let (b, keys, presorted) = if left {
            (self.lsc, self.lk, self.presorted.0)
        } else {
            (self.rsc, self.rk, self.presorted.1)
        };
        let part = &b.entries[b.range(p)];
        if presorted {
            return part;
        }
        buf.clear();
        buf.extend_from_slice(part);
        sort_entries(buf, keys, scratch, parallel);
        buf
    }

    /// An ordinary partition, on this worker alone.
    fn cold(&self, w: &mut Worker<S::K>, p: usize) -> Result<()> {
        if self.lsc.range(p).is_empty() || self.rsc.range(p).is_empty() {
            return Ok(()); // nothing matches; bitmaps keep the rows unmatched
        }
        let Worker {
            left,
            right,
            scratch,
            pairs,
        } = w;
        let left = self.sorted(true, p, left, scratch, false);
        let right = self.sorted(false, p, right, scratch, false);
        merge(left, self.lk, right, self.rk, |a, b| {
            self.runs.run(a, b, pairs)
        })
    }

    /// A hot partition: sorted in parallel, then merged in pieces in
    /// parallel.
    fn hot(&self, p: usize) -> Result<()> {
        let (nl, nr) = (self.lsc.range(p).len(), self.rsc.range(p).len());
        if nl == 0 || nr == 0 {
            return Ok(());
        }
        let entry = std::mem::size_of::<Entry<S::K>>();
        let copies = [(nl, self.presorted.0), (nr, self.presorted.1)]
            .iter()
            .filter(|(_, presorted)| !presorted)
            .map(|(n, _)| 2 * n)
            .sum::<usize>();
        let _mem = self
            .mem
            .try_reserve("sorting a large partition", copies * entry)?;
        let (mut lbuf, mut rbuf, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        let left = self.sorted(true, p, &mut lbuf, &mut scratch, true);
        let right = self.sorted(false, p, &mut rbuf, &mut scratch, true);
        drop(scratch);
        let pieces = split(
            left,
            self.lk,
            right,
            self.rk,
            rayon::current_num_threads() * 8,
        );
        pieces
            .par_iter()
            .try_for_each_init(Pairs::default, |pairs, (lr, rr)| {
                merge(
                    &left[lr.clone()],
                    self.lk,
                    &right[rr.clone()],
                    self.rk,
                    |a, b| self.runs.run(a, b, pairs),
                )?;
                self.runs.flush(pairs)
            })
    }
}

/// Groups partitions into tasks of about `per_task` entries; a partition of
/// at least `hot_min` entries is a task of its own.
fn group(sizes: &[usize], hot_min: usize, per_task: usize) -> Vec<Task> {
    let mut out = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for (p, &s) in sizes.iter().enumerate() {
        if s >= hot_min {
            if start < p {
                out.push(Task::Cold(start..p));
            }
            out.push(Task::Hot(p));
            start = p + 1;
            acc = 0;
            continue;
        }
        acc += s;
        if acc >= per_task {
            out.push(Task::Cold(start..p + 1));
            start = p + 1;
            acc = 0;
        }
    }
    if start < sizes.len() {
        out.push(Task::Cold(start..sizes.len()));
    }
    out
}
