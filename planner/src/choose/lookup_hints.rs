//! The `LOOKUP` hints of a query block (docs/hints.md H51): each names a
//! lookup table of the block by `'table'` (its alias when it has one, else
//! its name: the table's name for an aliased table is ignored with the
//! reason, or an error in strict mode) and
//! sets how that one lookup join's requests run, over the session's
//! defaults. Options are checked whatever the hint names; a hint naming no
//! lookup join of its block is an error in strict mode and ignored, with
//! its reason in EXPLAIN, in lenient mode (H17). The first hint naming a
//! table decides its options.

use super::lookup_choice::{LookupOrScan, lookup_or_scan};
use super::sites::BlockToDecide;
use super::{PlannedJoin, UnusedHint};
use crate::config::Config;
use crate::hints::{HintError, HintName, IgnoreReason, hint_key_values};
use crate::lookup::LookupOptions;
use crate::sql::Catalog;

/// Sets `planned[j].lookup` for every lookup join of the block
/// (`planned[j]` is the block's join `j`) that runs as one: its LOOKUP
/// hint's options, or the defaults; a lookup join no hint names runs as a
/// scan and a regular join instead when the estimates say so
/// (`lookup_choice.rs`: `lookup` stays `None`, `time_join` becomes `None`).
/// Hints naming no lookup join go to `unused` (lenient).
pub(super) fn apply_lookup_hints(
    decided: &BlockToDecide<'_>,
    planned: &mut [&mut PlannedJoin],
    (config, catalog): (&Config, &Catalog),
    unused: &mut Vec<UnusedHint>,
    block: usize,
) -> Result<(), HintError> {
    // every lookup join gets options: the defaults unless a hint sets them
    let mut hinted = vec![false; planned.len()];
    for hint in decided.hints_named(HintName::Lookup) {
        let pairs = hint_key_values(hint);
        let bad = |message: String| HintError::JoinHintArguments {
            hint: hint.to_string(),
            position: hint.position,
            message,
        };
        let options = LookupOptions::from_hint(&pairs, &config.lookup).map_err(bad)?;
        let Some((_, table)) = pairs.iter().find(|(k, _)| k.eq_ignore_ascii_case("table")) else {
            return Err(bad(
                "LOOKUP needs 'table' = 'name': the lookup table (its alias when it has one) \
                 whose joins the options are for"
                    .into(),
            ));
        };
        let mut matched = false;
        // the alias of a lookup table the hint named by its table's name
        let mut aliased = None;
        for (j, join) in planned.iter_mut().enumerate() {
            let Some(names) = decided.lookup_names(j) else {
                continue;
            };
            // the name in the block: the alias when the table has one
            // (names[1], the table's own name, then does not match)
            if names.get(1).is_some_and(|n| n.eq_ignore_ascii_case(table)) {
                aliased = names.first().cloned();
            }
            if names.first().is_some_and(|n| n.eq_ignore_ascii_case(table)) {
                matched = true;
                if !hinted[j] {
                    hinted[j] = true;
                    join.lookup = Some(options);
                    join.reason = format!("hint {hint} applied, so LOOKUP the probe keys");
                }
            }
        }
        if matched {
            continue;
        }
        let reason = match aliased {
            Some(alias) => IgnoreReason::LookupTableHasAlias {
                table: table.clone(),
                alias,
            },
            None => IgnoreReason::NotALookupJoin {
                table: table.clone(),
            },
        };
        super::ignore_hint(config, unused, block, hint.to_string(), reason)?;
    }
    for (j, join) in planned.iter_mut().enumerate() {
        let Some(names) = decided.lookup_names(j).filter(|_| !hinted[j]) else {
            continue;
        };
        let only = names
            .iter()
            .filter_map(|n| catalog.table(n))
            .find_map(|t| t.lookup_only.as_deref());
        let site = &decided.joins.joins[j];
        match lookup_or_scan(site.left.estimate, site.right.estimate, only) {
            LookupOrScan::Lookup(why) => {
                join.lookup = Some(LookupOptions::defaults(&config.lookup));
                join.reason = why;
            }
            LookupOrScan::Scan(why) => {
                join.time_join = None;
                join.adaptive_build_side = false;
                join.reason = why;
            }
        }
    }
    Ok(())
}
