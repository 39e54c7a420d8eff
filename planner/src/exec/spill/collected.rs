//! Joins whose kernels take both inputs collected (sort-merge, nested
//! loop) under a memory limit.
//!
//! Both inputs are collected at once, each batch charged for its rows and
//! for what the kernel adds to them ([`expansion`]). A side whose next
//! batch does not fit goes to a spill file: the rows it held, then every
//! later batch. When both sides fit, the kernel runs as without a limit.
//! Otherwise:
//!
//! * A join on equality keys (sort-merge) splits both sides into
//!   [`PARTITIONS`] by key hash (module `partition`, the hash join's
//!   split): matching pairs never cross partitions, so each pair of
//!   partitions is a join of its own, decided by the kernel when both fit,
//!   split again with the next level's hash when they do not (at most
//!   [`MAX_LEVEL`] levels), and joined in blocks (module `block`) when a
//!   split does not make them smaller (one key).
//! * A join without keys (nested loop) runs in blocks: the smaller side
//!   in blocks that fit, each joined with every row of the other side.
//!
//! NOT IN ([`JoinType::LeftAntiNullAware`]) has global rules: a NULL key
//! on the right empties the result, an empty right side keeps every left
//! row; otherwise left rows with a NULL key go, and every partition runs
//! as a plain anti join.
//!
//! The temporal and as-of joins run this way by key too: their right
//! input is spooled in the order of its rows (which breaks their ties),
//! and a split keeps each partition's rows in that order (right rows
//! with a NULL key, which match nothing, are dropped). A partition that
//! no split makes fit holds its right rows whole and joins its left rows
//! with them a chunk at a time: a left row's version is chosen among all
//! of its key's versions at once, so the versions of one key that do not
//! fit fail at the limit, naming it. So does a time join without keys.
//!
//! NOT IN without equality keys (a nested loop deciding on predicates
//! that may be NULL, which an INNER join's pairs do not show) runs NOT IN
//! itself on each block of right rows: a left row is kept when every
//! block keeps it (none makes the predicate TRUE or unknown), and every
//! left row when the right side is empty.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arrow_schema::SchemaRef;

use super::block::{self, Blocked, Shape, project_side};
use super::file::SpillFile;
use super::hash_join::{MAX_LEVEL, expansion, null_key_rows, tracks};
use super::partition::Splitter;
use super::spool::Spooled;
use crate::exec::join_run::run_collected;
use crate::exec::plan::{OperatorMetrics, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};
use tenon_kernels::{
    HashJoin, HashJoinMode, Join, JoinInput, JoinKernel, JoinSide, JoinType, KernelError, Strategy,
    batch_bytes,
};

/// The join of a spilled pair of inputs: its kernel and what decides its
/// partitions.
struct Collected<'a> {
    plan: &'a PhysicalPlan,
    /// The kernel each pair of partitions runs (a plain anti join for NOT
    /// IN, whose NULL rules are settled before).
    kernel: Join,
    /// The INNER join of the same keys and conditions, without
    /// projections (the block join's: a hash join when there are keys and
    /// no range conditions, else the kernel itself); none for a time
    /// join, which cannot run in blocks.
    inner: Option<Join>,
    /// Equality keys, and whether NULL equals NULL.
    keys: Option<(Vec<(usize, usize)>, bool)>,
}

/// Bytes charged for `bytes` of `rows` held rows of `side` that `kernel`
/// joins: the rows and the kernel's [`JoinKernel::memory_bound`] for them
/// (the hash join's [`expansion`] for a kernel that gives none).
fn cost(kernel: &Join, side: JoinSide, bytes: usize, rows: usize) -> usize {
    let (these, none) = ((rows, bytes), (0, 0));
    let (l, r) = match side {
        JoinSide::Left => (these, none),
        JoinSide::Right => (none, these),
    };
    kernel
        .memory_bound(l, r)
        .map_or_else(|| expansion(bytes, rows), |m| m.saturating_add(bytes))
}

impl Collected<'_> {
    fn shape(&self) -> Shape<'_> {
        Shape {
            plan: self.plan,
            options: self.kernel.options(),
        }
    }

    fn splitter(&self, side: JoinSide, level: u32) -> Option<Splitter> {
        self.keys.as_ref().map(|(on, null_equal)| Splitter {
            keys: on
                .iter()
                .map(|&(l, r)| if side == JoinSide::Left { l } else { r })
                .collect(),
            null_equal: *null_equal,
            level,
        })
    }
}

/// Whether `join` of `plan` can run by [`Run::spilling_collected_join`]:
/// a kernel that takes both inputs collected and runs as an INNER join
/// (the block join's), or a time join with keys (`time_join`).
pub(in crate::exec) fn spills(join: &Join, time_join: bool) -> bool {
    if join.fed().is_some() {
        return false;
    }
    if time_join {
        return join.equi_keys().is_some();
    }
    // (NOT IN without keys decides on predicates that are NULL, which an
    // INNER join's pairs do not show: its blocks run NOT IN itself.)
    let not_in_without_keys =
        join.join_type() == JoinType::LeftAntiNullAware && join.equi_keys().is_none();
    if not_in_without_keys {
        return join.retyped(JoinType::LeftAntiNullAware).is_some();
    }
    join.retyped(JoinType::Inner).is_some()
}

/// Whether `join` is a NOT IN with a residual filter (a correlated NOT IN:
/// its correlation is the filter). Its NULL rules hold per correlation
/// group, which the partitions of a grace join cannot see (a NULL right
/// key removes only the left rows whose filter it passes, a NULL left key
/// is removed only by a right row whose filter it passes): under a memory
/// limit it runs by [`Run::spilling_collected_join`], in blocks of right
/// rows that each run NOT IN itself.
pub(in crate::exec) fn not_in_with_filter(join: &Join) -> bool {
    join.join_type() == JoinType::LeftAntiNullAware && join.options().filter.is_some()
}

impl Run<'_> {
    /// Runs `join` (the node `plan`, over `inputs` = left and right)
    /// under the memory limit, spilling what does not fit (see the module
    /// docs); `time_join`: a temporal or as-of join, whose right input is
    /// spooled in order.
    pub(in crate::exec) fn spilling_collected_join(
        &self,
        plan: &PhysicalPlan,
        join: &Join,
        (left, right): (&PhysicalPlan, &PhysicalPlan),
        time_join: bool,
        out: &Sink<'_>,
    ) -> Result<()> {
        let (l_cost, r_cost) = (
            |bytes, rows| cost(join, JoinSide::Left, bytes, rows),
            |bytes, rows| cost(join, JoinSide::Right, bytes, rows),
        );
        const RIGHT: &str = "the join's collected right input";
        let (l, r) = rayon::join(
            || self.spool(plan, left, "the join's collected left input", &l_cost),
            || {
                if time_join {
                    self.in_order(RIGHT, || self.spool(plan, right, RIGHT, &r_cost))
                } else {
                    self.spool(plan, right, RIGHT, &r_cost)
                }
            },
        );
        let (l, r) = (l?, r?);
        let (l, r) = match (l, r) {
            (
                Spooled::Memory {
                    batches: lb,
                    bytes: l_bytes,
                    charge: mut lc,
                },
                Spooled::Memory {
                    batches: rb,
                    bytes: r_bytes,
                    charge: mut rc,
                },
            ) => {
                // The kernel charges its own copies and tables.
                lc.shrink(lc.size().saturating_sub(l_bytes));
                rc.shrink(rc.size().saturating_sub(r_bytes));
                let l_in = JoinInput::new(left.schema.clone(), lb);
                let r_in = JoinInput::new(right.schema.clone(), rb);
                return run_collected(plan, join, &l_in, &r_in, out);
            }
            (l, r) => (
                self.to_file(plan, l, &left.schema)?,
                self.to_file(plan, r, &right.schema)?,
            ),
        };
        let not_in = join.join_type() == JoinType::LeftAntiNullAware;
        let filtered_not_in = not_in_with_filter(join);
        let retyped = |t: JoinType| {
            join.retyped(t).ok_or_else(|| {
                ExecError::Unsupported(format!(
                    "internal: the {} join cannot run as a {t:?} join",
                    join.strategy()
                ))
            })
        };
        // The block join's INNER join: a hash join on the keys (which
        // needs little memory beside its block) unless there are range
        // conditions, which only the kernel itself decides.
        let inner = if time_join {
            None
        } else {
            let mut inner = match join.equi_keys() {
                // NOT IN with a filter: each block of right rows runs NOT
                // IN itself (see `not_in_with_filter`).
                _ if filtered_not_in => retyped(JoinType::LeftAntiNullAware)?,
                Some((on, null_equal)) if join.range_conditions().is_empty() => {
                    let mut h = HashJoin::new(JoinType::Inner, on.to_vec())
                        .mode(HashJoinMode::Broadcast)
                        .null_equal(null_equal);
                    *h.options_mut() = join.options().clone();
                    Join::from(h)
                }
                // NOT IN without keys: each block of right rows runs NOT
                // IN itself (a left row is kept when it is kept by every
                // block).
                None if not_in => retyped(JoinType::LeftAntiNullAware)?,
                _ => retyped(JoinType::Inner)?,
            };
            inner.options_mut().left_projection = None;
            inner.options_mut().right_projection = None;
            Some(inner)
        };
        let c = Collected {
            plan,
            kernel: if not_in {
                retyped(JoinType::LeftAnti)?
            } else {
                join.clone()
            },
            inner,
            keys: join.equi_keys().map(|(on, ne)| (on.to_vec(), ne)),
        };
        if filtered_not_in {
            return self.blocks(&c, &l, &r, out);
        }
        let metrics = &plan.metrics;
        let (Some(ls), Some(rs)) = (
            c.splitter(JoinSide::Left, 0),
            c.splitter(JoinSide::Right, 0),
        ) else {
            // No keys: blocks of the smaller side against the other.
            return self.blocks(&c, &l, &r, out);
        };
        if not_in {
            if r.rows() == 0 {
                for b in l.read()? {
                    out(project_side(c.shape(), JoinSide::Left, &b?)?)?;
                }
                return Ok(());
            }
            if self.has_null_key(&r, &rs.keys)? {
                return Ok(());
            }
        }
        let lefts = if not_in {
            self.split_file_without_nulls(metrics, &l, ls)?
        } else {
            self.split_file(metrics, &l, ls)?
        };
        // A time join's right rows with a NULL key match nothing (and
        // make no row of their own): dropped, they do not crowd the
        // partition of the NULL keys' hash.
        let rights = if time_join && !rs.null_equal {
            self.split_file_without_nulls(metrics, &r, rs)?
        } else {
            self.split_file(metrics, &r, rs)?
        };
        let schemas = (l.schema().clone(), r.schema().clone());
        drop((l, r));
        self.join_pairs(&c, lefts, rights, (&schemas.0, &schemas.1), 1, out)
    }

    /// Whether a row of `file` has a NULL in a column of `keys`.
    fn has_null_key(&self, file: &SpillFile, keys: &[usize]) -> Result<bool> {
        for b in file.read()? {
            if null_key_rows(&b?, keys)?.0.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `file` split by `splitter`, its rows with a NULL key dropped (NOT
    /// IN's left side against a right side without NULLs).
    fn split_file_without_nulls(
        &self,
        metrics: &Arc<OperatorMetrics>,
        file: &SpillFile,
        splitter: Splitter,
    ) -> Result<Vec<Option<SpillFile>>> {
        let mut w = self.spill.writer(file.schema(), metrics)?;
        for b in file.read()? {
            w.write(&null_key_rows(&b?, &splitter.keys)?.1)?;
        }
        let kept = w.finish()?;
        self.split_file(metrics, &kept, splitter)
    }

    /// Joins partition `i` of `lefts` with partition `i` of `rights`, for
    /// every `i` (a missing partition: no rows, of `schemas`).
    fn join_pairs(
        &self,
        c: &Collected<'_>,
        lefts: Vec<Option<SpillFile>>,
        rights: Vec<Option<SpillFile>>,
        schemas: (&SchemaRef, &SchemaRef),
        level: u32,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &c.plan.metrics;
        let empty = |schema: &SchemaRef| self.spill.writer(schema, metrics)?.finish();
        for (l, r) in lefts.into_iter().zip(rights) {
            let (l, r) = match (l, r) {
                (None, None) => continue,
                (Some(l), Some(r)) => (l, r),
                (Some(l), None) => (l, empty(schemas.1)?),
                (None, Some(r)) => (empty(schemas.0)?, r),
            };
            self.join_pair(c, l, r, level, out)?;
        }
        Ok(())
    }

    /// Joins one pair of partitions: read back when both fit, else split
    /// again or joined in blocks.
    fn join_pair(
        &self,
        c: &Collected<'_>,
        l: SpillFile,
        r: SpillFile,
        level: u32,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &c.plan.metrics;
        metrics
            .spill
            .depth
            .fetch_max(u64::from(level), Ordering::Relaxed);
        // (Right as the build side: `build` is the right side's rows.)
        let t = tracks(c.kernel.join_type(), JoinSide::Right);
        if (l.rows() == 0 && !t.build) || (r.rows() == 0 && !t.probe) {
            return Ok(());
        }
        let need = cost(&c.kernel, JoinSide::Left, l.bytes(), l.rows()).saturating_add(cost(
            &c.kernel,
            JoinSide::Right,
            r.bytes(),
            r.rows(),
        ));
        let mut charge = self
            .budget_of(c.plan)
            .try_reserve("a spilled join partition", 0)?;
        if charge.grow_spillable(need).is_ok() {
            let lb = l.read()?.collect::<Result<Vec<_>>>()?;
            let rb = r.read()?.collect::<Result<Vec<_>>>()?;
            let held: usize = lb.iter().chain(&rb).map(batch_bytes).sum();
            charge.shrink(need.saturating_sub(held));
            let l_in = JoinInput::new(l.schema().clone(), lb);
            let r_in = JoinInput::new(r.schema().clone(), rb);
            drop((l, r));
            return run_collected(c.plan, &c.kernel, &l_in, &r_in, out);
        }
        drop(charge);
        if level < MAX_LEVEL
            && let (Some(ls), Some(rs)) = (
                c.splitter(JoinSide::Left, level),
                c.splitter(JoinSide::Right, level),
            )
        {
            // A split helps when it spreads the larger side's rows.
            let (larger, split) = if l.bytes() >= r.bytes() {
                (&l, &ls)
            } else {
                (&r, &rs)
            };
            let parts = self.split_file(metrics, larger, split.clone())?;
            if parts.iter().flatten().filter(|f| f.rows() > 0).count() > 1 {
                let (lefts, rights) = if l.bytes() >= r.bytes() {
                    (parts, self.split_file(metrics, &r, rs)?)
                } else {
                    (self.split_file(metrics, &l, ls)?, parts)
                };
                let schemas = (l.schema().clone(), r.schema().clone());
                drop((l, r));
                return self.join_pairs(c, lefts, rights, (&schemas.0, &schemas.1), level + 1, out);
            }
        }
        self.blocks(c, &l, &r, out)
    }

    /// `l` x `r` joined in blocks: of the side the inner join holds, or
    /// of the smaller side when it holds either (the hash join) or both
    /// (sort-merge with range conditions).
    fn blocks(
        &self,
        c: &Collected<'_>,
        l: &SpillFile,
        r: &SpillFile,
        out: &Sink<'_>,
    ) -> Result<()> {
        let Some(c_inner) = &c.inner else {
            return self.time_blocks(c, l, r, out);
        };
        let smaller = if l.bytes() <= r.bytes() {
            JoinSide::Left
        } else {
            JoinSide::Right
        };
        let (inner, build_side) = match (c_inner.fed(), c_inner.held_side()) {
            (Some(fed), _) => (fed.building(smaller, Strategy::Broadcast), smaller),
            (None, Some(side)) => (c_inner.clone(), side),
            (None, None) => (c_inner.clone(), smaller),
        };
        let (build, probe) = match build_side {
            JoinSide::Left => (l, r),
            JoinSide::Right => (r, l),
        };
        let fed = inner.fed().is_some();
        let small_chunks = !fed && inner.held_side().is_none();
        let room = |bytes: usize, rows: usize| {
            if fed {
                expansion(bytes, rows)
            } else {
                let kernel = cost(&inner, build_side, bytes, rows);
                // Room for a chunk as large as the block when the kernel
                // holds the chunk too.
                kernel.saturating_mul(if small_chunks { 2 } else { 1 })
            }
        };
        let blocked = Blocked {
            shape: c.shape(),
            join_type: c.kernel.join_type(),
            build_side,
            inner: inner.clone(),
            cost: &room,
            small_chunks,
        };
        block::join_blocks(self, &blocked, build, probe, out)
    }

    /// A time join's partition that does not fit: its right rows (the
    /// versions of its keys) held whole and its left rows joined with
    /// them a chunk at a time, which gives the same rows (a left row's
    /// version depends only on the right rows of its key). The right rows
    /// of one key that do not fit with a chunk of one left row end the
    /// query at the limit, naming it.
    fn time_blocks(
        &self,
        c: &Collected<'_>,
        l: &SpillFile,
        r: &SpillFile,
        out: &Sink<'_>,
    ) -> Result<()> {
        let budget = self.budget_of(c.plan);
        let right_need = cost(&c.kernel, JoinSide::Right, r.bytes(), r.rows());
        let row_need = |bytes: usize, rows: usize| {
            cost(&c.kernel, JoinSide::Left, bytes, rows).div_ceil(rows.max(1))
        };
        let one_row = row_need(l.bytes(), l.rows());
        let mut charge = budget.try_reserve("a spilled join partition", 0)?;
        if charge
            .grow_spillable(right_need.saturating_add(one_row))
            .is_err()
        {
            return Err(ExecError::from(KernelError::MemoryLimitExceeded {
                what: "a temporal or as-of join's versions of one key (a left row's version \
                       is chosen among all of its key's versions, which must fit at once)",
                needed: right_need.saturating_add(one_row),
                used: budget.used(),
                limit: budget.limit(),
            }));
        }
        let rb = r.read()?.collect::<Result<Vec<_>>>()?;
        let held: usize = rb.iter().map(batch_bytes).sum();
        // What stays charged: the right rows; the kernel charges its own
        // copies and tables (the rest of `right_need`) when it runs.
        charge.shrink(right_need.saturating_add(one_row).saturating_sub(held));
        let r_in = JoinInput::new(r.schema().clone(), rb);
        let room = budget
            .limit()
            .saturating_sub(budget.used())
            .saturating_sub(right_need.saturating_sub(held));
        for b in l.read()? {
            let b = b?;
            let n = b.num_rows();
            let per_row = row_need(batch_bytes(&b), n).max(1);
            let step = (room / per_row).clamp(1, n.max(1));
            let mut from = 0;
            while from < n {
                let take = step.min(n - from);
                let l_in = JoinInput::new(l.schema().clone(), vec![b.slice(from, take)]);
                run_collected(c.plan, &c.kernel, &l_in, &r_in, out)?;
                from += take;
            }
        }
        c.plan.metrics.spill.blocks.fetch_add(1, Ordering::Relaxed);
        drop(charge);
        Ok(())
    }
}
