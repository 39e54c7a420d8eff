//! The as-of join: each left row joined with *one* version of its key on
//! the right, the closest in time that the time condition allows.
//!
//! One kernel runs both event-time temporal joins (Flink's `FOR
//! SYSTEM_TIME AS OF`) and as-of joins (`ASOF JOIN ... MATCH_CONDITION`):
//!
//! * the time condition `left[lt] <op> right[rt]` picks, among the right
//!   rows of the left row's key, for `>=` the one with the **largest** time
//!   `<=` the left time (`>`: largest `<`), for `<=` the **smallest** time
//!   `>=` the left time (`<`: smallest `>`). Ties (several right rows of the
//!   key with the chosen time): for `>=`/`>` the **last** in right input
//!   order wins, for `<=`/`<` the **first** (input order is the order of the
//!   right input's batches, rows in order);
//! * NULL in a key or a time, on either side, never matches;
//! * `INNER` drops left rows without a version, `LEFT` keeps them with the
//!   right columns NULL; other join types are an error;
//! * the residual filter ([`JoinKernel::filter`]) is applied
//!   [`FilterTiming::BeforeChoice`] (only right rows whose pair passes are
//!   candidates: DuckDB, Spark) or [`FilterTiming::AfterChoice`] (the
//!   version is chosen first, and a failing filter leaves the left row
//!   unmatched: Flink's temporal join);
//! * a tombstone column ([`AsofJoin::tombstone`], Boolean) marks versions
//!   that end their key's validity (a Debezium delete): a chosen tombstone
//!   means "no match". Tombstones are chosen like any version, never
//!   skipped over; with [`FilterTiming::BeforeChoice`] a tombstone is a
//!   candidate whatever the filter says of its pair (a delete ends
//!   validity whatever the filter), and a NULL in the tombstone column is
//!   not a delete;
//! * [`AsofJoin::latest`] (a processing-time temporal join) gives each left
//!   row the version of its key with the largest right time (ties: the
//!   last in input order), or without a time column the last row of its
//!   key in input order.
//!
//! The right side is built once (`prepare`): its rows grouped by key with
//! the hash join's table and key encodings, each group sorted by time;
//! each left row then finds its version by binary search (`search`), in
//! parallel morsels (`exec`). [`AsofMode::Partitioned`] partitions both
//! sides by key hash first and runs each partition as its own task.
//!
//! When the left side is small next to the right one (see
//! [`AsofJoin::small_left`]), sorting the whole right side for a few left
//! rows would dominate: the kernel then indexes the *left* side instead
//! and streams the right side once (`small_left`), with the same answers.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use tenon_kernels::{AsofJoin, CmpOp, JoinInput, JoinKernel, JoinType, RangeCondition};
//!
//! // trades(sym, t) and quotes(sym, t, price): the latest quote at or
//! // before each trade.
//! let trades = RecordBatch::try_from_iter([
//!     ("sym", Arc::new(Int64Array::from(vec![1, 1, 2])) as _),
//!     ("t", Arc::new(Int64Array::from(vec![5, 10, 1])) as _),
//! ]).unwrap();
//! let quotes = RecordBatch::try_from_iter([
//!     ("sym", Arc::new(Int64Array::from(vec![1, 1, 2])) as _),
//!     ("t", Arc::new(Int64Array::from(vec![4, 9, 3])) as _),
//!     ("price", Arc::new(Int64Array::from(vec![100, 101, 200])) as _),
//! ]).unwrap();
//! let join = AsofJoin::new(JoinType::Left, vec![(0, 0)], RangeCondition::new(1, CmpOp::Ge, 1));
//! let out = join
//!     .collect(JoinInput::from_batch(trades), JoinInput::from_batch(quotes))
//!     .unwrap();
//! let rows: usize = out.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 3); // (1,5)-100, (1,10)-101, (2,1)-NULL
//! ```

mod exec;
mod prepare;
mod search;
mod small_left;
mod time;

use crate::condition::RangeCondition;
use crate::error::Result;
use crate::join_type::JoinType;
use crate::kernel::join_kernel::options_and_join_type;
use crate::kernel::{BatchSink, Join, JoinInput, JoinKernel, JoinOptions, Strategy};

/// How an [`AsofJoin`] spreads its work over threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AsofMode {
    /// The right side built once, shared by every probe thread
    /// ([`Strategy::Broadcast`]).
    #[default]
    Broadcast,
    /// Both sides partitioned by key hash, each partition built and probed
    /// as its own task ([`Strategy::ShuffleMerge`]).
    Partitioned,
}

/// When the residual filter of an [`AsofJoin`] is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FilterTiming {
    /// Only right rows whose pair passes the filter are candidates; the
    /// closest passing one is chosen (as-of joins: DuckDB, Spark).
    /// Tombstones are candidates whatever the filter says.
    #[default]
    BeforeChoice,
    /// The version is chosen ignoring the filter, then the filter is
    /// evaluated on that one pair: when it fails the left row is unmatched
    /// and no older version is tried (Flink's event-time temporal join).
    AfterChoice,
}

/// What picks a left row's version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeRule {
    /// The closest version the condition allows.
    Cond(RangeCondition),
    /// The latest version: by this right time column, or by input order.
    Latest(Option<usize>),
}

/// An as-of (or temporal) join: its type, equality keys, time rule,
/// tombstone column, filter timing and the shared [`JoinOptions`]. See the
/// module docs for the semantics.
///
/// Defaults: [`AsofMode::Broadcast`], [`FilterTiming::BeforeChoice`], no
/// tombstone column, NULL keys never match.
#[derive(Debug, Clone)]
pub struct AsofJoin {
    pub(crate) join_type: JoinType,
    pub(crate) on: Vec<(usize, usize)>,
    pub(crate) rule: TimeRule,
    pub(crate) mode: AsofMode,
    pub(crate) timing: FilterTiming,
    pub(crate) tombstone: Option<usize>,
    pub(crate) null_equal: bool,
    pub(crate) partitions: Option<usize>,
    pub(crate) small_left: Option<bool>,
    pub(crate) options: JoinOptions,
}

impl AsofJoin {
    /// A `join_type` (INNER or LEFT) as-of join on key pairs `on`
    /// (`(left column, right column)`, possibly none: one group), each left
    /// row taking the right row closest in time that `time`
    /// (`left[time.left] <op> right[time.right]`) allows. Offsets of `time`
    /// are not applied (the planner computes shifted times into a column).
    pub fn new(join_type: JoinType, on: Vec<(usize, usize)>, time: RangeCondition) -> Self {
        Self::with_rule(join_type, on, TimeRule::Cond(time))
    }

    /// A processing-time temporal join: each left row takes the version of
    /// its key with the largest `right_time` (ties: the last in input
    /// order; NULL times are never chosen), or with `None` the last row of
    /// its key in input order.
    pub fn latest(join_type: JoinType, on: Vec<(usize, usize)>, right_time: Option<usize>) -> Self {
        Self::with_rule(join_type, on, TimeRule::Latest(right_time))
    }

    fn with_rule(join_type: JoinType, on: Vec<(usize, usize)>, rule: TimeRule) -> Self {
        AsofJoin {
            join_type,
            on,
            rule,
            mode: AsofMode::Broadcast,
            timing: FilterTiming::BeforeChoice,
            tombstone: None,
            null_equal: false,
            partitions: None,
            small_left: None,
            options: JoinOptions::default(),
        }
    }

    /// Broadcast or partitioned (default broadcast).
    pub fn mode(mut self, m: AsofMode) -> Self {
        self.mode = m;
        self
    }

    /// When the residual filter is applied (default
    /// [`FilterTiming::BeforeChoice`]).
    pub fn filter_timing(mut self, t: FilterTiming) -> Self {
        self.timing = t;
        self
    }

    /// A Boolean right column whose `true` marks a version that ends its
    /// key's validity (a chosen one means "no match"); `None`: no column.
    pub fn tombstone(mut self, column: Option<usize>) -> Self {
        self.tombstone = column;
        self
    }

    /// Compare keys with `IS NOT DISTINCT FROM`: a NULL key matches a NULL
    /// key (NULL times still never match).
    pub fn null_equal(mut self, yes: bool) -> Self {
        self.null_equal = yes;
        self
    }

    /// The partition count of [`AsofMode::Partitioned`] (a power of two
    /// from 1 to 65536); by default chosen from the right side's size.
    pub fn partitions(mut self, n: usize) -> Self {
        self.partitions = Some(n);
        self
    }

    /// Whether to index the left side instead of the right (the small-left
    /// path: the right side streamed once, never sorted): `None` (the
    /// default) lets the kernel choose (when the left side has at most
    /// 262,144 rows and at least 8 times fewer rows than the right),
    /// `Some(true)` always takes it, `Some(false)` never does. A
    /// [`FilterTiming::BeforeChoice`] filter always takes the right index.
    /// The answer is the same either way; only the cost differs.
    pub fn small_left(mut self, choice: Option<bool>) -> Self {
        self.small_left = choice;
        self
    }
}

impl From<AsofJoin> for Join {
    fn from(j: AsofJoin) -> Join {
        Join::new(j)
    }
}

impl JoinKernel for AsofJoin {
    options_and_join_type!();

    fn strategy(&self) -> Strategy {
        match self.mode {
            AsofMode::Broadcast => Strategy::Broadcast,
            AsofMode::Partitioned => Strategy::ShuffleMerge,
        }
    }

    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        let plan = exec::Plan::new(self, left, right)?;
        crate::pool::install(self.options.threads, || plan.run(sink))
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        exec::Plan::new(self, left, right).map(|_| ())
    }

    /// Every reservation at once, each at its largest, as an affine bound
    /// of the rows (so that it is subadditive): both inputs copied into
    /// one batch each; the index of the versions (a key table of at most
    /// three 32-byte slots a row beside 16 of its own, its row list, the
    /// versions before and after grouping, their times and fences) over
    /// both sides' rows (the small-left path indexes the left side); the
    /// left partitions; and the small-left path's times, per-task slots
    /// and chosen rows.
    fn memory_bound(&self, left: (usize, usize), right: (usize, usize)) -> Option<usize> {
        const SLOT: usize = 32;
        const VERSION: usize = 16;
        let threads = crate::pool::threads_of(self.options.threads);
        let (m, n) = (left.0, right.0);
        let index_per_row = 3 * SLOT + 4 + 4 * VERSION + 2 + 8 + 8;
        let index = (m + n).saturating_mul(index_per_row) + 16 * SLOT;
        let left_rows = m.saturating_mul(4 + 4 + 12 * (threads + 1));
        let times = (m + n).saturating_mul(8);
        Some(
            left.1
                .saturating_add(right.1)
                .saturating_add(index)
                .saturating_add(left_rows)
                .saturating_add(times)
                .saturating_add(64),
        )
    }

    /// The keys (NULL never matches): every version a left row can take
    /// has its key, so both sides split by key hash join part by part
    /// (ties stay decided by input order when each part keeps its rows'
    /// order). None without keys.
    fn equi_keys(&self) -> Option<(&[(usize, usize)], bool)> {
        (!self.on.is_empty()).then_some((self.on.as_slice(), false))
    }
}
