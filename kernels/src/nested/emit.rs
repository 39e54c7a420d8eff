//! From matching pairs to bounded output batches.
//!
//! The core's [`Emitter`] does the join-type bookkeeping (visited build
//! rows, marked probe rows) and the gathering; this module feeds it at most
//! `batch_size` pairs at a time, counts instead of gathering when the output
//! has no columns, and emits the build rows decided at the end (the
//! *source*), from a bitmap (the core's unmatched-rows pass) or from a list
//! of matched row intervals.

use arrow_array::RecordBatch;
use rayon::prelude::*;

use super::prepare::Prepared;
use crate::bitmap::{AtomicBitmap, Bitmap};
use crate::error::Result;
use crate::kernel::BatchSink;
use crate::kernel::emit::Emitter;

/// Build rows per parallel task of the interval source.
const SOURCE_ROWS: usize = 1 << 16;

/// One worker's buffers, reused from morsel to morsel.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Candidate (then matching) build rows.
    pub build_rows: Vec<u32>,
    /// Candidate (then matching) probe rows, one per build row.
    pub probe_rows: Vec<u32>,
    /// Probe rows of the current morsel that matched.
    pub marks: Bitmap,
    chunk_build: Vec<u32>,
    chunk_probe: Vec<u32>,
    /// Rows of a count-only output not emitted yet.
    pending: usize,
}

/// Where matching pairs and single rows go.
pub(crate) struct Output<'a> {
    pub emitter: Emitter<'a>,
    /// The output has no columns: pairs are counted, not gathered.
    count_only: bool,
}

impl<'a> Output<'a> {
    /// The output of `prep` with `build` as its build batch, `visited` its
    /// match bitmap (when build rows are tracked by bits).
    pub(crate) fn new(
        prep: &'a Prepared<'a>,
        build: &'a RecordBatch,
        visited: Option<&'a AtomicBitmap>,
        sink: &'a BatchSink<'a>,
    ) -> Self {
        Output {
            emitter: Emitter {
                roles: prep.roles,
                layout: &prep.layout,
                build_is_left: prep.build_is_left,
                build,
                filter: None,
                visited,
                batch_size: prep.join.options.batch_size,
                sink,
            },
            count_only: prep.count_only(),
        }
    }

    /// Whether pairs are only counted.
    pub(crate) fn count_only(&self) -> bool {
        self.count_only
    }

    /// Handles the matching pairs in `s.build_rows` / `s.probe_rows`
    /// (leaving them empty): marks, then output in batches of at most
    /// `batch_size` rows.
    pub(crate) fn pairs(&self, probe: &RecordBatch, s: &mut Scratch) -> Result<()> {
        let e = &self.emitter;
        let n = s.build_rows.len();
        if n == 0 {
            return Ok(());
        }
        let marks = &mut s.marks;
        if self.count_only {
            if let Some(v) = e.visited {
                s.build_rows.iter().for_each(|&b| v.set(b as usize));
            }
            if e.roles.tracks_probe() {
                s.probe_rows.iter().for_each(|&p| marks.set(p as usize));
            }
            s.build_rows.clear();
            s.probe_rows.clear();
            return if e.roles.emit_pairs {
                self.count(n, s)
            } else {
                Ok(())
            };
        }
        let bs = e.batch_size;
        if n <= bs {
            return e.pairs(probe, &mut s.build_rows, &mut s.probe_rows, |r| {
                marks.set(r as usize)
            });
        }
        for at in (0..n).step_by(bs) {
            let end = (at + bs).min(n);
            s.chunk_build.clear();
            s.chunk_build.extend_from_slice(&s.build_rows[at..end]);
            s.chunk_probe.clear();
            s.chunk_probe.extend_from_slice(&s.probe_rows[at..end]);
            e.pairs(probe, &mut s.chunk_build, &mut s.chunk_probe, |r| {
                marks.set(r as usize)
            })?;
        }
        s.build_rows.clear();
        s.probe_rows.clear();
        Ok(())
    }

    /// Adds `n` rows to a count-only output, emitting every full batch
    /// (the rest at the end of the morsel).
    pub(crate) fn count(&self, n: usize, s: &mut Scratch) -> Result<()> {
        let bs = self.emitter.batch_size;
        s.pending += n;
        while s.pending >= bs {
            self.empty_rows(bs)?;
            s.pending -= bs;
        }
        Ok(())
    }

    /// Emits the rows of a count-only output still pending.
    fn flush_count(&self, pending: &mut usize) -> Result<()> {
        if *pending > 0 {
            self.empty_rows(*pending)?;
            *pending = 0;
        }
        Ok(())
    }

    /// A batch of `n` rows and no columns.
    fn empty_rows(&self, n: usize) -> Result<()> {
        let batch = self.emitter.layout.gather(None, None, n)?;
        (self.emitter.sink)(batch)
    }

    /// Ends a probe morsel of `len` rows: pending counts, then the probe
    /// rows decided by their marks (outer, semi and anti joins on the probe
    /// side).
    pub(crate) fn end_morsel(
        &self,
        probe: &RecordBatch,
        len: usize,
        s: &mut Scratch,
    ) -> Result<()> {
        self.flush_count(&mut s.pending)?;
        self.emitter.marked_rows(probe, len, &s.marks)
    }

    /// The source: build rows whose visited bit says they are output
    /// (unmatched rows of outer and anti joins, matched rows of semi joins).
    pub(crate) fn build_rows_by_bitmap(
        &self,
        build: &RecordBatch,
        visited: &AtomicBitmap,
    ) -> Result<()> {
        let want = self.emitter.roles.build_semi;
        self.emitter
            .rows_where(build, true, build.num_rows(), |i| visited.get(i) == want)
    }

    /// The source when matched build rows are known as row intervals
    /// `[start, end)` (in any order, possibly overlapping).
    pub(crate) fn build_rows_by_intervals(
        &self,
        build: &RecordBatch,
        matched: Vec<(u32, u32)>,
    ) -> Result<()> {
        let n = build.num_rows() as u32;
        let matched = merge_intervals(matched);
        let out = if self.emitter.roles.build_semi {
            matched
        } else {
            complement(&matched, n)
        };
        // Pieces of at most SOURCE_ROWS rows, emitted in parallel.
        let pieces: Vec<(u32, u32)> = out
            .iter()
            .flat_map(|&(s, e)| {
                (s..e)
                    .step_by(SOURCE_ROWS)
                    .map(move |a| (a, e.min(a.saturating_add(SOURCE_ROWS as u32))))
            })
            .collect();
        pieces.par_iter().try_for_each(|&(s, e)| {
            let rows: Vec<u32> = (s..e).collect();
            self.emitter.rows(build, true, &rows)
        })
    }
}

/// Sorted, disjoint, non-adjacent intervals covering the same rows.
pub(crate) fn merge_intervals(mut v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    v.retain(|&(s, e)| s < e);
    v.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(v.len().min(64));
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The rows of `0..n` outside the sorted, disjoint `intervals`.
fn complement(intervals: &[(u32, u32)], n: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(intervals.len() + 1);
    let mut at = 0;
    for &(s, e) in intervals {
        if s > at {
            out.push((at, s));
        }
        at = at.max(e);
    }
    if at < n {
        out.push((at, n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_merge_and_complement() {
        let m = merge_intervals(vec![(5, 7), (0, 2), (1, 3), (7, 9), (4, 4)]);
        assert_eq!(m, vec![(0, 3), (5, 9)]);
        assert_eq!(complement(&m, 12), vec![(3, 5), (9, 12)]);
        assert_eq!(complement(&[], 3), vec![(0, 3)]);
        assert_eq!(complement(&[(0, 3)], 3), vec![]);
    }
}
