//! Helpers shared by the hint resolution tests: queries are written as
//! SQL so that the hint block is found and parsed as the planner will; the
//! joins are described by hand, as the planner will describe them.
#![allow(dead_code)]

use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::hints::{
    BlockInput, BlockJoins, BlockResolution, HintError, JoinSite, ResolveConfig, SiteInput,
    find_hint_comments, resolve_block,
};

pub const MIB: u64 = 1024 * 1024;

/// Resolves the hint block of `sql` (if any) over `joins`, with `t1`, `t2`,
/// `t3` and every input name of the joins in scope.
pub fn resolve_with(
    sql: &str,
    joins: Vec<JoinSite>,
    config: &ResolveConfig,
) -> Result<BlockResolution, HintError> {
    let comments = find_hint_comments(sql)?;
    let hints = match comments.first() {
        Some(c) => c.parse()?,
        None => vec![],
    };
    let mut inputs: Vec<BlockInput> = ["t1", "t2", "t3"].map(BlockInput::table).to_vec();
    for j in &joins {
        for n in [&j.left.name, &j.right.name].into_iter().flatten() {
            if !inputs.iter().any(|i| &i.name == n) {
                inputs.push(BlockInput::table(n.clone()));
            }
        }
    }
    resolve_block(&BlockJoins { inputs, joins }, &hints, config)
}

pub fn resolve(sql: &str, joins: Vec<JoinSite>) -> Result<BlockResolution, HintError> {
    resolve_with(sql, joins, &ResolveConfig::default())
}

/// `t1 <type> JOIN t2 ON ...`
pub fn two(join_type: JoinType) -> Vec<JoinSite> {
    vec![JoinSite::new(
        0,
        join_type,
        SiteInput::named("t1"),
        SiteInput::named("t2"),
    )]
}

/// `t1 JOIN t2 ON .. JOIN t3 ON ..` (left-deep: the second join's left
/// input is the first join).
pub fn three() -> Vec<JoinSite> {
    vec![
        JoinSite::new(
            0,
            JoinType::Inner,
            SiteInput::named("t1"),
            SiteInput::named("t2"),
        ),
        JoinSite::new(
            1,
            JoinType::Inner,
            SiteInput::subtree(),
            SiteInput::named("t3"),
        ),
    ]
}

/// (strategy, build side) of every join.
pub fn chosen(r: &BlockResolution) -> Vec<(Strategy, Option<JoinSide>)> {
    r.joins.iter().map(|d| (d.strategy, d.build_side)).collect()
}

pub fn ok(sql: &str, joins: Vec<JoinSite>) -> Vec<(Strategy, Option<JoinSide>)> {
    chosen(&resolve(sql, joins).unwrap_or_else(|e| panic!("{sql}: {e}")))
}

/// `t1 <type> JOIN t2` with estimated sizes in bytes (rows: bytes / 10).
pub fn sized(join_type: JoinType, left: u64, right: u64) -> Vec<JoinSite> {
    vec![JoinSite::new(
        0,
        join_type,
        SiteInput::named("t1").size(left / 10, left),
        SiteInput::named("t2").size(right / 10, right),
    )]
}
