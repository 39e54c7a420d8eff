//! The hint names tenon knows (docs/hints.md §2, §5, §6).

use std::fmt;

use tenon_kernels::Strategy;

/// A known hint name.
///
/// Names are matched case-insensitively (H03); [`name`](Self::name) gives
/// the canonical upper-case spelling.
///
/// ```
/// use tenon_planner::hints::HintName;
/// use tenon_kernels::Strategy;
///
/// let n = HintName::from_name("shuffle_hash").unwrap();
/// assert_eq!(n, HintName::ShuffleHash);
/// assert_eq!(n.strategy(), Some(Strategy::ShuffleHash));
/// assert!(HintName::from_name("HASH_JOIN").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HintName {
    /// Join hint: broadcast hash join, the hinted table is the build side.
    Broadcast,
    /// Join hint: partitioned hash join, the hinted table is the build side.
    ShuffleHash,
    /// Join hint: sort-merge join.
    ShuffleMerge,
    /// Join hint: nested-loop join, the hinted table is the inner loop.
    NestLoop,
    /// Table hint: dynamic table options (H06, §5).
    Options,
    /// Query hint: one multi-way join operator (H50).
    MultiJoin,
    /// Query hint: serve an input by keyed look-ups (H51).
    Lookup,
    /// Query hint: state time-to-live, accepted and validated (H52).
    StateTtl,
}

impl HintName {
    /// Every known hint, join hints first, in the hints document's order.
    pub const ALL: [HintName; 8] = [
        HintName::Broadcast,
        HintName::ShuffleHash,
        HintName::ShuffleMerge,
        HintName::NestLoop,
        HintName::Options,
        HintName::MultiJoin,
        HintName::Lookup,
        HintName::StateTtl,
    ];

    /// The canonical (upper-case) name.
    pub fn name(self) -> &'static str {
        match self {
            HintName::Broadcast => "BROADCAST",
            HintName::ShuffleHash => "SHUFFLE_HASH",
            HintName::ShuffleMerge => "SHUFFLE_MERGE",
            HintName::NestLoop => "NEST_LOOP",
            HintName::Options => "OPTIONS",
            HintName::MultiJoin => "MULTI_JOIN",
            HintName::Lookup => "LOOKUP",
            HintName::StateTtl => "STATE_TTL",
        }
    }

    /// The hint of a name, case-insensitively; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<HintName> {
        HintName::ALL
            .into_iter()
            .find(|n| n.name().eq_ignore_ascii_case(name))
    }

    /// The join strategy a join hint asks for; `None` for other hints.
    pub fn strategy(self) -> Option<Strategy> {
        match self {
            HintName::Broadcast => Some(Strategy::Broadcast),
            HintName::ShuffleHash => Some(Strategy::ShuffleHash),
            HintName::ShuffleMerge => Some(Strategy::ShuffleMerge),
            HintName::NestLoop => Some(Strategy::NestLoop),
            _ => None,
        }
    }

    /// The hint of a join strategy.
    pub fn of_strategy(strategy: Strategy) -> HintName {
        match strategy {
            Strategy::Broadcast => HintName::Broadcast,
            Strategy::ShuffleHash => HintName::ShuffleHash,
            Strategy::ShuffleMerge => HintName::ShuffleMerge,
            Strategy::NestLoop => HintName::NestLoop,
        }
    }

    /// Whether this is a table hint, written after a table reference
    /// (only OPTIONS); every other hint belongs after SELECT.
    pub fn is_table_hint(self) -> bool {
        self == HintName::Options
    }
}

impl fmt::Display for HintName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
