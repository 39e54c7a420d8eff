//! What hint resolution needs to know about one query block: the names in
//! scope, each join's inputs, type, condition and size estimates, and the
//! settings that steer the choice.
//!
//! The SQL planner builds these from its logical plan; resolution itself
//! never looks at SQL.

use std::fmt;
use std::str::FromStr;

use tenon_kernels::{JoinSide, JoinType, Strategy};

/// A name a hint may use in a query block (H11, H31, H32): a table, a view
/// or an alias of the block's FROM clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockInput {
    /// The name to use in hints: the alias when there is one, else the
    /// table's or view's name (normalized as the SQL front end normalizes
    /// identifiers).
    pub name: String,
    /// The underlying table or view when `name` is an alias, so that a hint
    /// naming the table instead gets an error suggesting the alias (H32).
    pub aliased_table: Option<String>,
}

impl BlockInput {
    /// A table or view used under its own name.
    pub fn table(name: impl Into<String>) -> Self {
        BlockInput {
            name: name.into(),
            aliased_table: None,
        }
    }

    /// A table or view used under an alias (`FROM orders o`).
    pub fn aliased(table: impl Into<String>, alias: impl Into<String>) -> Self {
        BlockInput {
            name: alias.into(),
            aliased_table: Some(table.into()),
        }
    }
}

/// Estimated size of a join input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeEstimate {
    /// Rows.
    pub rows: u64,
    /// Bytes of the columns the join reads (Arrow memory size).
    pub bytes: u64,
}

/// One input of a join, as hint resolution sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SiteInput {
    /// The table, view or alias name this input *is* (possibly under a
    /// filter or projection); `None` for a join subtree or another
    /// operator, which no hint argument matches (H12).
    pub name: Option<String>,
    /// Estimated size, when statistics give one.
    pub estimate: Option<SizeEstimate>,
    /// Whether the input arrives sorted on this join's keys (H15: both
    /// sorted makes SHUFFLE_MERGE the default).
    pub sorted_on_keys: bool,
    /// Whether the input is an aggregate grouped by this join's keys, seen
    /// through projections and aliases (a decorrelated subquery's shape,
    /// `(SELECT k, avg(v) FROM t GROUP BY k)`; not when a HAVING filter
    /// sits above the aggregate). H15 builds the other side of such a join,
    /// so that its keys filter the aggregate's input at run time.
    pub grouped_on_keys: bool,
}

impl SiteInput {
    /// An input that is the named table, view or alias.
    pub fn named(name: impl Into<String>) -> Self {
        SiteInput {
            name: Some(name.into()),
            ..SiteInput::default()
        }
    }

    /// An input that is a join subtree (or anything without a name).
    pub fn subtree() -> Self {
        SiteInput::default()
    }

    /// With a size estimate.
    pub fn size(mut self, rows: u64, bytes: u64) -> Self {
        self.estimate = Some(SizeEstimate { rows, bytes });
        self
    }

    /// Arriving sorted on the join keys.
    pub fn sorted(mut self) -> Self {
        self.sorted_on_keys = true;
        self
    }

    /// An aggregate grouped by the join keys.
    pub fn grouped(mut self) -> Self {
        self.grouped_on_keys = true;
        self
    }
}

/// One join of a query block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinSite {
    /// An id the planner chooses (e.g. the join's index bottom-up); errors
    /// and decisions refer to it.
    pub id: usize,
    /// The join type.
    pub join_type: JoinType,
    /// Whether the condition has at least one equi-key pair (`a.k = b.k`
    /// or `IS NOT DISTINCT FROM`).
    pub has_equi_condition: bool,
    /// Whether the join was planned from an `IN` / `EXISTS` subquery
    /// rather than written as a join: such semi/anti joins take no join
    /// hints (H14 extends hints to *explicit* semi/anti joins only).
    pub from_subquery: bool,
    /// Whether it is a temporal or as-of join (docs/time.md): it runs
    /// BROADCAST of its right (versioned) side or SHUFFLE_MERGE only.
    pub time_join: bool,
    /// The left input.
    pub left: SiteInput,
    /// The right input.
    pub right: SiteInput,
    /// The join's estimated output, when there is an estimate (of the
    /// equi keys' matches: a band condition's share is not in it).
    pub output: Option<SizeEstimate>,
    /// Whether the condition besides the equi keys bounds a column of one
    /// side by the other's (`a.t BETWEEN b.t - 10 AND b.t + 10`, `a.t <
    /// b.t`): a band, which the merge join finds by search within each run
    /// of equal keys (H15).
    pub band: bool,
}

impl JoinSite {
    /// An explicit equi-join.
    pub fn new(id: usize, join_type: JoinType, left: SiteInput, right: SiteInput) -> Self {
        JoinSite {
            id,
            join_type,
            has_equi_condition: true,
            from_subquery: false,
            time_join: false,
            left,
            right,
            output: None,
            band: false,
        }
    }

    /// With a band condition besides the equi keys.
    pub fn with_band(mut self) -> Self {
        self.band = true;
        self
    }

    /// The equi keys' expected matches per row of the larger input
    /// (`None` without estimates): about 1 for a foreign-key join, more
    /// for a many-to-many one.
    pub fn fan_out(&self) -> Option<f64> {
        let rows = self
            .left
            .estimate?
            .rows
            .max(self.right.estimate?.rows)
            .max(1);
        Some(self.output?.rows as f64 / rows as f64)
    }

    /// With an estimated output.
    pub fn with_output(mut self, output: Option<SizeEstimate>) -> Self {
        self.output = output;
        self
    }

    /// Without an equi condition (only a non-equi predicate, or CROSS).
    pub fn non_equi(mut self) -> Self {
        self.has_equi_condition = false;
        self
    }

    /// A temporal or as-of join.
    pub fn time_join(mut self) -> Self {
        self.time_join = true;
        self
    }

    /// Planned from an `IN` / `EXISTS` subquery.
    pub fn from_subquery(mut self) -> Self {
        self.from_subquery = true;
        self
    }

    /// One input.
    pub fn input(&self, side: JoinSide) -> &SiteInput {
        match side {
            JoinSide::Left => &self.left,
            JoinSide::Right => &self.right,
        }
    }

    /// The sides that BROADCAST may broadcast (H13, H14): not the side an
    /// outer join preserves, and neither side of a FULL OUTER join.
    pub fn broadcastable(&self) -> &'static [JoinSide] {
        if self.time_join {
            return &[JoinSide::Right];
        }
        match self.join_type {
            JoinType::Inner => &[JoinSide::Left, JoinSide::Right],
            JoinType::Left
            | JoinType::LeftSemi
            | JoinType::LeftAnti
            | JoinType::LeftAntiNullAware => &[JoinSide::Right],
            JoinType::Right | JoinType::RightSemi | JoinType::RightAnti => &[JoinSide::Left],
            JoinType::Full => &[],
        }
    }

    /// The strategies that can run this join at all: every one for an
    /// equi-join (BROADCAST only when a side may be broadcast), only
    /// NEST_LOOP without an equi condition.
    pub fn runnable(&self) -> Vec<Strategy> {
        if self.time_join {
            return vec![Strategy::Broadcast, Strategy::ShuffleMerge];
        }
        if !self.has_equi_condition {
            return vec![Strategy::NestLoop];
        }
        Strategy::ALL
            .into_iter()
            .filter(|s| *s != Strategy::Broadcast || !self.broadcastable().is_empty())
            .collect()
    }
}

/// One query block's joins and the names its hints may use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BlockJoins {
    /// Every table, view and alias of the block's FROM clause (H11).
    pub inputs: Vec<BlockInput>,
    /// The block's joins, bottom-up.
    pub joins: Vec<JoinSite>,
}

/// What to do with a join hint that cannot be applied (H17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HintMode {
    /// Fall back to the next valid hint or the default, recording why (as
    /// Flink does).
    #[default]
    Lenient,
    /// Fail with an error that says why the hint cannot be applied.
    Strict,
}

impl HintMode {
    /// The setting's value: `lenient` or `strict`.
    pub fn name(self) -> &'static str {
        match self {
            HintMode::Lenient => "lenient",
            HintMode::Strict => "strict",
        }
    }
}

impl fmt::Display for HintMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HintMode {
    type Err = String;

    /// `lenient` or `strict`, case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lenient" => Ok(HintMode::Lenient),
            "strict" => Ok(HintMode::Strict),
            _ => Err(format!(
                "unknown hint_mode `{s}`: expected `lenient` (fall back when a hint cannot be \
                 applied) or `strict` (fail)"
            )),
        }
    }
}

/// Default [`ResolveConfig::broadcast_threshold`]: 256 MiB.
///
/// The estimate counts the columns a join reads (on the synthetic
/// workloads, key and payload: 16 bytes a row). One shared table (with its
/// key filter) is faster than the partitioned join from a few hundred
/// thousand build rows up, at the price of more memory when both sides are
/// about as large; 256 MiB admits a 10M-row build side of two 8-byte
/// columns and leaves larger ones, whose table would pass about 800 MiB, to
/// SHUFFLE_HASH. The measurements behind the figure are in
/// `benches/README.md` ("Design notes (history)").
pub const DEFAULT_BROADCAST_THRESHOLD: u64 = 256 * 1024 * 1024;

/// Settings of hint resolution and the default choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveConfig {
    /// Broadcast by default when the side that may be broadcast is
    /// estimated at or below this many bytes (H15).
    pub broadcast_threshold: u64,
    /// Lenient or strict (H17).
    pub hint_mode: HintMode,
    /// Strategies removed from hints and from the default choice (H16).
    pub disabled_strategies: Vec<Strategy>,
    /// Whether joins make runtime filters (`runtime_filters`): H15's rule
    /// for an input grouped on the join keys relies on them.
    pub runtime_filters: bool,
}

impl Default for ResolveConfig {
    fn default() -> Self {
        ResolveConfig {
            broadcast_threshold: DEFAULT_BROADCAST_THRESHOLD,
            hint_mode: HintMode::Lenient,
            disabled_strategies: Vec::new(),
            runtime_filters: true,
        }
    }
}

impl ResolveConfig {
    /// Whether a strategy may be used.
    pub fn enabled(&self, s: Strategy) -> bool {
        !self.disabled_strategies.contains(&s)
    }
}
