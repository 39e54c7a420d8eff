//! A query block's hint comments, parsed where they stand: the block's
//! query hints (after `SELECT`) and its table hints (after a table name),
//! checked for placement and form and merged per scan (H05, H06, H25).
//!
//! The comments come from the SQL front end, which found them with their
//! positions ([`RawHintBlock`]) and claimed each for a `SELECT` or a table
//! name; [`HintComment::parse`] checks that each hint fits its place (OPTIONS
//! after a table, every other hint after `SELECT`; a comment anywhere else
//! is [`HintError::Misplaced`]).

use super::ScanOptions;
use crate::hints::{
    Hint, HintArgs, HintComment, HintError, HintName, HintPlacement, Position, key_values,
};
use crate::sql::{QueryBlock, RawHintBlock, TableHint};

/// Parses one raw hint comment as placed.
pub(super) fn parse_raw(
    raw: &RawHintBlock,
    placement: HintPlacement,
) -> Result<Vec<Hint>, HintError> {
    let position = Position::new(raw.line, raw.col);
    HintComment {
        placement,
        text: raw.text.clone(),
        position,
        // Not read by `parse`: only placement, text and position are.
        anchor: position,
        span: 0..0,
    }
    .parse()
}

/// The block's query hints, parsed.
pub(super) fn block_hints(block: &QueryBlock) -> Result<Vec<Hint>, HintError> {
    let mut hints = Vec::new();
    for raw in &block.hints {
        hints.extend(parse_raw(raw, HintPlacement::QueryBlock)?);
    }
    Ok(hints)
}

/// The block's table hints, parsed and checked (H05, H06), merged per scan
/// (H25).
pub(super) fn block_scan_options(block: &QueryBlock) -> Result<Vec<ScanOptions>, HintError> {
    let parsed = parsed_table_hints(block)?;
    check_table_hints_name_tables(block, &parsed)?;
    scan_options(block)
}

/// Each table hint of the block, parsed, with its hints' form checked:
/// OPTIONS takes `'key' = 'value'` pairs.
fn parsed_table_hints(block: &QueryBlock) -> Result<Vec<(&TableHint, Vec<Hint>)>, HintError> {
    let mut parsed = Vec::with_capacity(block.table_hints.len());
    for th in &block.table_hints {
        let hints = parse_raw(
            &th.hint,
            HintPlacement::Table {
                table: th.table.clone(),
            },
        )?;
        for h in &hints {
            let pairs = match &h.args {
                HintArgs::KeyValues(kvs) => kvs.len(),
                _ => 0,
            };
            if pairs == 0 {
                return Err(HintError::TableHint {
                    hint: h.to_string(),
                    position: h.position,
                    message: "OPTIONS takes 'key' = 'value' pairs, e.g. \
                              `t /*+ OPTIONS('scan.batch-size' = '1024') */`"
                        .into(),
                });
            }
        }
        parsed.push((th, hints));
    }
    Ok(parsed)
}

/// Checks that each table hint follows a table the block scans (not a
/// view or a WITH query's name).
fn check_table_hints_name_tables(
    block: &QueryBlock,
    parsed: &[(&TableHint, Vec<Hint>)],
) -> Result<(), HintError> {
    // a block that was planned has relations; an unused WITH query's has none
    let planned = !block.relations.is_empty() || !block.scans.is_empty();
    if !planned {
        return Ok(());
    }
    for (th, hints) in parsed {
        let scanned = block
            .scans
            .iter()
            .any(|s| s.table == th.table && s.alias == th.alias);
        if !scanned && let Some(h) = hints.first() {
            return Err(HintError::TableHint {
                hint: h.to_string(),
                position: h.position,
                message: format!(
                    "`{}` is not a table of this query block (a view or a WITH query?): \
                     OPTIONS apply to tables only; write them inside the view or WITH query, \
                     after its table",
                    th.table
                ),
            });
        }
    }
    Ok(())
}

/// The options of each scan of the block that has table hints, merged
/// (H25).
fn scan_options(block: &QueryBlock) -> Result<Vec<ScanOptions>, HintError> {
    let mut out = Vec::new();
    for scan in &block.scans {
        if scan.hints.is_empty() {
            continue;
        }
        let mut hints = Vec::new();
        for raw in &scan.hints {
            hints.extend(parse_raw(
                raw,
                HintPlacement::Table {
                    table: scan.table.clone(),
                },
            )?);
        }
        let Some(first) = hints.first() else {
            continue;
        };
        out.push(ScanOptions {
            block: block.id,
            path: scan.path.clone(),
            table: scan.table.clone(),
            alias: scan.alias.clone(),
            options: key_values(&hints, HintName::Options),
            position: first.position,
        });
    }
    Ok(out)
}

/// H11: a hint that names an `UNNEST` or `LATERAL TABLE` of the block (and
/// no table of that name) is an error that says what the name is.
pub(super) fn check_hints_name_no_expansion(
    block: &QueryBlock,
    hints: &[Hint],
) -> Result<(), HintError> {
    for h in hints {
        for name in h.names() {
            let named = |kind_is_expansion: bool| {
                block.relations.iter().find(|r| {
                    r.name.as_deref() == Some(name)
                        && (r.kind == crate::sql::InputKind::Expansion) == kind_is_expansion
                })
            };
            if named(false).is_none()
                && let Some(e) = named(true)
            {
                return Err(HintError::NotATable {
                    hint: h.to_string(),
                    name: name.to_string(),
                    what: e.table.clone().unwrap_or_default(),
                });
            }
        }
    }
    Ok(())
}
