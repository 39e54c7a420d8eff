//! The partitioned ("shuffle hash") mode: both sides radix-partitioned by
//! hash, then every partition built and probed as its own task with a table
//! that fits in a core's cache (see [`super::exec`] for the partition count
//! and the skew handling).

use arrow_array::RecordBatch;
use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use super::bloom::{FILTER_MIN_ROWS, KeyFilter};
use super::exec::{BuildSide, Prepared, SPLIT_ROWS, key_columns};
use super::partition::{KeyBatch, Scattered, scatter, scatter_batches, scatter_bytes};
use super::probe::{Candidates, Cursor, NullKeys, PartKeys, ProbeKeys, probe};
use super::table::JoinTable;
use crate::bitmap::AtomicBitmap;
use crate::error::Result;
use crate::kernel::emit::Emitter;
use crate::kernel::pairs::{PAIR_CHUNK, PairOutput, PairProbe, PairSlot};
use crate::keys::{KeySource, key_nulls};
use crate::rows::BatchList;

impl Prepared<'_> {
    /// Partitioned: scatter both sides, then build and probe partition by
    /// partition. Returns whether any probe key was NULL.
    pub(super) fn partitioned<S: KeySource>(
        &self,
        b: &BuildSide<'_, S>,
        bits: u32,
        emitter: &Emitter<'_>,
        pairs: Option<&PairOutput<'_>>,
    ) -> Result<bool> {
        let mem = &self.join.options.memory;
        // The probe side stays in its batches, addressed by global row;
        // except under a filter, which sees the probe side as one batch:
        // one copy of the probe side up front is cheaper than gathering
        // every column of every chunk of candidate pairs (see the band
        // workload in benches/README.md).
        let whole;
        let probe_batches: &[RecordBatch] =
            if self.join.options.filter.is_some() && self.probe.batches().len() > 1 {
                whole = self.concat(self.probe, "the probe side, as one batch for the filter")?;
                std::slice::from_ref(&whole.0)
            } else {
                self.probe.batches()
            };
        let probe = BatchList::new(self.probe.schema().clone(), probe_batches);
        let n_probe = probe.num_rows();
        let n_build = b.batch.num_rows();
        let pkeys: Vec<(S, Option<NullBuffer>)> = probe_batches
            .par_iter()
            .map(|batch| {
                let cols = key_columns(batch, &self.probe_keys);
                let nulls = key_nulls(&cols, &self.kind, self.join.keys.null_equal);
                Ok((S::encode(&self.kind, &cols)?, nulls))
            })
            .collect::<Result<_>>()?;
        let key_batches: Vec<KeyBatch<'_, S>> = pkeys
            .iter()
            .zip(probe.offsets())
            .zip(probe.batches())
            .map(|(((keys, nulls), &base), batch)| KeyBatch {
                keys,
                nulls: nulls.as_ref(),
                base,
                len: batch.num_rows(),
            })
            .collect();
        let _scatter_mem = mem.try_reserve(
            "partitioning both sides",
            scatter_bytes::<S>(n_build) + scatter_bytes::<S>(n_probe),
        )?;
        let bsc = scatter(b.keys, n_build, b.nulls, bits);
        let (all_rows, _all_mem) = self.all_rows(n_build)?;
        let cand = self.candidates(n_build, &bsc.null_rows, &all_rows);
        // A key filter drops probe rows without a match before they are
        // scattered, when a sample says most rows have none.
        let _filter_mem;
        let filter = if cand.extra.is_empty() && n_build >= FILTER_MIN_ROWS {
            _filter_mem = mem.try_reserve(
                "the key filter",
                KeyFilter::bytes_for(n_build, bsc.partitions()),
            )?;
            let f = KeyFilter::from_scattered::<S>(&bsc);
            let hash_at = |row: usize| {
                let (batch, i) = probe.locate(row);
                let (keys, nulls) = &pkeys[batch];
                let null = nulls.as_ref().is_some_and(|n| n.is_null(i));
                (!null).then(|| S::hash(keys.tag(i)))
            };
            f.worth_it(n_probe, hash_at).then_some(f)
        } else {
            None
        };
        let psc = scatter_batches(&key_batches, bits, filter.as_ref());
        let roles = self.roles;
        let marks = roles.tracks_probe().then(|| AtomicBitmap::new(n_probe));
        let _marks_mem = mem.try_reserve(
            "the probe side's match bitmap",
            AtomicBitmap::bytes_for(n_probe),
        )?;
        let biggest = bsc.counts().into_iter().max().unwrap_or(0);
        let threads = rayon::current_num_threads();
        let _tables_mem = mem.try_reserve(
            "the partition hash tables",
            JoinTable::<S::Tag>::bytes_for(&[biggest]) * threads,
        )?;
        let work = PartitionWork {
            b,
            bsc: &bsc,
            psc: &psc,
            pkeys: &pkeys,
            probe: &probe,
            cand,
            bits,
            emitter,
            marks: marks.as_ref(),
            hot_rows: SPLIT_ROWS.max(2 * n_probe / psc.partitions()),
            pairs,
            limit: match pairs {
                Some(_) => PAIR_CHUNK,
                None => self.join.options.batch_size,
            },
        };
        // Tasks: runs of partitions with about equal probe rows.
        let tasks = group_partitions(&psc, threads * 8);
        tasks.par_iter().try_for_each_init(
            || (Worker::<S::Tag>::default(), pairs.map(PairOutput::slot)),
            |(w, slot), parts| work.task(w, slot, parts.clone()),
        )?;
        // Probe rows with a NULL key never reach a partition.
        if !psc.null_rows.is_empty() {
            let empty = JoinTable::default();
            let input = NullKeys {
                rows: &psc.null_rows,
            };
            let mut slot = pairs.map(PairOutput::slot);
            work.probe_all(
                &empty,
                &input,
                &mut Vec::new(),
                &mut Vec::new(),
                &mut slot,
                true,
            )?;
        }
        // Source: probe rows decided by the bitmap.
        if let Some(m) = &marks {
            let want = roles.probe_semi;
            emitter.rows_where(&probe, false, n_probe, |i| m.get(i) == want)?;
        }
        Ok(!psc.null_rows.is_empty())
    }
}

/// Splits partitions into at most about `tasks` runs of similar probe size.
fn group_partitions<T>(psc: &Scattered<T>, tasks: usize) -> Vec<std::ops::Range<usize>> {
    let total = psc.tags.len().max(1);
    let per_task = total.div_ceil(tasks.max(1)).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    let mut acc = 0;
    for p in 0..psc.partitions() {
        acc += psc.range(p).len();
        if acc >= per_task {
            out.push(start..p + 1);
            start = p + 1;
            acc = 0;
        }
    }
    if start < psc.partitions() {
        out.push(start..psc.partitions());
    }
    out
}

/// A worker's reusable buffers in the partitioned mode.
#[derive(Default)]
struct Worker<T> {
    table: JoinTable<T>,
    slot_of: Vec<u32>,
    build_rows: Vec<u32>,
    probe_rows: Vec<u32>,
}

/// What every partition task shares.
struct PartitionWork<'a, 'p, S: KeySource> {
    b: &'a BuildSide<'a, S>,
    bsc: &'a Scattered<S::Tag>,
    psc: &'a Scattered<S::Tag>,
    pkeys: &'a [(S, Option<NullBuffer>)],
    probe: &'a BatchList<'a>,
    cand: Candidates<'a>,
    bits: u32,
    emitter: &'a Emitter<'a>,
    marks: Option<&'a AtomicBitmap>,
    /// Probe rows above which a partition is hot (see [`SPLIT_ROWS`]).
    hot_rows: usize,
    /// Where the pairs go instead of output batches, if anywhere.
    pairs: Option<&'a PairOutput<'p>>,
    /// Pairs per chunk: the batch size, or [`PAIR_CHUNK`] for a consumer.
    limit: usize,
}

impl<S: KeySource> PartitionWork<'_, '_, S> {
    /// Builds and probes the partitions `parts`, carrying output pairs from
    /// one partition to the next so batches stay full.
    fn task(
        &self,
        w: &mut Worker<S::Tag>,
        slot: &mut Option<PairSlot<'_, '_>>,
        parts: std::ops::Range<usize>,
    ) -> Result<()> {
        let bs = self.limit;
        w.build_rows.reserve(bs);
        w.probe_rows.reserve(bs);
        for p in parts {
            let br = self.bsc.range(p);
            let builder = w.table.single(br.len(), self.bits);
            let (tags, rows) = (&self.bsc.tags[br.clone()], &self.bsc.rows[br.clone()]);
            let keys = self.b.keys;
            let repeated = builder.build(
                br.len(),
                |i| (tags[i], S::hash(tags[i]), rows[i]),
                |x, y| keys.same_key(x as usize, keys, y as usize),
                &mut w.slot_of,
            );
            w.table.set_repeated(repeated);
            let pr = self.psc.range(p);
            if pr.len() > self.hot_rows {
                // A hot partition: probe its sub-chunks in parallel.
                let table = &w.table;
                pr.clone()
                    .into_par_iter()
                    .step_by(SPLIT_ROWS)
                    .try_for_each(|s| {
                        let sub = s..(s + SPLIT_ROWS).min(pr.end);
                        let input = PartKeys {
                            tags: &self.psc.tags[sub.clone()],
                            rows: &self.psc.rows[sub],
                        };
                        self.probe_all(
                            table,
                            &input,
                            &mut Vec::with_capacity(bs),
                            &mut Vec::with_capacity(bs),
                            &mut self.pairs.map(PairOutput::slot),
                            true,
                        )
                    })?;
            } else {
                let input = PartKeys {
                    tags: &self.psc.tags[pr.clone()],
                    rows: &self.psc.rows[pr],
                };
                self.probe_all(
                    &w.table,
                    &input,
                    &mut w.build_rows,
                    &mut w.probe_rows,
                    slot,
                    false,
                )?;
            }
        }
        self.flush(&mut w.build_rows, &mut w.probe_rows, slot)
    }

    /// Probes every position of `input`; leaves the last partial chunk of
    /// pairs in the buffers unless `flush`.
    fn probe_all<P: ProbeKeys<S::Tag>>(
        &self,
        table: &JoinTable<S::Tag>,
        input: &P,
        bi: &mut Vec<u32>,
        pi: &mut Vec<u32>,
        slot: &mut Option<PairSlot<'_, '_>>,
        flush: bool,
    ) -> Result<()> {
        let bs = self.limit;
        let (pkeys, bkeys, list) = (self.pkeys, self.b.keys, self.probe);
        let same = |p: u32, br: u32| {
            let (batch, row) = list.locate(p as usize);
            pkeys[batch].0.same_key(row, bkeys, br as usize)
        };
        let mut cur = Cursor::default();
        loop {
            let done = probe::<S, _>(table, input, &self.cand, same, &mut cur, bs, bi, pi);
            if !done || bi.len() >= bs {
                self.flush(bi, pi, slot)?;
            }
            if done {
                break;
            }
        }
        if flush {
            self.flush(bi, pi, slot)
        } else {
            Ok(())
        }
    }

    fn flush(
        &self,
        bi: &mut Vec<u32>,
        pi: &mut Vec<u32>,
        slot: &mut Option<PairSlot<'_, '_>>,
    ) -> Result<()> {
        if let Some(s) = slot {
            return self
                .emitter
                .consume_pairs(PairProbe::List(self.probe), bi, pi, s);
        }
        let marks = self.marks;
        self.emitter.pairs(self.probe, bi, pi, |r| {
            if let Some(m) = marks {
                m.set(r as usize)
            }
        })
    }
}
