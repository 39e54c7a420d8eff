//! Join types and what each one asks of the build and probe sides.

use std::fmt;

/// The SQL join types the kernels run.
///
/// Column order of the output: `Inner`, `Left`, `Right` and `Full` give the
/// left input's columns followed by the right input's; the semi and anti joins
/// give one side's columns only (`Left*` the left's, `Right*` the right's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinType {
    /// Matching pairs only.
    Inner,
    /// Matching pairs, plus left rows without a match (right columns NULL).
    Left,
    /// Matching pairs, plus right rows without a match (left columns NULL).
    Right,
    /// Matching pairs, plus unmatched rows of both sides.
    Full,
    /// Left rows that have at least one match, each once.
    LeftSemi,
    /// Left rows that have no match.
    LeftAnti,
    /// Right rows that have at least one match, each once.
    RightSemi,
    /// Right rows that have no match.
    RightAnti,
    /// SQL `left.k NOT IN (SELECT right.k ...)`: a left row is kept when no
    /// right row is equal to it *or unknown*: a NULL key on the right removes
    /// every left row, and a left row with a NULL key is removed whenever the
    /// right side has any row. Single key column only.
    LeftAntiNullAware,
}

impl JoinType {
    /// Every join type, for tests and benchmarks that sweep them.
    pub const ALL: [JoinType; 9] = [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Full,
        JoinType::LeftSemi,
        JoinType::LeftAnti,
        JoinType::RightSemi,
        JoinType::RightAnti,
        JoinType::LeftAntiNullAware,
    ];

    /// Which inputs' columns the output holds.
    pub fn output_sides(self) -> (bool, bool) {
        match self {
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full => (true, true),
            JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftAntiNullAware => (true, false),
            JoinType::RightSemi | JoinType::RightAnti => (false, true),
        }
    }

    /// Whether the output can hold NULL-extended columns of the left input
    /// (`Right` and `Full` joins).
    pub fn left_nullable(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full)
    }

    /// Whether the output can hold NULL-extended columns of the right input
    /// (`Left` and `Full` joins).
    pub fn right_nullable(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full)
    }
}

impl fmt::Display for JoinType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            JoinType::Inner => "INNER",
            JoinType::Left => "LEFT",
            JoinType::Right => "RIGHT",
            JoinType::Full => "FULL OUTER",
            JoinType::LeftSemi => "LEFT SEMI",
            JoinType::LeftAnti => "LEFT ANTI",
            JoinType::RightSemi => "RIGHT SEMI",
            JoinType::RightAnti => "RIGHT ANTI",
            JoinType::LeftAntiNullAware => "LEFT ANTI (NOT IN)",
        };
        f.write_str(s)
    }
}

/// One input of a join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinSide {
    /// The left input.
    Left,
    /// The right input.
    Right,
}

/// What a join type asks of each side once the build side is fixed.
///
/// This is the one place where join-type semantics are decided: the probe
/// loop and the final "source" of unmatched build rows only read these flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Roles {
    /// Emit every (build, probe) pair that matches.
    pub emit_pairs: bool,
    /// Emit probe rows without a match, NULL-extended on the build side.
    pub probe_unmatched: bool,
    /// Emit build rows without a match, NULL-extended on the probe side.
    pub build_unmatched: bool,
    /// Emit probe rows with a match, once each (semi join on the probe side).
    pub probe_semi: bool,
    /// Emit probe rows without a match, probe columns only (anti join).
    pub probe_anti: bool,
    /// Emit build rows with a match, once each.
    pub build_semi: bool,
    /// Emit build rows without a match, build columns only.
    pub build_anti: bool,
    /// NOT IN semantics (see [`JoinType::LeftAntiNullAware`]).
    pub null_aware: bool,
}

impl Roles {
    pub(crate) fn new(join_type: JoinType, build: JoinSide) -> Self {
        let mut r = Roles {
            emit_pairs: false,
            probe_unmatched: false,
            build_unmatched: false,
            probe_semi: false,
            probe_anti: false,
            build_semi: false,
            build_anti: false,
            null_aware: false,
        };
        let build_left = build == JoinSide::Left;
        match join_type {
            JoinType::Inner => r.emit_pairs = true,
            JoinType::Left => {
                r.emit_pairs = true;
                if build_left {
                    r.build_unmatched = true
                } else {
                    r.probe_unmatched = true
                }
            }
            JoinType::Right => {
                r.emit_pairs = true;
                if build_left {
                    r.probe_unmatched = true
                } else {
                    r.build_unmatched = true
                }
            }
            JoinType::Full => {
                r.emit_pairs = true;
                r.probe_unmatched = true;
                r.build_unmatched = true;
            }
            JoinType::LeftSemi | JoinType::RightSemi => {
                let keep_left = join_type == JoinType::LeftSemi;
                if keep_left == build_left {
                    r.build_semi = true
                } else {
                    r.probe_semi = true
                }
            }
            JoinType::LeftAnti | JoinType::RightAnti | JoinType::LeftAntiNullAware => {
                let keep_left = join_type != JoinType::RightAnti;
                if keep_left == build_left {
                    r.build_anti = true
                } else {
                    r.probe_anti = true
                }
                r.null_aware = join_type == JoinType::LeftAntiNullAware;
            }
        }
        r
    }

    /// Whether build rows must remember that they matched.
    pub(crate) fn tracks_build(&self) -> bool {
        self.build_unmatched || self.build_semi || self.build_anti
    }

    /// Whether probe rows must remember that they matched.
    pub(crate) fn tracks_probe(&self) -> bool {
        self.probe_unmatched || self.probe_semi || self.probe_anti
    }

    /// Whether one match per probe row is all that is needed (no pairs are
    /// emitted and the build side keeps no per-row state).
    pub(crate) fn probe_exists_only(&self) -> bool {
        !self.emit_pairs && !self.tracks_build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_join_building_right_preserves_probe_rows() {
        let r = Roles::new(JoinType::Left, JoinSide::Right);
        assert!(r.emit_pairs && r.probe_unmatched && !r.build_unmatched);
    }

    #[test]
    fn left_join_building_left_preserves_build_rows() {
        let r = Roles::new(JoinType::Left, JoinSide::Left);
        assert!(r.emit_pairs && r.build_unmatched && !r.probe_unmatched);
    }

    #[test]
    fn semi_and_anti_roles_follow_the_kept_side() {
        assert!(Roles::new(JoinType::LeftSemi, JoinSide::Right).probe_semi);
        assert!(Roles::new(JoinType::LeftSemi, JoinSide::Left).build_semi);
        assert!(Roles::new(JoinType::RightAnti, JoinSide::Left).probe_anti);
        assert!(Roles::new(JoinType::RightAnti, JoinSide::Right).build_anti);
        let na = Roles::new(JoinType::LeftAntiNullAware, JoinSide::Left);
        assert!(na.build_anti && na.null_aware);
    }
}
