//! Join hint resolution for one query block (docs/hints.md H10–H25).
//!
//! ```text
//!  hints of the block ──► check arguments (H10) ──► check names in scope (H11, H32)
//!                                                        │
//!  for each join ◄───────────────────────────────────────┘
//!    for each join hint, in written order (H21, H22):
//!      side := the first argument naming an input of this join (H20, H12)
//!              (no argument names one: the hint is not about this join)
//!      valid?  equi condition, join type, preserved side, disabled (H13, H14, H16)
//!        first valid hint decides; later ones are recorded as overridden
//!        invalid ones are recorded with why (lenient) or fail (strict, H17)
//!    no valid hint: the default choice (H15, H16, H23)
//!  hints that named no join input: recorded as unused (or fail, strict)
//! ```
//!
//! One hint can decide several joins (H24): every join is matched against
//! every hint.

use tenon_kernels::{JoinSide, JoinType, Strategy};

use super::block::{BlockJoins, HintMode, JoinSite, ResolveConfig};
use super::decision::{BlockResolution, DecisionSource, IgnoreReason, IgnoredHint, JoinDecision};
use super::default_choice::default_choice;
use super::error::HintError;
use super::syntax::{Hint, HintArgs};

/// A join hint after its arguments were checked.
/// A hint with table names, as [`check_names_in_scope`] reads it.
struct NamedHint<'a> {
    hint: &'a Hint,
    names: Vec<&'a str>,
    text: String,
}

struct JoinHint<'a> {
    index: usize,
    hint: &'a Hint,
    strategy: Strategy,
    names: Vec<&'a str>,
    text: String,
}

/// Chooses a strategy and build side for every join of a query block.
///
/// `hints` are the block's hints (from [`parse_hints`](super::parse_hints)
/// or [`HintComment::parse`](super::HintComment::parse)); hints other than
/// the four join hints (MULTI_JOIN, LOOKUP, STATE_TTL, OPTIONS) are left to
/// their own handling and do not affect the choice.
///
/// # Errors
///
/// * [`HintError::JoinHintArguments`]: a join hint without tables, in
///   key-value form, or with a number for a table (H10);
/// * [`HintError::UnknownTables`]: names that are not inputs of the block
///   (H11), listing the names in scope;
/// * [`HintError::AliasRequired`]: a table named by its name although it
///   has an alias (H32);
/// * [`HintError::AmbiguousTable`]: a name matching both inputs of a join
///   (H11);
/// * [`HintError::NoStrategyAvailable`]: every strategy that can run a join
///   is disabled (H16);
/// * [`HintError::StrictHint`]: in strict mode, a hint that cannot be
///   applied (H17).
///
/// # Examples
///
/// ```
/// use tenon_planner::hints::{
///     parse_hints, resolve_block, BlockInput, BlockJoins, JoinSite, Position, ResolveConfig,
///     SiteInput,
/// };
/// use tenon_kernels::{JoinSide, JoinType, Strategy};
///
/// // SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id
/// let hints = parse_hints("BROADCAST(t1) SHUFFLE_HASH(t1)", Position::new(1, 11)).unwrap();
/// let block = BlockJoins {
///     inputs: vec![BlockInput::table("t1"), BlockInput::table("t2")],
///     joins: vec![JoinSite::new(0, JoinType::Full, SiteInput::named("t1"), SiteInput::named("t2"))],
/// };
/// let r = resolve_block(&block, &hints, &ResolveConfig::default()).unwrap();
/// let d = &r.joins[0];
/// assert_eq!(d.strategy, Strategy::ShuffleHash);
/// assert_eq!(d.build_side, Some(JoinSide::Left));
/// assert_eq!(d.reason, "hint SHUFFLE_HASH(t1) applied");
/// assert_eq!(d.ignored[0].to_string(),
///     "hint BROADCAST(t1) ignored: BROADCAST does not support a FULL OUTER join");
/// ```
pub fn resolve_block(
    block: &BlockJoins,
    hints: &[Hint],
    config: &ResolveConfig,
) -> Result<BlockResolution, HintError> {
    let join_hints = check_arguments(hints)?;
    check_scope(block, &join_hints)?;
    let mut used = vec![false; join_hints.len()];
    let mut decisions = Vec::with_capacity(block.joins.len());
    for site in &block.joins {
        decisions.push(resolve_join(site, &join_hints, &mut used, config)?);
    }
    let mut unused = Vec::new();
    for (h, used) in join_hints.iter().zip(used) {
        if used {
            continue;
        }
        if config.hint_mode == HintMode::Strict {
            return Err(HintError::StrictHint {
                hint: h.text.clone(),
                join: None,
                reason: IgnoreReason::NoMatchingJoin.to_string(),
            });
        }
        unused.push(IgnoredHint {
            hint: h.text.clone(),
            reason: IgnoreReason::NoMatchingJoin,
        });
    }
    Ok(BlockResolution {
        joins: decisions,
        unused,
    })
}

/// H10: a join hint takes one or more table names in list form.
fn check_arguments(hints: &[Hint]) -> Result<Vec<JoinHint<'_>>, HintError> {
    let mut out = Vec::new();
    for (index, hint) in hints.iter().enumerate() {
        let Some(strategy) = hint.name.strategy() else {
            continue;
        };
        let text = hint.to_string();
        let error = |message: String| HintError::JoinHintArguments {
            hint: text.clone(),
            position: hint.position,
            message,
        };
        match &hint.args {
            HintArgs::None => {
                return Err(error(format!(
                    "a join hint needs one or more table names, e.g. `{}(t1)`",
                    hint.name
                )));
            }
            HintArgs::KeyValues(_) => {
                return Err(error(format!(
                    "a join hint takes table names in list form, e.g. `{}(t1, t2)`, not \
                     key = 'value' options",
                    hint.name
                )));
            }
            HintArgs::List(opts) => {
                if let Some(bad) = opts.iter().find(|o| o.value.as_name().is_none()) {
                    return Err(HintError::JoinHintArguments {
                        hint: text.clone(),
                        position: bad.position,
                        message: format!(
                            "`{}` is not a table name: join hint options are tables, views or \
                             aliases of the query block",
                            bad.value
                        ),
                    });
                }
            }
        }
        out.push(JoinHint {
            index,
            hint,
            strategy,
            names: hint.names(),
            text,
        });
    }
    Ok(out)
}

/// H11, H32: every name must be a table, view or alias of the block.
fn check_scope(block: &BlockJoins, hints: &[JoinHint<'_>]) -> Result<(), HintError> {
    check_names_in_scope(block, hints.iter().map(|h| h.hint))
}

/// H11, H32 for hints whose arguments are table names (the join hints and
/// MULTI_JOIN): every name must be a table, view or alias of the block,
/// and an aliased table goes by its alias.
pub(crate) fn check_names_in_scope<'a>(
    block: &BlockJoins,
    hints: impl Iterator<Item = &'a Hint>,
) -> Result<(), HintError> {
    let mut unknown: Vec<(String, Vec<String>)> = Vec::new();
    for hint in hints {
        let h = NamedHint {
            text: hint.to_string(),
            names: hint.names(),
            hint,
        };
        let mut missing = Vec::new();
        for &name in &h.names {
            if block.inputs.iter().any(|i| i.name == name) {
                continue;
            }
            if let Some(aliased) = block
                .inputs
                .iter()
                .find(|i| i.aliased_table.as_deref() == Some(name))
            {
                let suggestion = Hint {
                    args: rename(&h.hint.args, name, &aliased.name),
                    ..h.hint.clone()
                }
                .to_string();
                return Err(HintError::AliasRequired {
                    hint: h.text.clone(),
                    table: name.to_string(),
                    alias: aliased.name.clone(),
                    suggestion,
                });
            }
            if !missing.iter().any(|m| m == name) {
                missing.push(name.to_string());
            }
        }
        if !missing.is_empty() {
            unknown.push((h.text.clone(), missing));
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let mut in_scope: Vec<String> = Vec::new();
    for i in &block.inputs {
        if !in_scope.contains(&i.name) {
            in_scope.push(i.name.clone());
        }
    }
    Err(HintError::UnknownTables { unknown, in_scope })
}

/// The hint's list with one name replaced (for the alias suggestion).
fn rename(args: &HintArgs, from: &str, to: &str) -> HintArgs {
    match args {
        HintArgs::List(opts) => HintArgs::List(
            opts.iter()
                .map(|o| {
                    let mut o = o.clone();
                    if o.value.as_name() == Some(from) {
                        o.value = super::syntax::OptionValue::Identifier {
                            name: to.to_string(),
                            quoted: false,
                        };
                    }
                    o
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// H12, H20: the side of `site` the hint names, by its first argument that
/// names an input of the join.
fn matched_side(site: &JoinSite, h: &JoinHint<'_>) -> Result<Option<JoinSide>, HintError> {
    let is = |side: JoinSide, name: &str| site.input(side).name.as_deref() == Some(name);
    let mut found = None;
    for &name in &h.names {
        let (l, r) = (is(JoinSide::Left, name), is(JoinSide::Right, name));
        if l && r {
            return Err(HintError::AmbiguousTable {
                hint: h.text.clone(),
                table: name.to_string(),
                join: site.id,
            });
        }
        if found.is_none() {
            if l {
                found = Some(JoinSide::Left);
            } else if r {
                found = Some(JoinSide::Right);
            }
        }
    }
    Ok(found)
}

/// H13, H14, H16: why the strategy cannot run this join with this build
/// side, if it cannot.
fn invalid_because(
    site: &JoinSite,
    strategy: Strategy,
    side: JoinSide,
    config: &ResolveConfig,
) -> Option<IgnoreReason> {
    if site.from_subquery {
        return Some(IgnoreReason::SubqueryJoin);
    }
    if site.time_join {
        let runs = match strategy {
            Strategy::Broadcast => side == JoinSide::Right,
            Strategy::ShuffleMerge => true,
            Strategy::ShuffleHash | Strategy::NestLoop => false,
        };
        if !runs {
            return Some(IgnoreReason::TimeJoin { strategy, side });
        }
        return (!config.enabled(strategy)).then_some(IgnoreReason::Disabled(strategy));
    }
    if strategy != Strategy::NestLoop && !site.has_equi_condition {
        return Some(IgnoreReason::NoEquiCondition(strategy));
    }
    if strategy == Strategy::Broadcast {
        if site.join_type == JoinType::Full {
            return Some(IgnoreReason::FullOuterBroadcast);
        }
        if !site.broadcastable().contains(&side) {
            return Some(IgnoreReason::PreservedSide {
                side,
                join_type: site.join_type,
            });
        }
    }
    if !config.enabled(strategy) {
        return Some(IgnoreReason::Disabled(strategy));
    }
    None
}

fn resolve_join(
    site: &JoinSite,
    hints: &[JoinHint<'_>],
    used: &mut [bool],
    config: &ResolveConfig,
) -> Result<JoinDecision, HintError> {
    let mut decided: Option<(usize, Strategy, Option<JoinSide>, &str)> = None;
    let mut ignored = Vec::new();
    for (k, h) in hints.iter().enumerate() {
        let Some(side) = matched_side(site, h)? else {
            continue;
        };
        used[k] = true;
        if let Some((_, _, _, by)) = decided {
            ignored.push(IgnoredHint {
                hint: h.text.clone(),
                reason: IgnoreReason::Overridden { by: by.to_string() },
            });
            continue;
        }
        match invalid_because(site, h.strategy, side, config) {
            Some(reason) => {
                if config.hint_mode == HintMode::Strict {
                    return Err(HintError::StrictHint {
                        hint: h.text.clone(),
                        join: Some(site.id),
                        reason: reason.to_string(),
                    });
                }
                ignored.push(IgnoredHint {
                    hint: h.text.clone(),
                    reason,
                });
            }
            None => {
                let build = (h.strategy != Strategy::ShuffleMerge).then_some(side);
                decided = Some((h.index, h.strategy, build, &h.text));
            }
        }
    }
    if let Some((index, strategy, build_side, text)) = decided {
        return Ok(JoinDecision {
            join: site.id,
            strategy,
            build_side,
            source: DecisionSource::Hint(index),
            reason: format!("hint {text} applied"),
            ignored,
        });
    }
    let (strategy, build_side, reason) = default_choice(site, config)?;
    Ok(JoinDecision {
        join: site.id,
        strategy,
        build_side,
        source: DecisionSource::Default,
        reason,
        ignored,
    })
}
