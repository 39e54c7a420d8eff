//! `tenon bench --query`: a user's query with one join hint block
//! inserted per variant, which strategies a join can be hinted to, and
//! whether two variants returned the same rows.
//!
//! A hint block belongs right after its query block's `SELECT` keyword
//! (docs/hints.md H01). The planner numbers a statement's blocks in
//! pre-order over its `SELECT`s, which is the order of the `SELECT`
//! keywords in the text; the blocks of views the query reads come after
//! them (their `SELECT`s are not in the text). So block `b` is the `b`-th
//! `SELECT` keyword of the query's tokens (sqlparser's tokenizer, comments
//! and string literals skipped) when `b` is below the number of such
//! keywords, and is not in the text otherwise: [`SelectSites::site`]
//! gives `None` rather than a guess. Every variant is checked afterwards
//! by EXPLAIN (the hinted join must say `hint ... applied`), so a wrong
//! place could only make a variant be reported as not applied, never
//! time the wrong plan.
//!
//! A block that has a hint block already gets the new hints first inside
//! it (`/*+ NEW, OLD */`): between hints, the first valid one written
//! applies (H20-H22), so the variant's hint decides its join and the
//! query's own hints still decide the others.

use std::hash::{Hash, Hasher};

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};
use tenon_kernels::Strategy;
use tenon_planner::hints::LineOffsets;
use tenon_planner::sql::TenonDialect;

use crate::JoinReport;

/// Where one query block's hint block goes in the query text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectSite {
    /// Byte offset just after the block's `SELECT` keyword.
    pub after_select: usize,
    /// Byte offset just after the `/*+` of the block's hint block, when it
    /// has one.
    pub in_hint_block: Option<usize>,
}

/// The `SELECT` keywords of a query text, in order: block `b`'s is the
/// `b`-th (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectSites(Vec<SelectSite>);

impl SelectSites {
    /// Finds the `SELECT` keywords of `sql` with sqlparser's tokenizer in
    /// tenon's dialect.
    ///
    /// # Errors
    ///
    /// The tokenizer's error (an unclosed string or comment), as text.
    pub fn of(sql: &str) -> Result<SelectSites, String> {
        let tokens = Tokenizer::new(&TenonDialect::default(), sql)
            .tokenize_with_location()
            .map_err(|e| e.to_string())?;
        let offsets = LineOffsets::new(sql);
        let mut sites = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            i += 1;
            let Token::Word(w) = &t.token else {
                continue;
            };
            if w.keyword != Keyword::SELECT || w.quote_style.is_some() {
                continue;
            }
            let after_select = offsets.byte(sql, t.span.end);
            // the block's hint comment follows with only white space between
            let mut in_hint_block = None;
            for next in &tokens[i..] {
                match &next.token {
                    Token::Whitespace(Whitespace::MultiLineComment(c)) if c.starts_with('+') => {
                        in_hint_block = Some(offsets.byte(sql, next.span.start) + 3);
                        break;
                    }
                    Token::Whitespace(_) => {}
                    _ => break,
                }
            }
            sites.push(SelectSite {
                after_select,
                in_hint_block,
            });
        }
        Ok(SelectSites(sites))
    }

    /// Where block `block`'s hint block goes; `None` when the block's
    /// `SELECT` is not in the text (a view's block).
    pub fn site(&self, block: usize) -> Option<&SelectSite> {
        self.0.get(block)
    }

    /// `sql` with each `(block, hint)` inserted at its block's `SELECT`
    /// (hints of one block in the order given, before the block's own);
    /// `None` when a block is not in the text.
    pub fn insert(&self, sql: &str, hints: &[(usize, String)]) -> Option<String> {
        let mut blocks: Vec<usize> = hints.iter().map(|(b, _)| *b).collect();
        blocks.sort_unstable();
        blocks.dedup();
        let mut out = sql.to_string();
        // from the end of the text, so that earlier offsets stay valid
        for &block in blocks.iter().rev() {
            let site = self.site(block)?;
            let text: Vec<&str> = hints
                .iter()
                .filter(|(b, _)| *b == block)
                .map(|(_, h)| h.as_str())
                .collect();
            let text = text.join(", ");
            match site.in_hint_block {
                Some(at) => out.insert_str(at, &format!(" {text},")),
                None => out.insert_str(site.after_select, &format!(" /*+ {text} */")),
            }
        }
        Some(out)
    }
}

/// The strategies every join is tried with, in report order.
pub const STRATEGIES: [Strategy; 4] = [
    Strategy::Broadcast,
    Strategy::ShuffleHash,
    Strategy::ShuffleMerge,
    Strategy::NestLoop,
];

/// The hint that asks for `strategy` on `join` (e.g. `BROADCAST(o)`), or
/// why the strategy cannot run it (docs/hints.md §2: BROADCAST, SHUFFLE_HASH
/// and SHUFFLE_MERGE need an equi condition; BROADCAST never builds the
/// preserved side of an outer join, nor a FULL OUTER join; a time join runs
/// as BROADCAST of its right input or SHUFFLE_MERGE only; NEST_LOOP runs
/// anything). The hint names the side the default builds when that side
/// may be built, else the right input, else the left: the variant changes
/// the strategy, not the build side where it need not.
///
/// # Errors
///
/// Why the strategy cannot run the join, or that neither input has a name
/// a hint could use.
pub fn hint_for(join: &JoinReport, strategy: Strategy) -> Result<String, String> {
    if join.left.is_none() && join.right.is_none() {
        return Err("neither input has a table or alias name a hint could use".into());
    }
    let t = join.join_type.as_str();
    let (mut left_ok, mut right_ok) = (join.left.is_some(), join.right.is_some());
    let equi = !join.keys.is_empty();
    match strategy {
        Strategy::Broadcast if join.time_join.is_some() => left_ok = false,
        Strategy::Broadcast if t.starts_with("FULL") => {
            return Err("BROADCAST cannot run a FULL OUTER join".into());
        }
        Strategy::Broadcast if t.starts_with("LEFT") => left_ok = false,
        Strategy::Broadcast if t.starts_with("RIGHT") => right_ok = false,
        Strategy::ShuffleHash | Strategy::NestLoop if join.time_join.is_some() => {
            return Err(format!(
                "a time join runs as BROADCAST or SHUFFLE_MERGE only, not {strategy}"
            ));
        }
        _ => {}
    }
    if strategy != Strategy::NestLoop && !equi {
        return Err(format!(
            "{strategy} needs an equi condition (a.k = b.k); this join has none"
        ));
    }
    let named = |name: &Option<String>, ok: bool| name.clone().filter(|_| ok);
    let by_default = join.build.clone().filter(|b| {
        (left_ok && join.left.as_ref() == Some(b)) || (right_ok && join.right.as_ref() == Some(b))
    });
    let side = by_default
        .or_else(|| named(&join.right, right_ok))
        .or_else(|| named(&join.left, left_ok))
        .ok_or_else(|| {
            format!(
                "{strategy} cannot build the {} join's named input (the preserved side of an \
                 outer join is never broadcast)",
                join.join_type
            )
        })?;
    Ok(format!("{}({})", strategy.name(), quote_name(&side)))
}

/// A table or alias name as a hint argument: as is when SQL reads it back
/// as the same name (lower case letters, digits, `_`), else double-quoted.
fn quote_name(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// Whether the outermost query of `sql` has ORDER BY (its rows are then
/// compared in order); `false` when it does not parse here (planning
/// reports that).
pub fn has_order_by(sql: &str) -> bool {
    match sqlparser::parser::Parser::parse_sql(&TenonDialect::default(), sql) {
        Ok(statements) => statements.iter().any(|s| match s {
            sqlparser::ast::Statement::Query(q) => q.order_by.is_some(),
            _ => false,
        }),
        Err(_) => false,
    }
}

/// Results of at most this many rows are compared row by row (and the
/// first difference shown); larger ones by an order-insensitive hash.
pub const ROWS_COMPARED_IN_FULL: usize = 1 << 20;

/// A query's answer, reduced to what two variants must agree on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Every row as text (columns separated by ` | `, NULL as `NULL`),
    /// sorted unless the query has ORDER BY.
    Rows(Vec<String>),
    /// The row count and a sum of per-row hashes (a result too large to
    /// keep as text).
    Hashed {
        /// Rows in the result.
        rows: u64,
        /// The wrapping sum of each row's hash: the same for the same rows
        /// in any order.
        hash: u64,
    },
}

impl Answer {
    /// The answer of `batches`, rows in order when `ordered`.
    ///
    /// # Errors
    ///
    /// A column arrow cannot display, as text.
    pub fn of(batches: &[RecordBatch], ordered: bool) -> Result<Answer, String> {
        let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let options = FormatOptions::default().with_null("NULL");
        let mut rows = Vec::with_capacity(total.min(ROWS_COMPARED_IN_FULL));
        let mut hash = 0u64;
        for b in batches {
            let formatters = b
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            for r in 0..b.num_rows() {
                let cells: Vec<String> =
                    formatters.iter().map(|f| f.value(r).to_string()).collect();
                let row = cells.join(" | ");
                if total > ROWS_COMPARED_IN_FULL {
                    let mut h = std::hash::DefaultHasher::new();
                    row.hash(&mut h);
                    hash = hash.wrapping_add(h.finish());
                } else {
                    rows.push(row);
                }
            }
        }
        if total > ROWS_COMPARED_IN_FULL {
            return Ok(Answer::Hashed {
                rows: total as u64,
                hash,
            });
        }
        if !ordered {
            rows.sort_unstable();
        }
        Ok(Answer::Rows(rows))
    }

    /// How `other` (a variant's answer: "this") differs from `self` (the
    /// default's): the first differing row of both, or the first row only
    /// one of them has, or the counts (hashed answers); `None` when they
    /// agree.
    pub fn difference(&self, other: &Answer) -> Option<String> {
        match (self, other) {
            (Answer::Rows(a), Answer::Rows(b)) => {
                let i = a.iter().zip(b).position(|(x, y)| x != y);
                match i {
                    Some(i) => Some(format!(
                        "row {} is `{}` in this answer, `{}` in the default's",
                        i + 1,
                        b[i],
                        a[i]
                    )),
                    None if a.len() != b.len() => {
                        // the rows agree up to the shorter's end
                        let (who, row) = match b.get(a.len()) {
                            Some(row) => ("this answer", row.as_str()),
                            None => ("the default's", a.get(b.len()).map_or("", String::as_str)),
                        };
                        Some(format!(
                            "{} rows in this answer, {} in the default's; row {} is the first \
                             that only {who} has: `{row}`",
                            b.len(),
                            a.len(),
                            a.len().min(b.len()) + 1
                        ))
                    }
                    None => None,
                }
            }
            (Answer::Hashed { rows: r1, hash: h1 }, Answer::Hashed { rows: r2, hash: h2 }) => {
                (r1 != r2 || h1 != h2).then(|| {
                    format!(
                        "{r2} rows in this answer, {r1} in the default's, and the rows' \
                         hashes differ (results over {ROWS_COMPARED_IN_FULL} rows are compared \
                         by hash: no row to show)"
                    )
                })
            }
            (a, b) => Some(format!(
                "{} rows in this answer, {} in the default's",
                b.row_count(),
                a.row_count()
            )),
        }
    }

    /// Rows in the answer.
    pub fn row_count(&self) -> u64 {
        match self {
            Answer::Rows(r) => r.len() as u64,
            Answer::Hashed { rows, .. } => *rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_go_after_the_blocks_select_and_merge_with_its_own() {
        let sql = "-- SELECT in a comment\nselect a.k, 'select' FROM a JOIN (SELECT /*+ NEST_LOOP(c) */ * FROM b JOIN c ON b.k = c.k) d ON a.k = d.k";
        let sites = SelectSites::of(sql).unwrap();
        assert_eq!(sites.0.len(), 2);
        let out = sites
            .insert(
                sql,
                &[(0, "BROADCAST(d)".into()), (1, "SHUFFLE_HASH(b)".into())],
            )
            .unwrap();
        assert!(
            out.contains("select /*+ BROADCAST(d) */ a.k, 'select'"),
            "{out}"
        );
        assert!(
            out.contains("(SELECT /*+ SHUFFLE_HASH(b), NEST_LOOP(c) */ *"),
            "{out}"
        );
        assert_eq!(sites.insert(sql, &[(2, "BROADCAST(x)".into())]), None);
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        let sql = "SELECT 'é', x FROM t\n  WHERE y IN (SELECT z FROM u)";
        let sites = SelectSites::of(sql).unwrap();
        let out = sites.insert(sql, &[(1, "BROADCAST(u)".into())]).unwrap();
        assert!(
            out.ends_with("(SELECT /*+ BROADCAST(u) */ z FROM u)"),
            "{out}"
        );
    }

    #[test]
    fn rows_compare_sorted_unless_ordered() {
        use arrow_array::Int64Array;
        use std::sync::Arc;
        let batch = |v: Vec<i64>| {
            RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(v)) as _)]).unwrap()
        };
        let a = Answer::of(&[batch(vec![1, 2])], false).unwrap();
        let b = Answer::of(&[batch(vec![2, 1])], false).unwrap();
        assert_eq!(a.difference(&b), None);
        let a = Answer::of(&[batch(vec![1, 2])], true).unwrap();
        let b = Answer::of(&[batch(vec![2, 1])], true).unwrap();
        let d = a.difference(&b).unwrap();
        assert!(d.contains("row 1") && d.contains("`2`"), "{d}");
        // a row one side lacks: which side has it
        let short = Answer::of(&[batch(vec![1])], true).unwrap();
        let d = a.difference(&short).unwrap();
        assert!(
            d.contains("row 2 is the first that only the default's has: `2`"),
            "{d}"
        );
        let d = short.difference(&a).unwrap();
        assert!(d.contains("only this answer has: `2`"), "{d}");
        assert!(has_order_by("SELECT k FROM t ORDER BY k"));
        assert!(!has_order_by(
            "SELECT k FROM (SELECT k FROM t ORDER BY k) s"
        ));
    }
}
