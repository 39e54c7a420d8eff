//! What hint resolution decides for each join, and why (what EXPLAIN
//! prints: docs/hints.md §7).

use std::fmt;

use tenon_kernels::{JoinSide, JoinType, Strategy};

/// The strategy chosen for one join, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinDecision {
    /// The join's [`id`](super::JoinSite::id).
    pub join: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// The build side: the broadcast side, the hash table's side, the
    /// nested loop's inner side; `None` for SHUFFLE_MERGE, where the side
    /// does not matter.
    pub build_side: Option<JoinSide>,
    /// A hint or the default.
    pub source: DecisionSource,
    /// One line for EXPLAIN, e.g. `hint BROADCAST(t1) applied` or
    /// `default: build side right 12.0 KiB <= broadcast threshold 64.0 MiB`.
    pub reason: String,
    /// Hints that named an input of this join but did not decide it, with
    /// why, in written order.
    pub ignored: Vec<IgnoredHint>,
}

/// Where a decision came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecisionSource {
    /// The hint at this index of the block's hints (printed form in the
    /// decision's reason).
    Hint(usize),
    /// The planner's default choice (H15).
    Default,
}

/// A hint that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredHint {
    /// The hint, printed (e.g. `BROADCAST(t1)`).
    pub hint: String,
    /// Why it was not applied.
    pub reason: IgnoreReason,
}

impl fmt::Display for IgnoredHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hint {} ignored: {}", self.hint, self.reason)
    }
}

/// Why a join hint was not applied to a join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoreReason {
    /// The strategy needs an equi-join condition and the join has none
    /// (H13).
    NoEquiCondition(Strategy),
    /// BROADCAST on a FULL OUTER join (H13).
    FullOuterBroadcast,
    /// BROADCAST of the side an outer (or semi/anti) join preserves (H13,
    /// H14).
    PreservedSide {
        /// The hinted side.
        side: JoinSide,
        /// The join type.
        join_type: JoinType,
    },
    /// The strategy is in `disabled_strategies` (H16).
    Disabled(Strategy),
    /// A temporal or as-of join runs as BROADCAST of its right (versioned)
    /// side or as SHUFFLE_MERGE only (H53).
    TimeJoin {
        /// The hinted strategy.
        strategy: Strategy,
        /// The hinted side.
        side: JoinSide,
    },
    /// The join is a semi/anti join planned from a subquery (H14).
    SubqueryJoin,
    /// An earlier hint already decided this join (H21, H22).
    Overridden {
        /// The hint that decided, printed.
        by: String,
    },
    /// The hint names no direct input of any join of its block (H12,
    /// H24): its tables are inside join subtrees, or the block has no join.
    NoMatchingJoin,
    /// A LOOKUP hint's `'table'` is not the lookup side of a lookup join of
    /// its block (H51).
    NotALookupJoin {
        /// The name the hint gave.
        table: String,
    },
    /// A LOOKUP hint's `'table'` names a lookup table that has an alias in
    /// its block: the alias is the name to use (H51, Flink's rule).
    LookupTableHasAlias {
        /// The name the hint gave (the table's).
        table: String,
        /// The table's alias in the block.
        alias: String,
    },
    /// A valid hint for streaming state (STATE_TTL, H52), which a batch
    /// query does not keep.
    StreamingOnly,
    /// A MULTI_JOIN group (H50) that cannot run as one multi-way join, or
    /// that tenon does not yet run as one: why.
    MultiJoin {
        /// Why the listed joins run as binary joins.
        why: String,
    },
}

fn side_name(side: JoinSide) -> &'static str {
    match side {
        JoinSide::Left => "left",
        JoinSide::Right => "right",
    }
}

impl fmt::Display for IgnoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IgnoreReason::NoEquiCondition(s) => write!(
                f,
                "{s} needs an equi-join condition (`a.k = b.k`) and this join has none"
            ),
            IgnoreReason::FullOuterBroadcast => {
                f.write_str("BROADCAST does not support a FULL OUTER join")
            }
            IgnoreReason::PreservedSide { side, join_type } => write!(
                f,
                "BROADCAST cannot broadcast the {} input of a {join_type} join: its rows \
                 must all be kept, so it cannot be the build side of a broadcast join",
                side_name(*side)
            ),
            IgnoreReason::Disabled(s) => write!(f, "{s} is disabled by disabled_strategies"),
            IgnoreReason::TimeJoin { strategy, side } => match strategy {
                Strategy::Broadcast => write!(
                    f,
                    "a temporal or as-of join keeps every row of its {} input and searches \
                     the right one: BROADCAST builds the right input only",
                    side_name(*side)
                ),
                other => write!(
                    f,
                    "a temporal or as-of join runs as BROADCAST of its right input or \
                     SHUFFLE_MERGE, not {other}"
                ),
            },
            IgnoreReason::SubqueryJoin => f.write_str(
                "join hints apply to explicit LEFT SEMI / LEFT ANTI joins, not to semi/anti \
                 joins planned from IN / EXISTS subqueries",
            ),
            IgnoreReason::Overridden { by } => write!(f, "the earlier hint {by} applies"),
            IgnoreReason::NoMatchingJoin => f.write_str(
                "it names no direct input of a join in its query block (a table inside a join \
                 subtree is not a join input; name the other input of that join)",
            ),
            IgnoreReason::NotALookupJoin { table } => write!(
                f,
                "`{table}` is not the lookup table of a lookup join in its query block (a \
                 lookup join reads a lookup table, such as a 'jdbc' one, `FOR SYSTEM_TIME AS \
                 OF` a PROCTIME() column)"
            ),
            IgnoreReason::LookupTableHasAlias { table, alias } => write!(
                f,
                "'table' = '{table}' names the lookup table, which has the alias `{alias}` in \
                 its query block: name the alias, 'table' = '{alias}' (Flink's rule: a hint \
                 names a table by its alias when it has one)"
            ),
            IgnoreReason::MultiJoin { why } => write!(f, "{why}"),
            IgnoreReason::StreamingOnly => f.write_str(
                "STATE_TTL applies to streaming state; no effect in batch (a batch join or \
                 aggregate keeps its rows only while the query runs)",
            ),
        }
    }
}

/// The result of resolving one query block's join hints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BlockResolution {
    /// One decision per join, in the order of the block's joins.
    pub joins: Vec<JoinDecision>,
    /// Join hints that applied to no join at all, with why.
    pub unused: Vec<IgnoredHint>,
}

impl BlockResolution {
    /// The decision for the join with this id.
    pub fn join(&self, id: usize) -> Option<&JoinDecision> {
        self.joins.iter().find(|d| d.join == id)
    }
}

/// Bytes in a short human form: `512 B`, `12.0 KiB`, `64.0 MiB`.
pub(crate) fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Precision loss is fine for display.
    #[allow(clippy::cast_precision_loss)]
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

pub(crate) fn side_label(side: JoinSide) -> &'static str {
    side_name(side)
}
