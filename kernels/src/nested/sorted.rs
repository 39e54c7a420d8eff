//! The fast path for range conditions: a sorted build side and one window
//! of it per probe row.
//!
//! # Algorithm
//!
//! 1. *Sort*: the build rows are sorted on the `i64` images of one build
//!    column of the range conditions (the *sort column*); rows where it is
//!    NULL go last. The sort column is the one whose conditions bound the
//!    window from both sides (a band, or an equality written as `<=` and
//!    `>=`), then the one with the most conditions, then the first
//!    condition's ([`sort_column`]). The build batch is reordered once (`take`), so a window
//!    of the sorted order is a contiguous slice of it.
//! 2. *Window*: every condition on the sort column bounds, for a probe
//!    value `x`, the sorted images `k` that satisfy it: `x < k` is
//!    `[upper(x), n)`, `x <= k` is `[lower(x), n)`, `x > k` is
//!    `[0, lower(x))` and `x >= k` is `[0, upper(x))`, with `lower` and
//!    `upper` binary searches. A band (`b.t >= a.lo AND b.t <= a.hi`) gives
//!    both ends; the window is the intersection.
//! 3. *Residual*: the other conditions and the filter are tested on the
//!    window's pairs, in blocks (see `predicate`). Without them the window
//!    is *exact*: every pair in it matches, so probe rows are marked by
//!    whether their window is empty, build rows by the union of the windows
//!    (kept as intervals, not bits), and a count-only output adds window
//!    sizes without materializing a single pair.
//!
//! This is a piecewise merge join with the merge replaced by binary
//! searches: each probe row costs `O(log n)` plus its output, and probe
//! morsels need no sorting, so they stay independent and parallel.
//!
//! For `NOT IN` (three-valued logic) a NULL probe value drops its bound
//! instead of ruling the row out, and the build rows with a NULL sort value
//! are candidates for every probe row: on those pairs the window's
//! conditions are unknown, which conflicts unless the residual is FALSE.

use std::sync::Mutex;

use arrow_array::{RecordBatch, UInt32Array};
use arrow_select::take::take_record_batch;
use rayon::prelude::*;

use super::emit::{Output, Scratch};
use super::plain::BLOCK_PAIRS;
use super::predicate::{Images, Residual};
use super::prepare::{Prepared, SideCondition};
use crate::bitmap::AtomicBitmap;
use crate::condition::CmpOp;
use crate::error::Result;
use crate::kernel::BatchSink;
use crate::memory::MemoryReservation;
use crate::memory::batch_bytes;

/// Build sides above this many rows are sorted in parallel.
const PAR_SORT_ROWS: usize = 1 << 16;
/// The shared list of matched build intervals is merged when it grows past
/// this many entries (or half the build rows, if more).
const MERGE_INTERVALS: usize = 1 << 16;

/// The candidate build rows `[lo, hi)` (sorted positions) of one probe row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Window {
    probe: u32,
    lo: u32,
    hi: u32,
}

/// The sorted build side, and how to find windows in it.
struct SortedBuild {
    /// The build batch in sorted order.
    batch: RecordBatch,
    /// Images of the sort column, ascending, for the first `keys.len()`
    /// rows of `batch` (the rest have a NULL sort value).
    keys: Vec<i64>,
    /// The sorted batch and keys, charged while the join runs.
    _memory: MemoryReservation,
}

impl SortedBuild {
    /// Sorts `build` on column `column`'s images.
    fn new(prep: &Prepared<'_>, build: &RecordBatch, column: usize) -> Result<Self> {
        let n = build.num_rows();
        let memory = &prep.join.options.memory;
        // (image, row) pairs, the images, and the permutation.
        let sort_mem = memory.try_reserve(
            "sorting the build side",
            n * 16 + Images::bytes_for(n) + n * 4,
        )?;
        let images = Images::of(build.column(column).as_ref())?;
        let mut order: Vec<(i64, u32)> = (0..n)
            .filter(|&i| !images.is_null(i))
            .map(|i| (images.values[i], i as u32))
            .collect();
        if order.len() > PAR_SORT_ROWS {
            order.par_sort_unstable();
        } else {
            order.sort_unstable();
        }
        let perm: Vec<u32> = order
            .iter()
            .map(|&(_, r)| r)
            .chain((0..n).filter(|&i| images.is_null(i)).map(|i| i as u32))
            .collect();
        let keys: Vec<i64> = order.iter().map(|&(k, _)| k).collect();
        drop(order);
        let kept =
            memory.try_reserve("the sorted build side", batch_bytes(build) + keys.len() * 8)?;
        let batch = take_record_batch(build, &UInt32Array::from(perm))?;
        drop(sort_mem);
        Ok(SortedBuild {
            batch,
            keys,
            _memory: kept,
        })
    }

    /// The windows of the `len` rows of a probe morsel, whose bounding
    /// conditions' probe images are `images`. Empty windows are left out;
    /// for `NOT IN` a row may have two (its window and the NULL rows).
    fn windows(
        &self,
        bounding: &[SideCondition],
        images: &[Images],
        null_aware: bool,
        len: usize,
        out: &mut Vec<Window>,
    ) {
        let keys = &self.keys[..];
        let (n_valid, n) = (keys.len() as u32, self.batch.num_rows() as u32);
        // `x <op> k + o` is `x - o <op> k`: search for `x - o`, exactly.
        let lower = |x: i128| keys.partition_point(|&k| i128::from(k) < x) as u32;
        let upper = |x: i128| keys.partition_point(|&k| i128::from(k) <= x) as u32;
        for r in 0..len {
            let (mut lo, mut hi) = (0u32, n_valid);
            let mut ruled_out = false;
            for (c, img) in bounding.iter().zip(images) {
                if img.is_null(r) {
                    if null_aware {
                        continue; // unknown: no bound
                    }
                    ruled_out = true;
                    break;
                }
                let x = i128::from(img.values[r]) - c.offset;
                match c.op {
                    CmpOp::Lt => lo = lo.max(upper(x)),
                    CmpOp::Le => lo = lo.max(lower(x)),
                    CmpOp::Gt => hi = hi.min(lower(x)),
                    CmpOp::Ge => hi = hi.min(upper(x)),
                }
            }
            if !ruled_out && lo < hi {
                out.push(Window {
                    probe: r as u32,
                    lo,
                    hi,
                });
            }
            if null_aware && n_valid < n {
                out.push(Window {
                    probe: r as u32,
                    lo: n_valid,
                    hi: n,
                });
            }
        }
    }
}

/// The build column to sort on: two-sided windows beat one-sided ones
/// (`k <= x AND k >= x` finds equal keys, a band finds its band), then
/// more conditions beat fewer, then the earlier column wins. `conds` is not
/// empty.
fn sort_column(conds: &[SideCondition]) -> usize {
    let mut best = (conds[0].build, (false, 0));
    for (i, c) in conds.iter().enumerate() {
        if conds[..i].iter().any(|d| d.build == c.build) {
            continue; // scored at its first condition
        }
        let on = || conds.iter().filter(|d| d.build == c.build);
        // `x < k` and `x <= k` bound `k` from below; `>` and `>=` from above.
        let below = on().any(|d| matches!(d.op, CmpOp::Lt | CmpOp::Le));
        let above = on().any(|d| matches!(d.op, CmpOp::Gt | CmpOp::Ge));
        let score = (below && above, on().count());
        if score > best.1 {
            best = (c.build, score);
        }
    }
    best.0
}

/// Runs the fast path of `prep` (which has at least one range condition).
pub(crate) fn run(prep: &Prepared<'_>, build: &RecordBatch, sink: &BatchSink<'_>) -> Result<()> {
    let join = prep.join;
    let roles = prep.roles;
    let column = sort_column(&prep.conds);
    let (bounding, rest): (Vec<SideCondition>, Vec<SideCondition>) =
        prep.conds.iter().partition(|c| c.build == column);
    let sorted = SortedBuild::new(prep, build, column)?;
    let n = sorted.batch.num_rows();
    let residual = Residual::new(
        &rest,
        join.options.filter.as_deref(),
        roles.null_aware,
        prep.build_is_left,
        &sorted.batch,
        &join.options.memory,
    )?;
    let exact = residual.is_empty();
    // Exact windows mark build rows as intervals; tested pairs, as bits.
    let visited = (roles.tracks_build() && !exact).then(|| AtomicBitmap::new(n));
    let _visited_mem = join.options.memory.try_reserve(
        "the build side's match bitmap",
        visited.as_ref().map_or(0, |_| AtomicBitmap::bytes_for(n)),
    )?;
    let intervals = (roles.tracks_build() && exact).then(|| Mutex::new(Vec::new()));
    let out = Output::new(prep, &sorted.batch, visited.as_ref(), sink);
    let exists_only = roles.probe_exists_only();
    prep.morsels().par_iter().try_for_each_init(
        || (Scratch::default(), Vec::new()),
        |(s, windows), m| -> Result<()> {
            let probe = prep.morsel_batch(m);
            let len = probe.num_rows();
            let images = bounding
                .iter()
                .map(|c| Images::of(probe.column(c.probe).as_ref()))
                .collect::<Result<Vec<_>>>()?;
            windows.clear();
            sorted.windows(&bounding, &images, roles.null_aware, len, windows);
            if roles.tracks_probe() {
                s.marks.reset(len);
            }
            if exact {
                if roles.tracks_probe() {
                    windows.iter().for_each(|w| s.marks.set(w.probe as usize));
                }
                if let Some(iv) = &intervals {
                    let merged = super::emit::merge_intervals(
                        windows.iter().map(|w| (w.lo, w.hi)).collect(),
                    );
                    let mut iv = iv.lock().unwrap_or_else(|e| e.into_inner());
                    iv.extend(merged);
                    // Keep the list near its merged size (at most one
                    // interval per two build rows) however many morsels.
                    if iv.len() > MERGE_INTERVALS.max(n / 2) {
                        *iv = super::emit::merge_intervals(std::mem::take(&mut *iv));
                    }
                }
                if roles.emit_pairs {
                    exact_pairs(&out, &probe, windows, s)?;
                }
            } else {
                let pimages = residual.probe_images(&probe)?;
                let flush = |s: &mut Scratch| -> Result<()> {
                    prep.join.options.check_cancelled()?;
                    residual.apply(&probe, &pimages, &mut s.build_rows, &mut s.probe_rows)?;
                    out.pairs(&probe, s)
                };
                for w in windows.iter() {
                    let mut at = w.lo;
                    while at < w.hi {
                        // A semi/anti probe row is decided by its first match.
                        if exists_only && s.marks.get(w.probe as usize) {
                            break;
                        }
                        let room = (BLOCK_PAIRS - s.build_rows.len()) as u32;
                        let end = w.hi.min(at.saturating_add(room));
                        s.build_rows.extend(at..end);
                        s.probe_rows
                            .resize(s.probe_rows.len() + (end - at) as usize, w.probe);
                        at = end;
                        if s.build_rows.len() >= BLOCK_PAIRS {
                            flush(s)?;
                        }
                    }
                }
                flush(s)?;
            }
            out.end_morsel(&probe, len, s)
        },
    )?;
    if let Some(v) = &visited {
        out.build_rows_by_bitmap(&sorted.batch, v)?;
    }
    if let Some(iv) = intervals {
        let iv = iv.into_inner().unwrap_or_else(|e| e.into_inner());
        out.build_rows_by_intervals(&sorted.batch, iv)?;
    }
    Ok(())
}

/// Outputs every pair of exact windows: counted when the output has no
/// columns, else gathered in batches of at most `batch_size` pairs.
fn exact_pairs(
    out: &Output<'_>,
    probe: &RecordBatch,
    windows: &[Window],
    s: &mut Scratch,
) -> Result<()> {
    if out.count_only() {
        let pairs: usize = windows.iter().map(|w| (w.hi - w.lo) as usize).sum();
        return out.count(pairs, s);
    }
    let bs = out.emitter.batch_size;
    for w in windows {
        let mut at = w.lo;
        while at < w.hi {
            let room = (bs - s.build_rows.len()).min(u32::MAX as usize) as u32;
            let end = w.hi.min(at.saturating_add(room));
            s.build_rows.extend(at..end);
            s.probe_rows
                .resize(s.probe_rows.len() + (end - at) as usize, w.probe);
            at = end;
            if s.build_rows.len() >= bs {
                out.pairs(probe, s)?;
            }
        }
    }
    out.pairs(probe, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(probe: usize, op: CmpOp, build: usize) -> SideCondition {
        SideCondition {
            probe,
            op,
            build,
            offset: 0,
        }
    }

    #[test]
    fn the_sort_column_prefers_two_sided_windows() {
        // x >= b.lo AND x <= b.hi AND y <= b.k AND y >= b.k: sort on b.k.
        let band_and_key = [
            c(0, CmpOp::Ge, 4),
            c(0, CmpOp::Le, 5),
            c(1, CmpOp::Le, 0),
            c(1, CmpOp::Ge, 0),
        ];
        assert_eq!(sort_column(&band_and_key), 0);
        // b.t >= x.lo AND b.t <= x.hi: one column, both sides.
        assert_eq!(sort_column(&[c(3, CmpOp::Le, 2), c(4, CmpOp::Ge, 2)]), 2);
        // One-sided everywhere: the first condition's column.
        assert_eq!(sort_column(&[c(0, CmpOp::Lt, 7), c(0, CmpOp::Lt, 1)]), 7);
        assert_eq!(
            sort_column(&[c(0, CmpOp::Lt, 7), c(0, CmpOp::Lt, 1), c(2, CmpOp::Le, 1)]),
            1
        );
    }
}
