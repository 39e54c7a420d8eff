//! Running a hash join: validation, the build, the probe, and the source of
//! unmatched rows, for both modes.
//!
//! # Phases
//!
//! ```text
//!  build side ─ encode keys ─ partition (sink, combine, scatter) ─ finalize tables
//!  probe side ─ encode keys ─ probe ─ filter ─ mark ─ gather ─► sink
//!  visited bitmaps ─────────────────────────────── source ─► sink   (after all probes)
//! ```
//!
//! # Partition count (partitioned mode)
//!
//! A table entry is 16 bytes (8-byte tag, row, count) and tables are sized
//! at 1.5x their rows rounded up to a power of two. [`PARTITION_ROWS`] =
//! 8192 build rows gives tables of 16K slots = 256 KiB: half of a 512 KiB
//! L2 cache per core, leaving room for the probe stream and the output
//! indices. The partition count is the build row count divided by that,
//! rounded up to a power of two, at most [`MAX_PARTITION_BITS`] bits (1024
//! partitions) so that the scatter writes to few enough places at once to
//! stay within the TLB. Build sides above about 8.4M rows therefore get
//! partitions of more than 8192 rows, whose tables outgrow L2 (a second
//! partitioning pass would fix that). Once a partition's table is in L2,
//! the probe is bound by hashing and branches, not by the table's size, so
//! smaller partitions gain nothing (figures: `benches/README.md`, "Kernel
//! design notes (history)").
//!
//! A build side of at most [`UNPARTITIONED_ROWS`] is not partitioned at all
//! (its table, at most 3 MiB, is shared by the probe threads): the probe
//! side is then neither scattered nor held whole.
//!
//! # Skew
//!
//! Partitions are grouped into tasks of about equal probe size. A partition
//! whose probe side exceeds both [`SPLIT_ROWS`] and twice the average
//! partition (a hot key, as under Zipf) builds its
//! table once and probes in parallel sub-chunks that share it, so one hot
//! partition does not serialize the join. A hot key on the build side is one
//! group: the build stays linear, and the (unavoidable) cross product of
//! its matches streams out in bounded batches.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::NullBuffer;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::bloom::{FILTER_MIN_ROWS, FilterStats, KeyFilter};
use super::dense::{DirectIndex, KeyBits, KeyRange, probe_direct};
use super::partition::{scatter, scatter_bytes};
use super::probe::{Candidates, Cursor, MorselKeys, Selected, probe, select};
use super::table::JoinTable;
use super::{HashJoin, HashJoinMode};
use crate::bitmap::{AtomicBitmap, Bitmap};
use crate::error::Result;
use crate::join_type::{JoinSide, Roles};
use crate::kernel::concat::one_batch;
use crate::kernel::dispatch::with_key_encoding;
use crate::kernel::emit::{BatchSink, Emitter};
use crate::kernel::output::OutputLayout;
use crate::kernel::pairs::{PAIR_CHUNK, PairOutput, PairProbe, PairSlot};
use crate::kernel::validate::same_types;
use crate::kernel::{JoinInput, ProbeFeed};
use crate::keys::{KeyKind, KeySource, key_nulls};
use crate::memory::MemoryReservation;

/// Build rows per partition in the partitioned mode (see the module docs).
const PARTITION_ROWS: usize = 8192;
/// At most 2^10 partitions.
pub(super) const MAX_PARTITION_BITS: u32 = 10;
/// A partition whose probe side is larger than this is probed in parallel.
pub(super) const SPLIT_ROWS: usize = 1 << 16;
/// Probe rows per morsel in the broadcast mode.
const MORSEL_ROWS: usize = 1 << 16;
/// Build sides up to this many rows are built by one thread, unpartitioned.
const SERIAL_BUILD_ROWS: usize = 1 << 16;
/// Rows per region of a broadcast table built in parallel.
const REGION_ROWS: usize = 1 << 16;

/// A build side of at most this many rows is not partitioned, even in the
/// partitioned mode: its table (at most 3 MiB) is shared by the probe
/// threads, probed batch by batch as in the broadcast mode, and the probe
/// side is neither scattered nor held whole. Read outside this module
/// through [`HashJoin::unpartitioned_rows`] and
/// [`FedProbe::partitions_build`](crate::FedProbe::partitions_build).
pub(super) const UNPARTITIONED_ROWS: usize = 1 << 17;

/// Partition bits of the partitioned mode for a build side of `n_build`
/// rows when the count is not fixed (see the module docs).
pub(crate) fn partition_bits(n_build: usize) -> u32 {
    if n_build <= UNPARTITIONED_ROWS {
        return 0;
    }
    let want = n_build.div_ceil(PARTITION_ROWS).max(1).next_power_of_two();
    want.trailing_zeros().min(MAX_PARTITION_BITS)
}

/// A validated join, ready to run.
pub(crate) struct Prepared<'a> {
    pub(super) join: &'a HashJoin,
    pub(super) roles: Roles,
    pub(super) layout: OutputLayout,
    pub(super) kind: KeyKind,
    pub(super) build: &'a JoinInput,
    pub(super) probe: &'a JoinInput,
    pub(super) build_keys: Vec<usize>,
    pub(super) probe_keys: Vec<usize>,
}

impl<'a> Prepared<'a> {
    pub(crate) fn new(
        join: &'a HashJoin,
        left: &'a JoinInput,
        right: &'a JoinInput,
    ) -> Result<Self> {
        let (_, kind) = join.keys.check("hash join", join.join_type, left, right)?;
        let layout = join
            .options
            .layout(join.join_type, left.schema(), right.schema())?;
        let (lkeys, rkeys) = (join.keys.left_columns(), join.keys.right_columns());
        let (build, probe, build_keys, probe_keys) = match join.build_side {
            JoinSide::Left => (left, right, lkeys, rkeys),
            JoinSide::Right => (right, left, rkeys, lkeys),
        };
        Ok(Prepared {
            join,
            roles: Roles::new(join.join_type, join.build_side),
            layout,
            kind,
            build,
            probe,
            build_keys,
            probe_keys,
        })
    }

    /// Runs on the current rayon pool. With a `feed` (broadcast mode only),
    /// the probe side's batches come from it, not from the probe input.
    /// With `pairs`, the matched pairs go to its workers, and `sink` gets
    /// nothing (an INNER join has no other output).
    pub(crate) fn run(
        &self,
        sink: &BatchSink<'_>,
        feed: Option<&ProbeFeed<'_>>,
        pairs: Option<&PairOutput<'_>>,
    ) -> Result<()> {
        with_key_encoding!(&self.kind, S => self.run_keys::<S>(sink, feed, pairs))
    }

    fn run_keys<S: KeySource>(
        &self,
        sink: &BatchSink<'_>,
        feed: Option<&ProbeFeed<'_>>,
        pairs: Option<&PairOutput<'_>>,
    ) -> Result<()> {
        let (build, _build_mem) = self.concat(self.build, "the build side")?;
        let n_build = build.num_rows();
        let bcols = key_columns(&build, &self.build_keys);
        let bkeys = S::encode(&self.kind, &bcols)?;
        let bnulls = key_nulls(&bcols, &self.kind, self.join.keys.null_equal);
        let bits = match (self.join.mode, self.join.keys.partitions) {
            (HashJoinMode::Broadcast, _) => 0,
            (HashJoinMode::Partitioned, Some(p)) => p.trailing_zeros(),
            (HashJoinMode::Partitioned, None) => partition_bits(n_build),
        };
        if bits != 0 && feed.is_some() {
            return Err(crate::error::KernelError::Internal(
                "a partitioned join cannot take its probe side batch by batch".into(),
            ));
        }
        let visited = self
            .roles
            .tracks_build()
            .then(|| AtomicBitmap::new(n_build));
        let _visited_mem = self.join.options.memory.try_reserve(
            "the build side's match bitmap",
            AtomicBitmap::bytes_for(n_build),
        )?;
        let emitter = Emitter {
            roles: self.roles,
            layout: &self.layout,
            build_is_left: self.join.build_side == JoinSide::Left,
            build: &build,
            filter: self.join.options.filter.as_deref(),
            visited: visited.as_ref(),
            batch_size: self.join.options.batch_size,
            sink,
        };
        let side = BuildSide {
            batch: &build,
            keys: &bkeys,
            nulls: bnulls.as_ref(),
        };
        let (probe_has_null, probe_rows) = if bits == 0 {
            self.broadcast::<S>(&side, &emitter, feed, pairs)?
        } else {
            let has_null = self.partitioned::<S>(&side, bits, &emitter, pairs)?;
            (has_null, self.probe.num_rows())
        };
        // Source: build rows decided by the bitmap.
        if let Some(v) = &visited {
            let r = self.roles;
            let na_plain = r.null_aware && self.join.options.filter.is_none();
            if na_plain && probe_has_null {
                return Ok(()); // NOT IN with a NULL on the probe side: nothing.
            }
            let probe_empty = probe_rows == 0;
            let want_matched = r.build_semi;
            let key_null = |i: usize| bnulls.as_ref().is_some_and(|n| n.is_null(i));
            emitter.rows_where(&build, true, n_build, |i| {
                if na_plain && key_null(i) {
                    return probe_empty;
                }
                v.get(i) == want_matched
            })?;
        }
        Ok(())
    }

    /// One input as one batch (see [`one_batch`]).
    pub(super) fn concat(
        &self,
        input: &JoinInput,
        what: &'static str,
    ) -> Result<(RecordBatch, Option<MemoryReservation>)> {
        one_batch(input, &self.join.options.memory, what)
    }

    /// The candidate rules of this join (see [`Candidates`]).
    pub(super) fn candidates<'b>(
        &self,
        n_build: usize,
        build_nulls: &'b [u32],
        all_rows: &'b [u32],
    ) -> Candidates<'b> {
        let r = self.roles;
        let filtered = self.join.options.filter.is_some();
        let first_only = r.probe_exists_only() && !filtered;
        if r.null_aware {
            if filtered {
                return Candidates {
                    null_group: Some(all_rows),
                    extra: build_nulls,
                    first_only,
                };
            }
            if r.probe_anti {
                // One candidate decides: any build row conflicts with a NULL
                // probe key, and a NULL build key conflicts with every row.
                return Candidates {
                    null_group: (n_build > 0).then(|| &all_rows[..1]),
                    extra: &build_nulls[..build_nulls.len().min(1)],
                    first_only,
                };
            }
            // Build-side NOT IN without a filter: decided by flags at the source.
            return Candidates {
                first_only,
                ..Candidates::default()
            };
        }
        Candidates {
            null_group: self.join.keys.null_equal.then_some(build_nulls),
            extra: &[],
            first_only,
        }
    }

    /// `0..n_build` when the candidate rules need every build row.
    pub(super) fn all_rows(&self, n_build: usize) -> Result<(Vec<u32>, Option<MemoryReservation>)> {
        let r = self.roles;
        if !r.null_aware || n_build == 0 {
            return Ok((Vec::new(), None));
        }
        if self.join.options.filter.is_none() {
            return Ok((vec![0], None));
        }
        let mem = self
            .join
            .options
            .memory
            .try_reserve("the NOT IN candidate list", n_build * 4)?;
        Ok(((0..n_build as u32).collect(), Some(mem)))
    }

    /// Broadcast: one table, probe morsels in parallel (from the probe
    /// input, or pushed by `feed` as they are made). Returns whether any
    /// probe key was NULL, and the number of probe rows.
    fn broadcast<S: KeySource>(
        &self,
        b: &BuildSide<'_, S>,
        emitter: &Emitter<'_>,
        feed: Option<&ProbeFeed<'_>>,
        pairs: Option<&PairOutput<'_>>,
    ) -> Result<(bool, usize)> {
        let n_build = b.batch.num_rows();
        let BuiltTable {
            table,
            direct,
            null_rows: build_nulls,
            filter,
            _memory,
            _filter_memory,
        } = self.build_table(b)?;
        let (all_rows, _all_mem) = self.all_rows(n_build)?;
        let cand = self.candidates(n_build, &build_nulls, &all_rows);
        // Every non-NULL probe row must reach the candidates when there are
        // extra ones (filtered NOT IN); otherwise the key filter may drop
        // the rows it rules out, while it pays (see `FilterStats`).
        let filter = filter.filter(|_| cand.extra.is_empty());
        let stats = FilterStats::default();
        // Pairs handed to a consumer come in chunks that stay in L1.
        let bs = match pairs {
            Some(_) => PAIR_CHUNK,
            None => self.join.options.batch_size,
        };
        let any_null = AtomicBool::new(false);
        let probe_rows = AtomicUsize::new(0);
        let roles = self.roles;
        let new_scratch = || -> Scratch<'_, '_> {
            (
                Vec::with_capacity(bs),
                Vec::with_capacity(bs),
                Bitmap::default(),
                Vec::new(),
                pairs.map(PairOutput::slot),
            )
        };
        // One morsel (at most MORSEL_ROWS rows of one batch).
        let morsel = |(bi, pi, marks, sel, slot): &mut Scratch<'_, '_>,
                      batch: &RecordBatch|
         -> Result<()> {
            let len = batch.num_rows();
            probe_rows.fetch_add(len, Ordering::Relaxed);
            let cols = key_columns(batch, &self.probe_keys);
            let keys = S::encode(&self.kind, &cols)?;
            let nulls = key_nulls(&cols, &self.kind, self.join.keys.null_equal);
            if nulls.is_some() {
                any_null.store(true, Ordering::Relaxed);
            }
            let input = MorselKeys {
                keys: &keys,
                nulls: nulls.as_ref(),
                len,
            };
            if roles.tracks_probe() {
                marks.reset(len);
            }
            let same = |p: u32, br: u32| keys.same_key(p as usize, b.keys, br as usize);
            let mut run = |input: &ProbeStep<'_>,
                           bi: &mut Vec<u32>,
                           pi: &mut Vec<u32>,
                           marks: &mut Bitmap|
             -> Result<()> {
                let mut cur = Cursor::default();
                loop {
                    let done = input(&mut cur, bi, pi);
                    match slot.as_mut() {
                        Some(s) => emitter.consume_pairs(PairProbe::Batch(batch), bi, pi, s)?,
                        None => emitter.pairs(batch, bi, pi, |r| marks.set(r as usize))?,
                    }
                    if done {
                        return Ok(());
                    }
                }
            };
            if let Some(d) = &direct {
                let word = |t: S::Tag| S::word(t).unwrap_or_default();
                run(
                    &|cur, bi, pi| probe_direct(d, &input, word, cur, bs, bi, pi),
                    bi,
                    pi,
                    marks,
                )?;
            } else {
                match filter.as_ref().filter(|_| stats.worth_it()) {
                    Some(f) => {
                        select(&input, |t| f.may_contain::<S>(t), sel);
                        stats.record(len, sel.len());
                        let input = Selected {
                            inner: &input,
                            sel: sel.as_slice(),
                        };
                        run(
                            &|cur, bi, pi| {
                                probe::<S, _>(&table, &input, &cand, same, cur, bs, bi, pi)
                            },
                            bi,
                            pi,
                            marks,
                        )?;
                    }
                    None => run(
                        &|cur, bi, pi| probe::<S, _>(&table, &input, &cand, same, cur, bs, bi, pi),
                        bi,
                        pi,
                        marks,
                    )?,
                }
            }
            emitter.marked_rows(batch, len, marks)
        };
        match feed {
            None => {
                let morsels: Vec<(usize, usize, usize)> = self
                    .probe
                    .batches()
                    .iter()
                    .enumerate()
                    .flat_map(|(bi, batch)| {
                        (0..batch.num_rows())
                            .step_by(MORSEL_ROWS)
                            .map(move |off| (bi, off, MORSEL_ROWS.min(batch.num_rows() - off)))
                    })
                    .collect();
                morsels.par_iter().try_for_each_init(
                    new_scratch,
                    |scratch, &(batch_idx, off, len)| {
                        morsel(scratch, &self.probe.batches()[batch_idx].slice(off, len))
                    },
                )?;
            }
            Some(feed) => {
                let schema = self.probe.schema();
                feed(&|batch: RecordBatch| {
                    check_fed(schema, &batch)?;
                    let mut scratch = new_scratch();
                    let n = batch.num_rows();
                    for off in (0..n).step_by(MORSEL_ROWS) {
                        morsel(&mut scratch, &batch.slice(off, MORSEL_ROWS.min(n - off)))?;
                    }
                    Ok(())
                })?;
            }
        }
        Ok((any_null.into_inner(), probe_rows.into_inner()))
    }

    /// Builds one table over the whole build side. Returns it, the rows
    /// whose key is NULL, and the memory it holds.
    fn build_table<S: KeySource>(&self, b: &BuildSide<'_, S>) -> Result<BuiltTable<S::Tag>> {
        let n = b.batch.num_rows();
        let mem = &self.join.options.memory;
        // Integer keys: their range decides between a direct index (no hash
        // table at all) and key bits in front of the table. Both only speed
        // the probe up: when the memory budget cannot hold them (a spilling
        // join under a small limit), the plain hash table does the work.
        let range = self.key_range(b);
        if let Some(range) = range.filter(|r| r.suits_direct(n))
            && let Ok(r) = mem.try_reserve("the direct key index", DirectIndex::bytes_for(range))
        {
            // Rows with a NULL key are not indexed (they never match here).
            let rows: Option<Vec<u32>> =
                b.nulls.map(|_| b.valid_rows().map(|i| i as u32).collect());
            let count = rows.as_ref().map_or(n, Vec::len);
            let row_key = |i: usize| {
                let row = rows.as_ref().map_or(i as u32, |r| r[i]);
                (row, S::word(b.keys.tag(row as usize)).unwrap_or_default())
            };
            if let Some(direct) = DirectIndex::build(range, count, row_key) {
                let null_rows = (0..n)
                    .filter(|&i| b.nulls.is_some_and(|nb| nb.is_null(i)))
                    .map(|i| i as u32)
                    .collect();
                return Ok(BuiltTable {
                    table: JoinTable::default(),
                    direct: Some(direct),
                    null_rows,
                    filter: None,
                    _memory: r,
                    _filter_memory: None,
                });
            }
        }
        let mut built = self.build_hash_table(b)?;
        if let Some(range) = range.filter(|r| r.suits_bits() && built.filter.is_none())
            && let Ok(r) = mem.try_reserve("the key bits", KeyBits::bytes_for(range))
        {
            built._filter_memory = Some(r);
            let keys = b.valid_rows().filter_map(|i| S::word(b.keys.tag(i)));
            built.filter = Some(Prefilter::Bits(KeyBits::build(range, keys)));
        }
        Ok(built)
    }

    /// The range of the build side's keys when they are integers and the
    /// join may use the dense-key structures: not when NULL keys are
    /// candidates (null-equal joins, NOT IN), which need the hash table's
    /// NULL group.
    fn key_range<S: KeySource>(&self, b: &BuildSide<'_, S>) -> Option<KeyRange> {
        if self.join.keys.null_equal || self.roles.null_aware {
            return None;
        }
        S::word(S::Tag::default())?;
        KeyRange::of(b.valid_rows().filter_map(|i| S::word(b.keys.tag(i))))
    }

    /// Builds a hash table over the whole build side (see
    /// [`Prepared::build_table`]).
    fn build_hash_table<S: KeySource>(&self, b: &BuildSide<'_, S>) -> Result<BuiltTable<S::Tag>> {
        let n = b.batch.num_rows();
        let mem = &self.join.options.memory;
        let mut table = JoinTable::default();
        let same = |x: u32, y: u32| b.keys.same_key(x as usize, b.keys, y as usize);
        if n <= SERIAL_BUILD_ROWS {
            let valid: Option<Vec<u32>> = b
                .nulls
                .map(|nb| (0..n as u32).filter(|&i| nb.is_valid(i as usize)).collect());
            let nulls: Vec<u32> = b.nulls.map_or_else(Vec::new, |nb| {
                (0..n as u32).filter(|&i| nb.is_null(i as usize)).collect()
            });
            let count = valid.as_ref().map_or(n, |v| v.len());
            let r = mem.try_reserve("the hash table", JoinTable::<S::Tag>::bytes_for(&[count]))?;
            let builder = table.single(count, 0);
            let row = |i: usize| valid.as_ref().map_or(i as u32, |v| v[i]);
            let repeated = builder.build(
                count,
                |i| {
                    let r = row(i);
                    let t = b.keys.tag(r as usize);
                    (t, S::hash(t), r)
                },
                same,
                &mut Vec::new(),
            );
            table.set_repeated(repeated);
            return Ok(BuiltTable {
                table,
                direct: None,
                null_rows: nulls,
                filter: None,
                _memory: r,
                _filter_memory: None,
            });
        }
        let bits = (n / REGION_ROWS)
            .next_power_of_two()
            .trailing_zeros()
            .min(MAX_PARTITION_BITS);
        let scatter_mem = mem.try_reserve("partitioning the build side", scatter_bytes::<S>(n))?;
        let sc = scatter(b.keys, n, b.nulls, bits);
        let counts = sc.counts();
        let r = mem.try_reserve("the hash table", JoinTable::<S::Tag>::bytes_for(&counts))?;
        table.reset(&counts, 0);
        let ranges: Vec<_> = (0..sc.partitions()).map(|p| sc.range(p)).collect();
        let builders = table.region_builders(&ranges);
        let repeated = builders
            .into_par_iter()
            .zip(ranges.par_iter())
            .map_init(Vec::new, |scratch, (builder, range)| {
                let (tags, rows) = (&sc.tags[range.clone()], &sc.rows[range.clone()]);
                builder.build(
                    range.len(),
                    |i| (tags[i], S::hash(tags[i]), rows[i]),
                    same,
                    scratch,
                )
            })
            .reduce(|| false, |a, b| a | b);
        table.set_repeated(repeated);
        // Only a table beyond the cache is worth a filter in front of it.
        // (Like the key bits, it yields when the budget cannot hold it.)
        let mut filter_mem = None;
        let filter = if table.large() && n >= FILTER_MIN_ROWS {
            filter_mem = mem
                .try_reserve("the key filter", KeyFilter::bytes_for(n, sc.partitions()))
                .ok();
            filter_mem
                .is_some()
                .then(|| Prefilter::Bloom(KeyFilter::from_scattered::<S>(&sc)))
        } else {
            None
        };
        drop(scatter_mem);
        Ok(BuiltTable {
            table,
            direct: None,
            null_rows: sc.null_rows,
            filter,
            _memory: r,
            _filter_memory: filter_mem,
        })
    }
}

/// A morsel's reused vectors: build rows, probe rows, probe marks, the
/// rows the key filter passes, and the hold on a pair consumer's worker.
type Scratch<'o, 'a> = (
    Vec<u32>,
    Vec<u32>,
    Bitmap,
    Vec<u32>,
    Option<PairSlot<'o, 'a>>,
);

/// A fed batch must have the probe input's column types.
fn check_fed(schema: &arrow_schema::SchemaRef, batch: &RecordBatch) -> Result<()> {
    if same_types(schema, batch) {
        return Ok(());
    }
    Err(crate::error::KernelError::InvalidOptions(format!(
        "a probe batch pushed into the join has the schema {:?}, not the probe side's {schema:?}",
        batch.schema()
    )))
}

/// One resumable probe call over a morsel (see [`probe`]).
type ProbeStep<'a> = dyn Fn(&mut Cursor, &mut Vec<u32>, &mut Vec<u32>) -> bool + 'a;

/// A broadcast table (or a direct index instead of it), its build rows
/// with NULL keys, and its memory.
struct BuiltTable<T> {
    table: JoinTable<T>,
    /// When set, the table is empty and this finds the build rows.
    direct: Option<DirectIndex>,
    null_rows: Vec<u32>,
    /// A filter over the keys: a Bloom filter for a table larger than the
    /// cache, or exact key bits for integer keys of a small range.
    filter: Option<Prefilter>,
    _filter_memory: Option<MemoryReservation>,
    _memory: MemoryReservation,
}

/// A test in front of the hash table that drops most probe rows without a
/// match.
enum Prefilter {
    Bloom(KeyFilter),
    Bits(KeyBits),
}

impl Prefilter {
    /// Whether the build side may hold `tag` (`false`: certainly not).
    #[inline(always)]
    fn may_contain<S: KeySource>(&self, tag: S::Tag) -> bool {
        match self {
            Prefilter::Bloom(f) => f.may_contain(S::hash(tag)),
            Prefilter::Bits(b) => S::word(tag).is_none_or(|w| b.contains(w)),
        }
    }
}

/// The build side, encoded.
pub(super) struct BuildSide<'a, S> {
    pub(super) batch: &'a RecordBatch,
    pub(super) keys: &'a S,
    pub(super) nulls: Option<&'a NullBuffer>,
}

impl<S> BuildSide<'_, S> {
    /// The rows whose key is not NULL.
    fn valid_rows(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.batch.num_rows()).filter(|&i| self.nulls.is_none_or(|nb| nb.is_valid(i)))
    }
}

pub(super) fn key_columns(batch: &RecordBatch, keys: &[usize]) -> Vec<ArrayRef> {
    keys.iter().map(|&k| batch.column(k).clone()).collect()
}
