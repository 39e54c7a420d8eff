//! The plain nested loop: every (build block, probe block) pair's candidate
//! index vectors, tested by the whole predicate at once.
//!
//! This is the fallback for any predicate and the reference the fast path
//! is checked and measured against. Its cost is one index pair and one
//! predicate evaluation per pair of rows, whatever the predicate.

use arrow_array::RecordBatch;
use rayon::prelude::*;

use super::emit::{Output, Scratch};
use super::predicate::Residual;
use super::prepare::Prepared;
use crate::bitmap::AtomicBitmap;
use crate::error::Result;
use crate::kernel::BatchSink;

/// Build rows per block: the block's condition images (8 bytes a row and
/// condition) stay in L1/L2 while every probe row of a morsel passes them.
/// Debug builds use 8, so that the tests' small inputs cross blocks.
pub(crate) const BUILD_BLOCK_ROWS: usize = if cfg!(debug_assertions) { 8 } else { 1024 };
/// Candidate pairs per block pair: two `u32` index vectors of 64 KiB, which
/// fit in L2 beside the block's images, and enough pairs that the filter's
/// per-call overhead does not matter. Debug builds use 64 (see above).
pub(crate) const BLOCK_PAIRS: usize = if cfg!(debug_assertions) { 64 } else { 1 << 14 };

/// Runs the plain loop of `prep` with `build` as the inner side.
pub(crate) fn run(prep: &Prepared<'_>, build: &RecordBatch, sink: &BatchSink<'_>) -> Result<()> {
    let join = prep.join;
    let roles = prep.roles;
    let n_build = build.num_rows();
    let residual = Residual::new(
        &prep.conds,
        join.options.filter.as_deref(),
        roles.null_aware,
        prep.build_is_left,
        build,
        &join.options.memory,
    )?;
    let visited = roles.tracks_build().then(|| AtomicBitmap::new(n_build));
    let _visited_mem = join.options.memory.try_reserve(
        "the build side's match bitmap",
        visited
            .as_ref()
            .map_or(0, |_| AtomicBitmap::bytes_for(n_build)),
    )?;
    let out = Output::new(prep, build, visited.as_ref(), sink);
    let exists_only = roles.probe_exists_only();
    prep.morsels()
        .par_iter()
        .try_for_each_init(Scratch::default, |s, m| -> Result<()> {
            let probe = prep.morsel_batch(m);
            let len = probe.num_rows();
            let images = residual.probe_images(&probe)?;
            if roles.tracks_probe() {
                s.marks.reset(len);
            }
            for b0 in (0..n_build).step_by(BUILD_BLOCK_ROWS) {
                join.options.check_cancelled()?;
                let b1 = (b0 + BUILD_BLOCK_ROWS).min(n_build);
                let probe_block = (BLOCK_PAIRS / (b1 - b0)).max(1);
                for p0 in (0..len).step_by(probe_block) {
                    for p in p0..(p0 + probe_block).min(len) {
                        // A semi/anti probe row is decided by its first match.
                        if exists_only && s.marks.get(p) {
                            continue;
                        }
                        s.build_rows.extend(b0 as u32..b1 as u32);
                        s.probe_rows.resize(s.probe_rows.len() + b1 - b0, p as u32);
                    }
                    residual.apply(&probe, &images, &mut s.build_rows, &mut s.probe_rows)?;
                    out.pairs(&probe, s)?;
                }
            }
            out.end_morsel(&probe, len, s)
        })?;
    if let Some(v) = &visited {
        out.build_rows_by_bitmap(build, v)?;
    }
    Ok(())
}
