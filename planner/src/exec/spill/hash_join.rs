//! The hybrid (grace) hash join: a hash join whose build side does not fit
//! the query's memory budget.
//!
//! # Build
//!
//! The build side is collected whole while it fits, each batch charged
//! for its rows and for what the kernel will add to them ([`expansion`]:
//! its copy of the rows, its keys and table). The first batch that does
//! not fit turns the collection into [`PARTITIONS`] partitions by key
//! hash (module `partition`): the held batches are split, and every batch
//! after them. When a partition's rows do not fit, the largest partition
//! still in memory is written to a spill file and its memory given back;
//! from then on its rows go straight to its file.
//!
//! # Probe
//!
//! The partitions left in memory are joined at once: the kernel builds
//! one table over them, and the probe side's pipeline pushes into it the
//! rows that hash to them, while the rows that hash to a spilled
//! partition go to that partition's probe file. Then each spilled
//! partition is joined on its own: read back when it fits, split again
//! with the next level's hash when it does not (at most [`MAX_LEVEL`]
//! levels), and joined block by block (module `block`) when a split does
//! not make it smaller (one key, or the last level).
//!
//! Matching pairs never cross partitions, so each partition's join
//! decides its own rows: an outer join's unmatched rows, a semi or anti
//! join's kept rows. The one global rule is NOT IN's
//! ([`JoinType::LeftAntiNullAware`]): a NULL on the right empties the
//! result, and a left row with a NULL key is kept only when the right
//! side is empty. Those rows are set aside, the right side's NULLs
//! counted, and every partition runs as a plain anti join. (A NOT IN with
//! a residual filter, a correlated one, has these rules per correlation
//! group: it never comes here, see `collected::not_in_with_filter`.)
//!
//! Runtime filters are not made from a build side that spilled: the
//! build is never whole in memory, and a filter made from part of it
//! would drop probe rows that match the rest.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use rayon::prelude::*;

use super::adaptive::ProbeRows;
use super::block::{self, Blocked, Shape, project_side};
use super::file::{SpillFile, SpillWriter};
use super::partition::{PARTITIONS, Splitter};
use crate::exec::plan::{OperatorMetrics, PhysicalPlan};
use crate::exec::run::{Held, Run, Sink, lock};
use crate::exec::{ExecError, Result};
use tenon_kernels::{
    HashJoin, HashJoinMode, HeldBuffers, Join, JoinInput, JoinKernel, JoinSide, JoinType,
    MemoryReservation, batch_bytes,
};

/// Levels of splitting a spilled partition before it is joined in blocks.
pub(super) const MAX_LEVEL: u32 = 4;

/// Bytes charged for `bytes` of held build rows (`rows` of them): the rows,
/// and what the kernel adds when it joins them: a copy of the rows in one
/// batch, the encoded keys, the table (up to 48 bytes a row), the match
/// bitmap.
pub(super) fn expansion(bytes: usize, rows: usize) -> usize {
    bytes
        .saturating_mul(2)
        .saturating_add(rows.saturating_mul(64))
}

/// The build side of a hash join under a memory limit.
pub(in crate::exec) enum Build {
    /// It fits: collected whole, as without a limit.
    Whole(Held),
    /// It did not fit: partitioned, some partitions spilled.
    Parted(Box<Parted>),
}

/// One partition of a build side being collected.
#[derive(Default)]
pub(super) struct Part {
    pub(super) batches: Vec<RecordBatch>,
    bytes: usize,
    rows: usize,
    pub(super) file: Option<SpillWriter>,
}

/// A build side split into partitions, some in memory, some spilled.
pub(in crate::exec) struct Parted {
    pub(super) parts: Vec<Part>,
    /// The [`expansion`] of the partitions in memory.
    pub(super) charge: MemoryReservation,
    splitter: Splitter,
    pub(super) schema: SchemaRef,
    /// Build rows with a NULL key column.
    null_keys: usize,
    /// Build rows in all.
    pub(super) rows: usize,
    /// Build rows with a NULL key, which never match: set aside when the
    /// join outputs them (an outer or anti join of the build side, NOT IN
    /// built on the left), else dropped.
    pub(super) set_aside: Option<SpillWriter>,
    /// Whether NULL-key rows are taken out of the partitions.
    divert_nulls: bool,
    /// Whether the diverted rows are kept (set aside) or dropped.
    keep_nulls: bool,
}

/// The collection in progress.
enum Collecting {
    Whole {
        batches: Vec<RecordBatch>,
        held: HeldBuffers,
        /// Bytes of the held batches' buffers.
        bytes: usize,
        charge: MemoryReservation,
    },
    Parted(Box<Parted>),
}

/// The pieces of a spilling hash join a run needs.
pub(in crate::exec) struct SpillJoin<'a> {
    /// The join node.
    pub(in crate::exec) plan: &'a PhysicalPlan,
    /// Its kernel.
    pub(in crate::exec) hash: &'a HashJoin,
}

impl SpillJoin<'_> {
    fn build_side(&self) -> JoinSide {
        self.hash.built_side()
    }

    /// The join's output.
    pub(super) fn shape(&self) -> Shape<'_> {
        Shape {
            plan: self.plan,
            options: self.hash.options(),
        }
    }

    fn not_in(&self) -> bool {
        self.hash.join_type() == JoinType::LeftAntiNullAware
    }

    /// Whether `side`'s rows with a NULL key are taken out before
    /// partitioning: they never match (unless NULL equals NULL), so
    /// joining them is wasted work, and they would all fall in one
    /// partition that no split makes smaller. NOT IN takes out those of
    /// its left side (its NULL rules are settled outside the partitions).
    fn diverts_nulls(&self, side: JoinSide) -> bool {
        if self.not_in() {
            side == JoinSide::Left
        } else {
            !self.hash.is_null_equal()
        }
    }

    /// The key columns of `side`.
    fn keys(&self, side: JoinSide) -> Vec<usize> {
        self.hash
            .on()
            .iter()
            .map(|&(l, r)| if side == JoinSide::Left { l } else { r })
            .collect()
    }

    fn splitter(&self, side: JoinSide, level: u32) -> Splitter {
        Splitter {
            keys: self.keys(side),
            null_equal: self.hash.is_null_equal(),
            level,
        }
    }

    /// The kernel each partition runs: the join in the broadcast mode (a
    /// plain anti join for NOT IN, whose NULLs are settled outside).
    fn partition_kernel(&self) -> Join {
        let mut j = if self.not_in() {
            HashJoin::new(JoinType::LeftAnti, self.hash.on().to_vec())
        } else {
            self.hash.clone()
        };
        j = j
            .build_side(self.build_side())
            .mode(HashJoinMode::Broadcast)
            .null_equal(self.hash.is_null_equal());
        *j.options_mut() = self.hash.options().clone();
        j.into()
    }
}

impl Parted {
    /// Rows of `batch` added to their partitions, spilling what does not fit.
    fn add(
        &mut self,
        run: &Run<'_>,
        metrics: &Arc<OperatorMetrics>,
        batch: RecordBatch,
    ) -> Result<()> {
        let batch = if self.divert_nulls {
            self.set_nulls_aside(run, metrics, batch)?
        } else {
            batch
        };
        let split = self.splitter.split(&batch)?;
        self.null_keys += split.null_keys;
        self.rows += batch.num_rows();
        for (p, piece) in split.parts {
            self.add_piece(run, metrics, p, piece)?;
        }
        Ok(())
    }

    /// The rows of `batch` with a NULL key set aside (or dropped, see
    /// [`Parted::set_aside`]); the others returned.
    fn set_nulls_aside(
        &mut self,
        run: &Run<'_>,
        metrics: &Arc<OperatorMetrics>,
        batch: RecordBatch,
    ) -> Result<RecordBatch> {
        let (nulls, rest) = null_key_rows(&batch, &self.splitter.keys)?;
        if let Some(nulls) = nulls.filter(|_| self.keep_nulls) {
            if self.set_aside.is_none() {
                self.set_aside = Some(run.spill.writer(&self.schema, metrics)?);
            }
            if let Some(w) = &mut self.set_aside {
                w.write(&nulls)?;
            }
        }
        Ok(rest)
    }

    fn add_piece(
        &mut self,
        run: &Run<'_>,
        metrics: &Arc<OperatorMetrics>,
        p: usize,
        piece: RecordBatch,
    ) -> Result<()> {
        loop {
            if let Some(w) = &mut self.parts[p].file {
                return w.write(&piece);
            }
            let (bytes, rows) = (batch_bytes(&piece), piece.num_rows());
            if self.charge.grow_spillable(expansion(bytes, rows)).is_ok() {
                let part = &mut self.parts[p];
                part.bytes += bytes;
                part.rows += rows;
                part.batches.push(piece);
                return Ok(());
            }
            // The largest partition in memory goes to disk (this one when
            // the others hold nothing).
            let victim = (0..self.parts.len())
                .filter(|&i| self.parts[i].file.is_none() && self.parts[i].bytes > 0)
                .max_by_key(|&i| self.parts[i].bytes)
                .unwrap_or(p);
            self.spill_part(run, metrics, victim)?;
        }
    }

    /// Writes partition `p`'s rows to a new spill file and gives back
    /// their memory; its later rows go to the file.
    pub(super) fn spill_part(
        &mut self,
        run: &Run<'_>,
        metrics: &Arc<OperatorMetrics>,
        p: usize,
    ) -> Result<()> {
        let mut w = run
            .spill
            .writer(&self.schema, metrics)?
            .coalescing(run.budget);
        metrics.spill.partitions.fetch_add(1, Ordering::Relaxed);
        let part = &mut self.parts[p];
        for b in std::mem::take(&mut part.batches) {
            w.write(&b)?;
        }
        self.charge.shrink(expansion(part.bytes, part.rows));
        part.bytes = 0;
        part.rows = 0;
        part.file = Some(w);
        Ok(())
    }
}

/// The rows of `batch` with a NULL in a key column, and the others.
pub(super) fn null_key_rows(
    batch: &RecordBatch,
    keys: &[usize],
) -> Result<(Option<RecordBatch>, RecordBatch)> {
    let mut nulls: Option<arrow_buffer::NullBuffer> = None;
    for &k in keys {
        let n = batch.columns().get(k).and_then(|c| c.logical_nulls());
        nulls = arrow_buffer::NullBuffer::union(nulls.as_ref(), n.as_ref());
    }
    let Some(valid) = nulls.filter(|n| n.null_count() > 0) else {
        return Ok((None, batch.clone()));
    };
    let keep = arrow_array::BooleanArray::new(valid.inner().clone(), None);
    let null_rows = arrow_arith::boolean::not(&keep)
        .map_err(|e| ExecError::arrow("setting NULL keys aside", e))?;
    let filter = |m: &arrow_array::BooleanArray| {
        arrow_select::filter::filter_record_batch(batch, m)
            .map_err(|e| ExecError::arrow("setting NULL keys aside", e))
    };
    Ok((Some(filter(&null_rows)?), filter(&keep)?))
}

impl Run<'_> {
    /// The build side of `join`: collected whole when it fits the budget
    /// with room for the kernel, partitioned and partly spilled when not.
    pub(in crate::exec) fn collect_build(
        &self,
        join: &SpillJoin<'_>,
        build_plan: &PhysicalPlan,
        what: &'static str,
    ) -> Result<Build> {
        let metrics = &join.plan.metrics;
        let side = join.build_side();
        let state = Mutex::new(Collecting::Whole {
            batches: Vec::new(),
            held: HeldBuffers::new(),
            bytes: 0,
            charge: self.budget_of(join.plan).try_reserve(what, 0)?,
        });
        self.push(build_plan, &|b: RecordBatch| {
            let mut st = lock(&state);
            if let Collecting::Whole {
                batches,
                held,
                bytes,
                charge,
            } = &mut *st
            {
                let new = held.add(&b);
                let extra = expansion(batch_bytes(&b), b.num_rows()) - batch_bytes(&b);
                if charge.grow_spillable(new + extra).is_ok() {
                    *bytes += new;
                    batches.push(b);
                    return Ok(());
                }
                // It does not fit: partition what is held, then go on.
                let held_batches = std::mem::take(batches);
                // The held batches' charge goes: they are charged again as
                // they are split.
                // (Partitioned at once: on an error, the batches other
                // workers push go on to meet the same error, not a state
                // half made.)
                *st = Collecting::Parted(Box::new(Parted {
                    parts: (0..PARTITIONS).map(|_| Part::default()).collect(),
                    charge: self
                        .budget_of(join.plan)
                        .try_reserve("the spilling hash join's partitions", 0)?,
                    splitter: join.splitter(side, 0),
                    schema: build_plan.schema.clone(),
                    null_keys: 0,
                    rows: 0,
                    set_aside: None,
                    divert_nulls: join.diverts_nulls(side),
                    keep_nulls: join.not_in()
                        || matches!(
                            block::side_keep(join.hash.join_type(), side),
                            Some(block::Keep::Unmatched { .. })
                        ),
                }));
                if let Collecting::Parted(parted) = &mut *st {
                    for h in held_batches {
                        parted.add(self, metrics, h)?;
                    }
                }
            }
            match &mut *st {
                Collecting::Parted(p) => p.add(self, metrics, b),
                Collecting::Whole { .. } => Err(ExecError::Unsupported(
                    "internal: a spilling build side did not partition".into(),
                )),
            }
        })?;
        match state.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Collecting::Whole {
                batches,
                bytes,
                mut charge,
                ..
            } => {
                // The kernel charges its own copy and table.
                charge.shrink(charge.size().saturating_sub(bytes));
                Ok(Build::Whole(Held::new(batches, charge)))
            }
            Collecting::Parted(p) => Ok(Build::Parted(p)),
        }
    }

    /// Runs `join` over a partitioned build side, pushing its output into
    /// `out` (see the module docs).
    pub(in crate::exec) fn grace_join(
        &self,
        join: &SpillJoin<'_>,
        parted: Box<Parted>,
        probe: ProbeRows<'_>,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &join.plan.metrics;
        let Parted {
            parts,
            mut charge,
            null_keys,
            set_aside,
            schema: build_schema,
            ..
        } = *parted;
        let side = join.build_side();
        let not_in = join.not_in();
        // NOT IN: a NULL key on the right empties the result.
        if not_in && side == JoinSide::Right && null_keys > 0 {
            return Ok(());
        }
        let mut in_memory = Vec::new();
        let mut memory_bytes = 0;
        let mut keep = [false; PARTITIONS];
        let mut build_files: Vec<Option<SpillFile>> = Vec::with_capacity(PARTITIONS);
        for (p, part) in parts.into_iter().enumerate() {
            match part.file {
                Some(w) => build_files.push(Some(w.finish()?)),
                None => {
                    keep[p] = true;
                    memory_bytes += part.bytes;
                    in_memory.extend(part.batches);
                    build_files.push(None);
                }
            }
        }
        let set_aside = set_aside.map(SpillWriter::finish).transpose()?;
        let (set_aside, set_aside_rows) = if not_in {
            (set_aside, None)
        } else {
            (None, set_aside)
        };
        // The kernel charges its own copy and table from what is given back.
        charge.shrink(charge.size().saturating_sub(memory_bytes));
        let probe_side = other(side);
        let probe_schema = probe.schema();
        let probe_writers: Vec<Option<Mutex<SpillWriter>>> = build_files
            .iter()
            .map(|f| {
                f.as_ref()
                    .map(|_| {
                        let w = self.spill.writer(&probe_schema, metrics)?;
                        Ok(Mutex::new(w.coalescing(self.budget)))
                    })
                    .transpose()
            })
            .collect::<Result<_>>()?;
        // NULL-key probe rows never match: settled here, output at once
        // when the join outputs them unmatched, else dropped (NOT IN built
        // on the right drops them: the right side is not empty).
        let settle_probe_nulls = join.diverts_nulls(probe_side);
        let probe_keep = block::side_keep(join.hash.join_type(), probe_side)
            .filter(|k| !not_in && matches!(k, block::Keep::Unmatched { .. }));
        let probe_nulls = AtomicU64::new(0);
        let probe_rows = AtomicU64::new(0);
        let splitter = join.splitter(probe_side, 0);
        let route = |b: RecordBatch, push: &dyn Fn(RecordBatch) -> Result<()>| -> Result<()> {
            let b = if settle_probe_nulls {
                let (nulls, rest) = null_key_rows(&b, &splitter.keys)?;
                if let (Some(nulls), Some(keep)) = (nulls, probe_keep) {
                    probe_rows.fetch_add(nulls.num_rows() as u64, Ordering::Relaxed);
                    block::emit_side(
                        join.shape(),
                        probe_side,
                        keep,
                        &nulls,
                        &vec![false; nulls.num_rows()],
                        out,
                    )?;
                }
                rest
            } else {
                b
            };
            let (kept, spilled, nulls) = splitter.split_keep(&b, &keep)?;
            probe_nulls.fetch_add(nulls as u64, Ordering::Relaxed);
            probe_rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
            for (p, piece) in spilled {
                if let Some(w) = &probe_writers[p] {
                    lock(w).write(&piece)?;
                }
            }
            match kept {
                Some(k) => push(k),
                None => Ok(()),
            }
        };
        // NOT IN built on the left: a NULL on the right (the probe side)
        // empties the result, known once the probe side has been read; the
        // kernel outputs its (left, build) rows only after that.
        let emptied = AtomicBool::new(false);
        let guarded = |b: RecordBatch| {
            if not_in && side == JoinSide::Left && probe_nulls.load(Ordering::Relaxed) > 0 {
                emptied.store(true, Ordering::Relaxed);
                return Ok(());
            }
            out(b)
        };
        let kernel = join.partition_kernel();
        if keep.iter().any(|k| *k) {
            let build = JoinInput::new(build_schema.clone(), in_memory);
            self.run_fed(
                join,
                &kernel,
                build,
                &probe_schema,
                &|push| {
                    self.push_probe(&probe, &|b| route(b, &|k| push(k).map_err(ExecError::from)))
                        .map_err(ExecError::into_kernel)
                },
                &guarded,
            )?;
        } else {
            self.push_probe(&probe, &|b| route(b, &|_| Ok(())))?;
        }
        drop(charge);
        let probe_files: Vec<Option<SpillFile>> = probe_writers
            .into_iter()
            .map(|w| {
                w.map(|w| w.into_inner().unwrap_or_else(|e| e.into_inner()).finish())
                    .transpose()
            })
            .collect::<Result<_>>()?;
        if not_in && side == JoinSide::Left && probe_nulls.load(Ordering::Relaxed) > 0 {
            return Ok(());
        }
        for (b, p) in build_files.into_iter().zip(probe_files) {
            if let (Some(b), Some(p)) = (b, p) {
                self.join_part(join, &kernel, b, p, 1, &guarded)?;
            }
        }
        // NOT IN's left rows with NULL keys: kept only against an empty
        // right side (the probe side here, as the build side is left).
        if let Some(nulls) = set_aside
            && probe_rows.load(Ordering::Relaxed) == 0
            && !emptied.load(Ordering::Relaxed)
            && not_in
        {
            for b in nulls.read()? {
                out(project_side(join.shape(), JoinSide::Left, &b?)?)?;
            }
        }
        // The build side's NULL-key rows, unmatched.
        if let Some(nulls) = set_aside_rows
            && let Some(keep) = block::side_keep(join.hash.join_type(), side)
        {
            for b in nulls.read()? {
                let b = b?;
                block::emit_side(
                    join.shape(),
                    side,
                    keep,
                    &b,
                    &vec![false; b.num_rows()],
                    out,
                )?;
            }
        }
        Ok(())
    }

    /// Runs `kernel` with `build` held and the probe side pushed by `feed`.
    pub(super) fn run_fed(
        &self,
        join: &SpillJoin<'_>,
        kernel: &Join,
        build: JoinInput,
        probe_schema: &SchemaRef,
        feed: &tenon_kernels::ProbeFeed<'_>,
        out: &Sink<'_>,
    ) -> Result<()> {
        let Some(fed) = kernel.fed() else {
            return Err(ExecError::Unsupported(
                "internal: a spilling hash join without a fed kernel".into(),
            ));
        };
        let probe = JoinInput::new(probe_schema.clone(), Vec::new());
        let (l, r) = match join.build_side() {
            JoinSide::Left => (&build, &probe),
            JoinSide::Right => (&probe, &build),
        };
        let start = std::time::Instant::now();
        let result = fed.for_each_fed(l, r, feed, &|b| out(b).map_err(ExecError::into_kernel));
        join.plan.metrics.add_time(start.elapsed());
        result.map_err(ExecError::from)
    }

    /// Joins one spilled partition: read back when it fits, else split
    /// again or joined in blocks.
    fn join_part(
        &self,
        join: &SpillJoin<'_>,
        kernel: &Join,
        build: SpillFile,
        probe: SpillFile,
        level: u32,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &join.plan.metrics;
        metrics
            .spill
            .depth
            .fetch_max(u64::from(level), Ordering::Relaxed);
        let tracks = tracks(join.hash.join_type(), join.build_side());
        if (build.rows() == 0 && !tracks.probe) || (probe.rows() == 0 && !tracks.build) {
            return Ok(());
        }
        let need = expansion(build.bytes(), build.rows());
        let mut charge = self
            .budget_of(join.plan)
            .try_reserve("a spilled hash join partition", 0)?;
        if charge.grow_spillable(need).is_ok() {
            let batches = build.read()?.collect::<Result<Vec<_>>>()?;
            let schema = build.schema().clone();
            drop(build);
            charge.shrink(need.saturating_sub(batches.iter().map(batch_bytes).sum()));
            let input = JoinInput::new(schema, batches);
            return self.run_fed(
                join,
                kernel,
                input,
                &probe.schema().clone(),
                &|push| {
                    let reader = probe.read().map_err(ExecError::into_kernel)?;
                    reader
                        .par_bridge()
                        .try_for_each(|b| push(b.map_err(ExecError::into_kernel)?))
                },
                out,
            );
        }
        if level < MAX_LEVEL {
            let side = join.build_side();
            let builds = self.split_file(metrics, &build, join.splitter(side, level))?;
            // A split that leaves every row in one partition cannot help:
            // one key, or keys whose hashes agree.
            if builds.iter().flatten().filter(|f| f.rows() > 0).count() > 1 {
                let (build_schema, probe_schema) = (build.schema().clone(), probe.schema().clone());
                drop(build);
                let probes = self.split_file(metrics, &probe, join.splitter(other(side), level))?;
                drop(probe);
                let empty = |schema: &SchemaRef| self.spill.writer(schema, metrics)?.finish();
                for (b, p) in builds.into_iter().zip(probes) {
                    let (b, p) = match (b, p) {
                        (None, None) => continue,
                        (Some(b), Some(p)) => (b, p),
                        (Some(b), None) => (b, empty(&probe_schema)?),
                        (None, Some(p)) => (empty(&build_schema)?, p),
                    };
                    self.join_part(join, kernel, b, p, level + 1, out)?;
                }
                return Ok(());
            }
        }
        let side = join.build_side();
        let mut inner = HashJoin::new(JoinType::Inner, join.hash.on().to_vec())
            .build_side(side)
            .mode(HashJoinMode::Broadcast)
            .null_equal(join.hash.is_null_equal());
        *inner.options_mut() = join.hash.options().clone();
        inner.options_mut().left_projection = None;
        inner.options_mut().right_projection = None;
        let blocked = Blocked {
            shape: join.shape(),
            join_type: join.hash.join_type(),
            build_side: side,
            inner: inner.into(),
            cost: &expansion,
            small_chunks: false,
        };
        block::join_blocks(self, &blocked, &build, &probe, out)
    }

    /// `file` split by `splitter` into one new file per partition (none
    /// for a partition without rows).
    pub(super) fn split_file(
        &self,
        metrics: &Arc<OperatorMetrics>,
        file: &SpillFile,
        splitter: Splitter,
    ) -> Result<Vec<Option<SpillFile>>> {
        let mut writers: Vec<Option<SpillWriter>> = (0..PARTITIONS).map(|_| None).collect();
        for b in file.read()? {
            for (p, piece) in splitter.split(&b?)?.parts {
                if writers[p].is_none() {
                    let w = self.spill.writer(file.schema(), metrics)?;
                    writers[p] = Some(w.coalescing(self.budget));
                }
                if let Some(w) = &mut writers[p] {
                    w.write(&piece)?;
                }
            }
        }
        metrics
            .spill
            .partitions
            .fetch_add(PARTITIONS as u64, Ordering::Relaxed);
        writers
            .into_iter()
            .map(|w| match w {
                Some(w) => w.finish().map(Some),
                None => Ok(None),
            })
            .collect()
    }
}

/// Which sides' unmatched (or matched) rows a join type outputs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tracks {
    pub(super) build: bool,
    pub(super) probe: bool,
}

/// What `join_type` with `build_side` built decides per row of each side.
pub(super) fn tracks(join_type: JoinType, build_side: JoinSide) -> Tracks {
    let (left, right) = match join_type {
        JoinType::Inner => (false, false),
        JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftAntiNullAware => {
            (true, false)
        }
        JoinType::Right | JoinType::RightSemi | JoinType::RightAnti => (false, true),
        JoinType::Full => (true, true),
    };
    match build_side {
        JoinSide::Left => Tracks {
            build: left,
            probe: right,
        },
        JoinSide::Right => Tracks {
            build: right,
            probe: left,
        },
    }
}

/// The other side.
pub(super) fn other(side: JoinSide) -> JoinSide {
    match side {
        JoinSide::Left => JoinSide::Right,
        JoinSide::Right => JoinSide::Left,
    }
}
