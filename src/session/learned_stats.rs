//! Statistics learned while queries read a file table (issue 21): a file
//! read lazily (CSV, JSON, Arrow IPC, and Parquet columns whose footers
//! hold no distinct counts) gets its row count and column statistics from
//! the first query that reads it whole, with no `ANALYZE TABLE`.
//!
//! A scan that reads every row of the table (no LIMIT that stopped it, no
//! Parquet row group, page or row its filter ruled out: [`StreamReport`]'s
//! `pruned`) sums up the columns it reads and nothing else is known of
//! ([`ColumnStatsBuilder`], a HyperLogLog++ sketch for the distinct
//! count) as its batches stream past, on the threads that decode them;
//! once the scan is done, they wait in the table's [`LearnedStats`] until
//! the session plans its next statement, which puts them in the catalog
//! ([`Registry::publish_learned`]), where the estimates (EXPLAIN's
//! `estimated:` lines) read them. A table held in memory that is read on
//! first use (`CREATE TABLE ... 'scan.in-memory' = 'true'`) learns every
//! column from that read.
//!
//! What is better known is kept: a column whose distinct count the
//! registration found (Parquet footers that store one) is not learned,
//! and what `ANALYZE TABLE` found counts as learned, every column (no
//! scan learns while it reads). A column is learned once: later scans of
//! it cost nothing more than a look at the files' stamps ([`TableStamp`]:
//! sizes and modification times). When those changed since the
//! statistics were learned or analyzed (a file rewritten, replaced, added
//! or removed), they are dropped (the catalog goes back to the
//! registration's statistics at the next planning) and learned again by
//! the next full read; a read during which they changed learns nothing. Change logs (`'format' = 'debezium-json'`)
//! and scans whose OPTIONS re-read the file with other settings learn
//! nothing, and neither does a scan of more than [`MAX_LEARNED_COLUMNS`]
//! columns (each column's sketch takes up to 12 KiB per worker).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use tenon_planner::exec::{ExecError, Sink};
use tenon_planner::sql::TableStats;
use tenon_planner::statistics::{ColumnStats, ColumnStatsBuilder, compute_column_stats};

#[cfg(doc)]
use crate::io::StreamReport;
use crate::io::TableStamp;

use super::sources::{FileTable, Registry};

/// The most columns one scan learns: beyond, it learns nothing (a sketch
/// takes up to 12 KiB a column on each worker that decodes).
pub(crate) const MAX_LEARNED_COLUMNS: usize = 1024;

/// What full reads of one file table learned (module docs).
#[derive(Debug, Default)]
pub(crate) struct LearnedStats {
    state: Mutex<State>,
    /// Whether the catalog must be told: statistics learned, or dropped
    /// because the files changed.
    pending: AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    /// The statistics the table was registered (or analyzed) with: what
    /// the learned ones complete.
    base: TableStats,
    /// Per table column: whether a full read learns it (nothing better is
    /// known). Empty: nothing is learned.
    wanted: Vec<bool>,
    /// Per table column: what a full read learned.
    learned: Vec<Option<ColumnStats>>,
    /// The row count a full read found.
    rows: Option<u64>,
    /// The files' stamp when `learned` and `rows` were read (`None`:
    /// nothing learned yet).
    stamp: Option<TableStamp>,
}

impl State {
    /// Forgets what was learned (or analyzed); every column the base does
    /// not know the distinct count of is wanted again.
    fn forget(&mut self, columns: usize) {
        self.wanted = (0..columns)
            .map(|c| {
                self.base
                    .columns
                    .get(c)
                    .is_none_or(|s| s.distinct_count.is_none())
            })
            .collect();
        self.learned = vec![None; columns];
        self.rows = None;
        self.stamp = None;
    }
}

/// One scan's learning under way: the columns it reads that are learned,
/// summed up by the threads that push its batches.
#[derive(Debug)]
pub(crate) struct Learning {
    /// For each column learned: its position in the scan's batches and its
    /// table column.
    columns: Vec<(usize, usize)>,
    /// The learned columns' types.
    types: Vec<DataType>,
    /// The files' stamp when the scan started.
    stamp: Option<TableStamp>,
    rows: AtomicU64,
    /// Builders not in use: one set per thread that pushed at once.
    idle: Mutex<Vec<Vec<ColumnStatsBuilder>>>,
}

impl Learning {
    /// Sums up `batch` (of the scan's columns).
    fn observe(&self, batch: &RecordBatch) {
        self.rows
            .fetch_add(batch.num_rows() as u64, Ordering::Relaxed);
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut set = taken.unwrap_or_else(|| {
            self.types
                .iter()
                .map(ColumnStatsBuilder::new)
                .collect::<Vec<_>>()
        });
        for (b, (at, _)) in set.iter_mut().zip(&self.columns) {
            if let Some(c) = batch.columns().get(*at) {
                b.update(c);
            }
        }
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(set);
    }

    /// The row count and each learned column's statistics (by table
    /// column).
    fn finish(self) -> (u64, Vec<(usize, ColumnStats)>) {
        let sets = self.idle.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut merged: Vec<ColumnStatsBuilder> =
            self.types.iter().map(ColumnStatsBuilder::new).collect();
        for set in sets {
            for (m, b) in merged.iter_mut().zip(set) {
                m.merge(b);
            }
        }
        let stats = self
            .columns
            .iter()
            .zip(merged)
            .map(|(&(_, c), b)| (c, b.finish()))
            .collect();
        (self.rows.into_inner(), stats)
    }
}

impl LearnedStats {
    /// Learning for a table of `columns` columns registered with `base`.
    pub(crate) fn new(base: &TableStats, columns: usize) -> Self {
        let mut state = State {
            base: base.clone(),
            ..State::default()
        };
        state.forget(columns);
        LearnedStats {
            state: Mutex::new(state),
            pending: AtomicBool::new(false),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the catalog has statistics to take.
    pub(crate) fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// `ANALYZE TABLE` is about to read the table: no scan learns (ANALYZE
    /// sums up every column itself); what was wanted, for
    /// [`LearnedStats::resume`] once it is done.
    pub(crate) fn pause(&self) -> Vec<bool> {
        std::mem::take(&mut self.state().wanted)
    }

    /// Learning as before `ANALYZE` ([`LearnedStats::pause`]).
    pub(crate) fn resume(&self, wanted: Vec<bool>) {
        self.state().wanted = wanted;
    }

    /// `ANALYZE TABLE` found `stats` reading the files at `stamp` (taken
    /// before it read them): they are what was learned, every column.
    pub(crate) fn analyzed(&self, stats: &TableStats, stamp: Option<TableStamp>) {
        let mut state = self.state();
        let n = state.learned.len();
        state.learned = (0..n).map(|c| stats.columns.get(c).cloned()).collect();
        state.rows = stats.row_count;
        state.stamp = stamp;
        self.pending.store(false, Ordering::Release);
    }
}

impl FileTable {
    /// The learning of a scan that reads the file columns `columns` (in
    /// the order of its batches), `None` when it learns nothing: every
    /// column it reads is known, or too many. Drops what was learned when
    /// the files changed since.
    fn start_learning(&self, columns: &[usize]) -> Option<Learning> {
        if columns.len() > MAX_LEARNED_COLUMNS {
            return None;
        }
        let mut state = self.learned.state();
        if state.wanted.is_empty() {
            return None;
        }
        let mut now = None;
        if let Some(then) = &state.stamp {
            let stamp = self.stamp();
            if stamp.as_ref() != Some(then) {
                let n = state.learned.len();
                state.forget(n);
                self.learned.pending.store(true, Ordering::Release);
            }
            now = Some(stamp);
        }
        let mut learned: Vec<(usize, usize)> = Vec::new();
        for (at, &f) in columns.iter().enumerate() {
            let c = self.table_column(f);
            let fresh = state.wanted.get(c).copied().unwrap_or(false)
                && state.learned.get(c).is_some_and(Option::is_none)
                && !learned.iter().any(|&(_, seen)| seen == c);
            if fresh {
                learned.push((at, c));
            }
        }
        if learned.is_empty() {
            return None;
        }
        drop(state);
        let stamp = now.unwrap_or_else(|| self.stamp());
        Some(Learning {
            types: learned
                .iter()
                .map(|&(_, c)| self.schema.field(c).data_type().clone())
                .collect(),
            columns: learned,
            stamp,
            rows: AtomicU64::new(0),
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Keeps what `learning` found when its read was `whole` (every row
    /// pushed, no error) and the files did not change while it ran.
    fn keep_learned(&self, learning: Learning, whole: bool) {
        if !whole {
            return;
        }
        let stamp = learning.stamp.clone();
        if stamp.is_none() || self.stamp() != stamp {
            return;
        }
        let (rows, columns) = learning.finish();
        self.keep(rows, columns, stamp);
    }

    /// Keeps `columns` (by table column) and the row count `rows`, read
    /// from the files at `stamp`, for the columns still wanted.
    fn keep(&self, rows: u64, columns: Vec<(usize, ColumnStats)>, stamp: Option<TableStamp>) {
        let mut state = self.learned.state();
        if state.stamp.is_some() && state.stamp != stamp {
            // the files changed: a scan that started later knows better
            return;
        }
        let mut kept = false;
        for (c, stats) in columns {
            let wanted = state.wanted.get(c).copied().unwrap_or(false);
            if let Some(slot) = state.learned.get_mut(c).filter(|s| wanted && s.is_none()) {
                *slot = Some(stats);
                kept = true;
            }
        }
        if kept {
            state.rows = Some(rows);
            state.stamp = stamp;
            self.learned.pending.store(true, Ordering::Release);
        }
    }

    /// The stamp of the table's files now.
    pub(crate) fn stamp(&self) -> Option<TableStamp> {
        TableStamp::of(&self.path, self.read_format)
    }

    /// The table column of file column `f` (the files hold every column
    /// but a PROCTIME() one).
    fn table_column(&self, f: usize) -> usize {
        match self.time.proc_time {
            Some(p) if f >= p => f + 1,
            _ => f,
        }
    }

    /// Reads the file columns `columns` with `read`, which pushes into the
    /// sink it is given and says whether rows were left out (pruned);
    /// when the table learns from this scan (`learn`: it reads with the
    /// table's own settings), its batches are summed up on their way to
    /// `sink`.
    pub(crate) fn read_learning(
        &self,
        learn: bool,
        columns: &[usize],
        sink: &Sink<'_>,
        read: impl FnOnce(&Sink<'_>) -> (Result<(), ExecError>, bool),
    ) -> Result<(), ExecError> {
        let learning = if learn && self.time.change_log.is_none() {
            self.start_learning(columns)
        } else {
            None
        };
        let Some(learning) = learning else {
            return read(sink).0;
        };
        let observed = |batch: RecordBatch| {
            learning.observe(&batch);
            sink(batch)
        };
        let (result, pruned) = read(&observed);
        self.keep_learned(learning, result.is_ok() && !pruned);
        result
    }

    /// Learns every column from the table's rows `batches` (of the files'
    /// columns), read whole with the table's own settings from the files
    /// at `stamp` (taken before the read): a table held in memory, read
    /// on first use.
    pub(crate) fn learn_whole(&self, batches: &[RecordBatch], stamp: Option<TableStamp>) {
        let Some(first) = batches.first() else {
            return;
        };
        let columns = (0..first.num_columns()).collect::<Vec<_>>();
        if self.time.change_log.is_some() || self.start_learning(&columns).is_none() {
            return;
        }
        if stamp.is_none() || self.stamp() != stamp {
            return;
        }
        let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let stats = compute_column_stats(batches)
            .into_iter()
            .enumerate()
            .map(|(f, s)| (self.table_column(f), s))
            .collect();
        self.keep(rows, stats, stamp);
    }

    /// Whether a first read of the table learns something (to take the
    /// files' stamp before it).
    pub(crate) fn learns(&self) -> bool {
        self.time.change_log.is_none() && self.learned.state().wanted.iter().any(|&w| w)
    }
}

impl Registry {
    /// Puts what full reads learned into the catalog (module docs): each
    /// file table's registration statistics, completed with the columns
    /// and row count learned since (or, when its files changed, without
    /// what was learned before).
    pub(crate) fn publish_learned(&mut self) {
        for (name, file) in &self.files {
            if !file.learned.pending.swap(false, Ordering::AcqRel) {
                continue;
            }
            let state = file.learned.state();
            let n = file.schema.fields().len();
            let mut columns = state.base.columns.clone();
            if state.learned.iter().any(Option::is_some) {
                columns.resize(n, ColumnStats::default());
                for (c, learned) in state.learned.iter().enumerate() {
                    if let (Some(slot), Some(l)) = (columns.get_mut(c), learned) {
                        *slot = l.clone();
                    }
                }
            }
            let rows = state.rows.or(state.base.row_count);
            drop(state);
            if let Some(table) = self.catalog.table(name) {
                let mut stats = table.stats.clone();
                stats.row_count = rows;
                stats.columns = columns;
                let time = table.time.clone();
                let schema = std::sync::Arc::clone(&table.schema);
                let (lookup, lookup_only) = (table.lookup.clone(), table.lookup_only.clone());
                self.catalog
                    .register_table_with_time(name.clone(), schema, stats, time);
                if let Some(l) = lookup {
                    self.catalog.set_lookup(name, l, lookup_only);
                }
            }
        }
    }
}
