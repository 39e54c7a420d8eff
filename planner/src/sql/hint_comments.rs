//! Hint comments (`/*+ ... */`) found with sqlparser's tokenizer, with their
//! positions.
//!
//! sqlparser keeps a hint block after `SELECT` as `Select::optimizer_hints`
//! but without its position, and drops a comment after a table name (the
//! place of a table hint, `t /*+ OPTIONS('k'='v') */`). The tokenizer keeps
//! both as `Whitespace::MultiLineComment` tokens with spans, so the front end
//! tokenizes the text once and looks up, for each `SELECT` keyword and each
//! table name of the AST (located by their spans), the hint comments that
//! directly follow it. Comments that follow neither are reported as
//! unattached.
//!
//! [`sql_tokens`] and [`hint_text`] are the one tokenizer of hint comments:
//! the hint module's own finder
//! ([`find_hint_comments`](crate::hints::find_hint_comments), which places
//! comments by the tokens before them, for use without the front end) reads
//! the same tokens.

use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, TokenizerError, Whitespace};

use super::dialect::TenonDialect;
use super::error::SqlError;

/// The raw text and position of one `/*+ ... */` comment, left for the hint
/// parser (`crate::hints`) to read.
///
/// `text` is everything between `/*+` and `*/`, untouched. `line` and `col`
/// (1-based) point at the `/` of `/*+`; the first character of `text` is at
/// `col + 3` on that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawHintBlock {
    /// The comment's content after the `+`, without the closing `*/`.
    pub text: String,
    /// 1-based line of the comment's `/`.
    pub line: u64,
    /// 1-based column of the comment's `/`.
    pub col: u64,
}

/// The hint comments of one SQL text, and which of them were claimed.
#[derive(Debug)]
pub(crate) struct HintComments {
    tokens: Vec<TokenWithSpan>,
    /// For each token: `Some(claimed)` when it is a hint comment.
    claimed: Vec<Option<bool>>,
}

/// sqlparser's tokens of `sql` in tenon's dialect, each with its span
/// (comments included, as white space).
///
/// # Errors
/// The tokenizer's error, with the tokens read before it (where the text
/// went wrong: an unclosed comment starts where the last token ended).
pub(crate) fn sql_tokens(
    sql: &str,
) -> Result<Vec<TokenWithSpan>, (TokenizerError, Vec<TokenWithSpan>)> {
    let mut tokens = Vec::new();
    match Tokenizer::new(&TenonDialect::default(), sql).tokenize_with_location_into_buf(&mut tokens)
    {
        Ok(()) => Ok(tokens),
        Err(e) => Err((e, tokens)),
    }
}

/// The text of a hint comment (`/*+ ... */`: everything after the `+`,
/// without the closing `*/`); `None` for every other token, plain comments
/// such as `/* + */` and `--+` included (H07).
pub(crate) fn hint_text(token: &Token) -> Option<&str> {
    match token {
        Token::Whitespace(Whitespace::MultiLineComment(c)) => c.strip_prefix('+'),
        _ => None,
    }
}

/// The hint comment `t` is, with its position.
fn raw_block(t: &TokenWithSpan) -> Option<RawHintBlock> {
    hint_text(&t.token).map(|text| RawHintBlock {
        text: text.to_string(),
        line: t.span.start.line,
        col: t.span.start.column,
    })
}

impl HintComments {
    /// Tokenizes `sql`.
    ///
    /// # Errors
    /// A tokenizer error (unclosed comment or string, ...) as a syntax
    /// error with its position.
    pub(crate) fn tokenize(sql: &str) -> Result<Self, SqlError> {
        let tokens = sql_tokens(sql).map_err(|(e, _)| SqlError::from(e))?;
        let claimed = tokens
            .iter()
            .map(|t| hint_text(&t.token).map(|_| false))
            .collect();
        Ok(HintComments { tokens, claimed })
    }

    /// Claims and returns the hint comments that follow the token starting at
    /// `start`, with only white space and comments between.
    pub(crate) fn claim_after(&mut self, start: Location) -> Vec<RawHintBlock> {
        let Some(index) = self.tokens.iter().position(|t| t.span.start == start) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (i, t) in self.tokens.iter().enumerate().skip(index + 1) {
            if !matches!(t.token, Token::Whitespace(_)) {
                break;
            }
            if let Some(raw) = raw_block(t) {
                self.claimed[i] = Some(true);
                found.push(raw);
            }
        }
        found
    }

    /// The hint comments nobody claimed: neither after `SELECT` nor after a
    /// table name.
    pub(crate) fn unclaimed(&self) -> Vec<RawHintBlock> {
        self.tokens
            .iter()
            .zip(&self.claimed)
            .filter(|(_, c)| **c == Some(false))
            .filter_map(|(t, _)| raw_block(t))
            .collect()
    }
}
