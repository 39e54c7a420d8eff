//! Finding hint comments in SQL text, for the SQL front end.
//!
//! sqlparser 0.62 keeps the comments directly after `SELECT` as
//! `Select::optimizer_hints` (generic dialect), but it also keeps
//! `--+ ...` line comments and `/*abc+ ... */` prefixed comments there,
//! and it drops table hints (`t /*+ OPTIONS(..) */`) altogether. This
//! module reads the token stream of sqlparser's tokenizer instead, where
//! every comment is a `Whitespace::MultiLineComment` with its span, and
//! classifies each `/*+ ... */` comment by what precedes it:
//!
//! ```text
//! SELECT /*+ BROADCAST(t1) */ *            -> QueryBlock  (after SELECT)
//! FROM t1 /*+ OPTIONS('k'='v') */ AS a     -> Table "t1"  (after a table name
//! JOIN db.t2 /*+ OPTIONS('k'='v') */ ON ..  -> Table "db.t2"  after FROM, JOIN,
//!                                                          INTO or a FROM-list `,`)
//! WHERE a = 1 /*+ BROADCAST(t1) */          -> Elsewhere   (an error when parsed)
//! ```
//!
//! Only `/*+` opens a hint: `/* + */`, `/*abc+ */` and `--+` are plain
//! comments (H07).
//!
//! The tokens and the test for a hint comment are the SQL front end's
//! ([`crate::sql`]'s `sql_tokens` and `hint_text`): one tokenizer of hint
//! comments. The front end places each comment by the AST (after the
//! `SELECT` or table name whose span it follows); this finder places it by
//! the tokens before it, so that it works on text that is not (yet) a
//! whole statement.

use std::ops::Range;

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use super::error::HintError;
use super::name::HintName;
use super::parse::parse_hints;
use super::syntax::{Hint, Position};
use crate::sql::{hint_text, sql_tokens};

/// Where a hint comment stands, which decides what it may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintPlacement {
    /// Directly after `SELECT` (H01): the query block's hints.
    QueryBlock,
    /// Directly after a table reference in FROM / JOIN / INTO (H06).
    Table {
        /// The table's name as the hint follows it: parts joined with
        /// `.`, unquoted parts folded to lower case.
        table: String,
    },
    /// Anywhere else: not a place for hints.
    Elsewhere,
}

/// A `/*+ ... */` comment found in SQL text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintComment {
    /// What precedes it.
    pub placement: HintPlacement,
    /// The text between `/*+` and `*/`.
    pub text: String,
    /// Where the comment (its `/`) starts.
    pub position: Position,
    /// Where the token it is attached to starts: the `SELECT` keyword or
    /// the table name's first part (the comment's own position for
    /// [`HintPlacement::Elsewhere`]).
    pub anchor: Position,
    /// The byte range of the whole comment, `/*+` to `*/` inclusive.
    pub span: Range<usize>,
}

impl HintComment {
    /// Where [`text`](Self::text) starts: three characters after the
    /// comment's start.
    pub fn text_position(&self) -> Position {
        Position::new(self.position.line, self.position.column.saturating_add(3))
    }

    /// Parses the comment's hints and checks that they fit its placement:
    /// after SELECT every hint but OPTIONS, after a table only OPTIONS.
    ///
    /// # Errors
    ///
    /// As [`parse_hints`], and [`HintError::Misplaced`] for a hint in the
    /// wrong place or a comment that is neither after SELECT nor after a
    /// table name.
    pub fn parse(&self) -> Result<Vec<Hint>, HintError> {
        let hints = parse_hints(&self.text, self.text_position())?;
        for h in &hints {
            let wrong = match &self.placement {
                HintPlacement::QueryBlock if h.name.is_table_hint() => Some(format!(
                    "{} is a table hint: write it directly after the table name, e.g. \
                     `FROM t1 /*+ OPTIONS('k'='v') */`",
                    h.name
                )),
                HintPlacement::Table { table } if !h.name.is_table_hint() => Some(format!(
                    "{} is a query hint and belongs directly after SELECT, e.g. \
                     `SELECT /*+ {} */ ...`; after the table `{table}` only OPTIONS(...) is \
                     allowed",
                    h.name, h
                )),
                HintPlacement::Elsewhere => Some(format!(
                    "a hint block must directly follow SELECT (query hints such as {}) or a \
                     table name (OPTIONS); write a plain comment `/* ... */` otherwise",
                    HintName::Broadcast
                )),
                _ => None,
            };
            if let Some(message) = wrong {
                return Err(HintError::Misplaced {
                    name: h.name.name().to_string(),
                    position: h.position,
                    message,
                });
            }
        }
        Ok(hints)
    }
}

/// Finds and classifies every `/*+ ... */` comment of `sql`, in order.
///
/// # Errors
///
/// [`HintError::UnclosedComment`] for a `/*+` without `*/` (H05),
/// [`HintError::MultipleHintBlocks`] for two hint comments after one
/// SELECT or one table name (H04), and [`HintError::Tokenize`] when the SQL
/// text cannot be tokenized for another reason (an unclosed string, say).
///
/// # Examples
///
/// ```
/// use tenon_planner::hints::{find_hint_comments, HintPlacement, Position};
///
/// let sql = "SELECT /*+ BROADCAST(t1) */ *\n\
///            FROM t1 /*+ OPTIONS('csv.has-header'='true') */ JOIN t2 /* plain */ ON t1.a = t2.a";
/// let found = find_hint_comments(sql).unwrap();
/// assert_eq!(found.len(), 2);
/// assert_eq!(found[0].placement, HintPlacement::QueryBlock);
/// assert_eq!(found[0].text, " BROADCAST(t1) ");
/// assert_eq!(found[0].position, Position::new(1, 8));
/// assert_eq!(&sql[found[0].span.clone()], "/*+ BROADCAST(t1) */");
/// assert_eq!(found[1].placement, HintPlacement::Table { table: "t1".into() });
/// assert_eq!(found[1].parse().unwrap()[0].to_string(), "OPTIONS('csv.has-header'='true')");
///
/// let err = find_hint_comments("SELECT /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * FROM t1")
///     .unwrap_err();
/// assert!(err.to_string().starts_with("a second hint block at line 1, column 29"));
/// ```
pub fn find_hint_comments(sql: &str) -> Result<Vec<HintComment>, HintError> {
    let tokens = tokenize(sql)?;
    let offsets = LineOffsets::new(sql);
    let mut scan = Scan::default();
    let mut found: Vec<(HintComment, usize)> = Vec::new();
    for tok in &tokens {
        match &tok.token {
            Token::Whitespace(_) => {
                let Some(text) = hint_text(&tok.token) else {
                    continue;
                };
                let position = Position::from(tok.span.start);
                let (placement, anchor_index, anchor) = scan.placement(position);
                if let Some((first, _)) = found
                    .iter()
                    .rev()
                    .find(|(c, a)| *a == anchor_index && c.placement != HintPlacement::Elsewhere)
                    .filter(|_| placement != HintPlacement::Elsewhere)
                {
                    return Err(HintError::MultipleHintBlocks {
                        position,
                        first: first.position,
                    });
                }
                let span = offsets.byte(sql, tok.span.start)..offsets.byte(sql, tok.span.end);
                found.push((
                    HintComment {
                        placement,
                        text: text.to_string(),
                        position,
                        anchor,
                        span,
                    },
                    anchor_index,
                ));
            }
            _ => scan.push(tok),
        }
    }
    Ok(found.into_iter().map(|(c, _)| c).collect())
}

/// Tokenizes `sql`, turning an unclosed `/*+` into
/// [`HintError::UnclosedComment`] at the comment's start.
fn tokenize(sql: &str) -> Result<Vec<TokenWithSpan>, HintError> {
    match sql_tokens(sql) {
        Ok(tokens) => Ok(tokens),
        Err((e, buf)) => {
            let start = buf.last().map_or(Location::new(1, 1), |t| t.span.end);
            let offsets = LineOffsets::new(sql);
            let at = offsets.byte(sql, start);
            if sql.get(at..).is_some_and(|rest| rest.starts_with("/*+")) {
                Err(HintError::UnclosedComment {
                    position: start.into(),
                })
            } else {
                Err(HintError::Tokenize {
                    position: e.location.into(),
                    message: e.message,
                })
            }
        }
    }
}

/// Byte offsets of a text's line starts, to turn the SQL tokenizer's
/// 1-based (line, column) locations, whose columns count characters, into
/// byte offsets.
///
/// ```
/// use sqlparser::tokenizer::Location;
/// use tenon_planner::hints::LineOffsets;
///
/// let sql = "SELECT 'é'\nFROM t";
/// let offsets = LineOffsets::new(sql);
/// assert_eq!(offsets.byte(sql, Location::new(2, 6)), sql.len() - 1);
/// // the closing quote: its column counts `é` once, its byte offset twice
/// assert_eq!(offsets.byte(sql, Location::new(1, 10)), 10);
/// ```
pub struct LineOffsets(Vec<usize>);

impl LineOffsets {
    /// The line starts of `sql`.
    pub fn new(sql: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
        LineOffsets(starts)
    }

    /// The byte offset of a location in `sql` (the text the offsets are
    /// of); clamped to the text's length.
    pub fn byte(&self, sql: &str, loc: Location) -> usize {
        let line = usize::try_from(loc.line.max(1) - 1).unwrap_or(usize::MAX);
        let Some(&start) = self.0.get(line) else {
            return sql.len();
        };
        let col = usize::try_from(loc.column.max(1) - 1).unwrap_or(usize::MAX);
        sql[start..]
            .char_indices()
            .nth(col)
            .map_or(sql.len(), |(i, _)| start + i)
    }
}

/// Which clause a parenthesis level is in, as far as commas are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clause {
    From,
    Other,
}

/// The significant (non-whitespace) tokens seen so far, with what each one
/// means for a hint comment that follows.
#[derive(Default)]
struct Scan {
    /// Each significant token: what it is, and where it starts.
    seen: Vec<Seen>,
    /// The clause of each open parenthesis level (index 0: the top level).
    clauses: Vec<Clause>,
}

struct Seen {
    kind: SeenKind,
    position: Position,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum SeenKind {
    /// `SELECT`.
    Select,
    /// A token after which a table reference starts: FROM, JOIN, INTO, or
    /// a `,` of a FROM list.
    TableStart,
    /// A word that can be (part of) a name: its normalized text.
    Name(String),
    /// `.`
    Period,
    /// Anything else.
    Other,
}

impl Scan {
    fn clause(&mut self) -> &mut Clause {
        if self.clauses.is_empty() {
            self.clauses.push(Clause::Other);
        }
        let last = self.clauses.len() - 1;
        &mut self.clauses[last]
    }

    fn push(&mut self, tok: &TokenWithSpan) {
        let kind = match &tok.token {
            Token::LParen => {
                self.clause();
                self.clauses.push(Clause::Other);
                SeenKind::Other
            }
            Token::RParen => {
                if self.clauses.len() > 1 {
                    self.clauses.pop();
                }
                SeenKind::Other
            }
            Token::Comma if *self.clause() == Clause::From => SeenKind::TableStart,
            Token::Period => SeenKind::Period,
            Token::Word(w) if w.quote_style.is_none() => match w.keyword {
                Keyword::SELECT => {
                    *self.clause() = Clause::Other;
                    SeenKind::Select
                }
                Keyword::FROM => {
                    *self.clause() = Clause::From;
                    SeenKind::TableStart
                }
                Keyword::JOIN | Keyword::INTO => SeenKind::TableStart,
                Keyword::WHERE
                | Keyword::GROUP
                | Keyword::HAVING
                | Keyword::ORDER
                | Keyword::LIMIT
                | Keyword::OFFSET
                | Keyword::FETCH
                | Keyword::UNION
                | Keyword::EXCEPT
                | Keyword::INTERSECT
                | Keyword::WINDOW
                | Keyword::QUALIFY
                | Keyword::VALUES
                | Keyword::SET => {
                    *self.clause() = Clause::Other;
                    SeenKind::Other
                }
                Keyword::AS | Keyword::ON | Keyword::USING | Keyword::LATERAL => SeenKind::Other,
                _ => SeenKind::Name(w.value.to_lowercase()),
            },
            Token::Word(w) => SeenKind::Name(w.value.clone()),
            _ => SeenKind::Other,
        };
        self.seen.push(Seen {
            kind,
            position: tok.span.start.into(),
        });
    }

    /// The placement of a hint comment at `position` after the tokens seen
    /// so far, the index of the token it is attached to (`usize::MAX` for
    /// none) and that token's position.
    fn placement(&self, position: Position) -> (HintPlacement, usize, Position) {
        let Some(last) = self.seen.len().checked_sub(1) else {
            return (HintPlacement::Elsewhere, usize::MAX, position);
        };
        match &self.seen[last].kind {
            SeenKind::Select => (HintPlacement::QueryBlock, last, self.seen[last].position),
            SeenKind::Name(_) => {
                // Walk back over `name (. name)*`.
                let mut first = last;
                while first >= 2
                    && self.seen[first - 1].kind == SeenKind::Period
                    && matches!(self.seen[first - 2].kind, SeenKind::Name(_))
                {
                    first -= 2;
                }
                if first >= 1 && self.seen[first - 1].kind == SeenKind::TableStart {
                    let table = self.seen[first..=last]
                        .iter()
                        .filter_map(|s| match &s.kind {
                            SeenKind::Name(n) => Some(n.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join(".");
                    (
                        HintPlacement::Table { table },
                        last,
                        self.seen[first].position,
                    )
                } else {
                    (HintPlacement::Elsewhere, usize::MAX, position)
                }
            }
            _ => (HintPlacement::Elsewhere, usize::MAX, position),
        }
    }
}
