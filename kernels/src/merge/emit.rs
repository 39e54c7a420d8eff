//! From runs of equal keys to output: cross products in bounded chunks.
//!
//! A run pair (the left rows and the right rows of one key) becomes
//! candidate pairs, at most `batch_size` at a time, handed to the core's
//! [`Emitter`] (filter, bookkeeping, gather). When no pair is needed (semi
//! and anti joins without a filter) the rows of both runs are marked
//! matched directly. A run pair with more than 64K pairs (16 in debug
//! builds) is cut along its longer side and emitted by several workers.

use rayon::prelude::*;

use super::exec::big_run;
use super::ranges::RangeValues;
use super::sort::Entry;
use crate::bitmap::AtomicBitmap;
use crate::error::Result;
use crate::kernel::emit::Emitter;
use crate::rows::RowSource;

/// A list of rows of one side.
pub(crate) trait RowList: Sync {
    /// Rows in the list.
    fn len(&self) -> usize;
    /// The `i`-th row.
    fn row(&self, i: usize) -> u32;
}

impl RowList for [u32] {
    #[inline]
    fn len(&self) -> usize {
        <[u32]>::len(self)
    }
    #[inline]
    fn row(&self, i: usize) -> u32 {
        self[i]
    }
}

impl<K: Sync> RowList for [Entry<K>] {
    #[inline]
    fn len(&self) -> usize {
        <[Entry<K>]>::len(self)
    }
    #[inline]
    fn row(&self, i: usize) -> u32 {
        self[i].row
    }
}

/// A part of a row list.
struct Sub<'a, L: ?Sized> {
    list: &'a L,
    start: usize,
    len: usize,
}

impl<L: RowList + ?Sized> RowList for Sub<'_, L> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn row(&self, i: usize) -> u32 {
        self.list.row(self.start + i)
    }
}

/// A worker's chunk of candidate pairs.
#[derive(Debug, Default)]
pub(crate) struct Pairs {
    build: Vec<u32>,
    probe: Vec<u32>,
    /// Scratch of the range conditions' windows.
    sorted: Vec<(i64, u32)>,
}

/// Everything the merge workers share to turn runs into output.
pub(crate) struct RunEmitter<'a> {
    pub emitter: &'a Emitter<'a>,
    /// Where probe-side output columns are gathered from.
    pub probe: &'a dyn RowSource,
    pub build_is_left: bool,
    /// Match bitmaps of the left and right inputs (for the sides tracked).
    pub left_marks: Option<&'a AtomicBitmap>,
    pub right_marks: Option<&'a AtomicBitmap>,
    /// No pair is needed: runs only mark their rows.
    pub marks_only: bool,
    pub batch_size: usize,
    /// Range conditions ANDed with the keys.
    pub ranges: Option<&'a RangeValues>,
    /// Whether the pool has more than one thread (looked up once: it is a
    /// thread-local read, too slow to repeat for every run).
    pub parallel: bool,
}

impl RunEmitter<'_> {
    /// Warms `rows` of the left or right input's output columns (see
    /// [`RowSource::warm`]) before a merge that gathers from them.
    pub(crate) fn warm(&self, left: bool, rows: std::ops::Range<usize>) {
        if left == self.build_is_left {
            self.emitter.build.warm(rows);
        } else {
            self.probe.warm(rows);
        }
    }

    /// Handles one run pair: the candidate pairs `left x right`.
    pub(crate) fn run<L: RowList + ?Sized, R: RowList + ?Sized>(
        &self,
        left: &L,
        right: &R,
        buf: &mut Pairs,
    ) -> Result<()> {
        let (nl, nr) = (left.len(), right.len());
        if nl == 0 || nr == 0 {
            return Ok(());
        }
        if let Some(rv) = self.ranges {
            let mut sorted = std::mem::take(&mut buf.sorted);
            let res = self.run_ranges(rv, left, right, buf, &mut sorted);
            buf.sorted = sorted;
            return res;
        }
        if self.marks_only {
            if let Some(m) = self.left_marks {
                (0..nl).for_each(|i| m.set(left.row(i) as usize));
            }
            if let Some(m) = self.right_marks {
                (0..nr).for_each(|i| m.set(right.row(i) as usize));
            }
            return Ok(());
        }
        if nl == 1 && nr == 1 {
            // The common case of a foreign-key or 1:1 join.
            return self.push(left.row(0), right.row(0), buf);
        }
        if nl.saturating_mul(nr) <= big_run() || !self.parallel {
            return self.cross(left, right, buf);
        }
        // Cut the longer side into pieces of about BIG_RUN pairs each.
        let split_left = nl >= nr;
        let (long, short) = if split_left { (nl, nr) } else { (nr, nl) };
        let step = (big_run() / short).max(1);
        (0..long.div_ceil(step))
            .into_par_iter()
            .try_for_each_init(Pairs::default, |b, c| {
                let start = c * step;
                let len = step.min(long - start);
                if split_left {
                    let sub = Sub {
                        list: left,
                        start,
                        len,
                    };
                    self.cross(&sub, right, b)?;
                } else {
                    let sub = Sub {
                        list: right,
                        start,
                        len,
                    };
                    self.cross(left, &sub, b)?;
                }
                self.flush(b)
            })
    }

    /// Pushes `left x right` into `buf`, emitting every full chunk. The
    /// longer side runs in the inner loop, a slice at a time.
    fn cross<L: RowList + ?Sized, R: RowList + ?Sized>(
        &self,
        left: &L,
        right: &R,
        buf: &mut Pairs,
    ) -> Result<()> {
        if left.len() < right.len() {
            self.cross_outer(left, right, self.build_is_left, buf)
        } else {
            self.cross_outer(right, left, !self.build_is_left, buf)
        }
    }

    fn cross_outer<O: RowList + ?Sized, I: RowList + ?Sized>(
        &self,
        outer: &O,
        inner: &I,
        outer_is_build: bool,
        buf: &mut Pairs,
    ) -> Result<()> {
        let bs = self.batch_size;
        for i in 0..outer.len() {
            let o = outer.row(i);
            let mut j = 0;
            while j < inner.len() {
                let take = (bs - buf.build.len()).min(inner.len() - j);
                let (same, other) = if outer_is_build {
                    (&mut buf.build, &mut buf.probe)
                } else {
                    (&mut buf.probe, &mut buf.build)
                };
                same.extend(std::iter::repeat_n(o, take));
                other.extend((j..j + take).map(|k| inner.row(k)));
                j += take;
                if buf.build.len() >= bs {
                    self.flush(buf)?;
                }
            }
        }
        Ok(())
    }

    /// Adds the pair (left row `l`, right row `r`) to `buf`, emitting it
    /// when full.
    #[inline]
    pub(crate) fn push(&self, l: u32, r: u32, buf: &mut Pairs) -> Result<()> {
        let (b, p) = if self.build_is_left { (l, r) } else { (r, l) };
        buf.build.push(b);
        buf.probe.push(p);
        if buf.build.len() >= self.batch_size {
            self.flush(buf)?;
        }
        Ok(())
    }

    /// Emits the pairs held in `buf`.
    pub(crate) fn flush(&self, buf: &mut Pairs) -> Result<()> {
        let probe_marks = if self.build_is_left {
            self.right_marks
        } else {
            self.left_marks
        };
        self.emitter
            .pairs(self.probe, &mut buf.build, &mut buf.probe, |r| {
                if let Some(m) = probe_marks {
                    m.set(r as usize)
                }
            })
    }
}
