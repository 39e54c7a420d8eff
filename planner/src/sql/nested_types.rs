//! Flink's nested column types in `CREATE TABLE`: `ARRAY<T>`, `MAP<K, V>`,
//! `MULTISET<T>` and `ROW<name T, ...>` (or `ROW(name T, ...)`), nested to
//! any depth (docs/nested.md N01). sqlparser reads none of `MAP<...>`,
//! `MULTISET<...>`, `ROW<...>` in a column list, so they are read here,
//! token by token, into Arrow types, and each is replaced in the
//! statement by a placeholder type that the column's Arrow type replaces
//! once the statement is parsed. The scalar types inside them are read as
//! a column of that type would be (DataFusion's mapping).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use datafusion_sql::planner::SqlToRel;
use sqlparser::ast::{ColumnDef, Ident};
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use super::blocks::fold_ident;
use super::catalog::Catalog;
use super::error::SqlError;
use super::table_ddl::is_word;

/// The prefix of the placeholder type names (`__tenon_nested_0`, ...):
/// the `n`th nested type of the statement.
pub(super) const PLACEHOLDER: &str = "__tenon_nested_";

const NESTED: [&str; 4] = ["ARRAY", "MAP", "MULTISET", "ROW"];

/// The column list's tokens with each nested type replaced by a
/// placeholder word, and the Arrow types of the placeholders in order.
///
/// # Errors
/// A nested type that does not parse, with its position and the forms.
pub(super) fn cut_nested_types(
    tokens: &[TokenWithSpan],
) -> Result<(Vec<TokenWithSpan>, Vec<DataType>), SqlError> {
    let Some(open) = column_list_start(tokens) else {
        return Ok((tokens.to_vec(), Vec::new()));
    };
    let mut out: Vec<TokenWithSpan> = tokens[..=open].to_vec();
    let mut types = Vec::new();
    let mut depth = 1usize;
    let mut i = open + 1;
    while i < tokens.len() {
        let t = &tokens[i];
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth >= 1 && starts_nested(tokens, i) {
            let mut reader = TypeReader {
                tokens,
                at: i,
                pending_gt: 0,
            };
            let ty = reader.data_type()?;
            if reader.pending_gt > 0 {
                return Err(reader.error("the end of the type"));
            }
            let mut placeholder = t.clone();
            placeholder.token = Token::Word(Word {
                value: format!("{PLACEHOLDER}{}", types.len()),
                quote_style: None,
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            });
            out.push(placeholder);
            types.push(ty);
            i = reader.at;
            continue;
        }
        out.push(t.clone());
        i += 1;
        if depth == 0 {
            out.extend_from_slice(&tokens[i..]);
            break;
        }
    }
    Ok((out, types))
}

/// The index of the column list's `(`: the first after `TABLE`.
fn column_list_start(tokens: &[TokenWithSpan]) -> Option<usize> {
    let table = tokens.iter().position(|t| is_word(t, "TABLE"))?;
    tokens
        .iter()
        .enumerate()
        .skip(table)
        .find(|(_, t)| t.token == Token::LParen)
        .map(|(i, _)| i)
}

/// The next token at or after `i` that is not white space.
fn next_significant(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    (i..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
}

/// Whether a nested type starts at `i`: `ARRAY <`, `MAP <`, `MULTISET <`,
/// `ROW <` or `ROW (` after a column or field name.
fn starts_nested(tokens: &[TokenWithSpan], i: usize) -> bool {
    let t = &tokens[i];
    if !NESTED.iter().any(|w| is_word(t, w)) {
        return false;
    }
    // a type follows a name: the word before it
    let before = (0..i)
        .rev()
        .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)));
    if !before.is_some_and(|j| matches!(tokens[j].token, Token::Word(_))) {
        return false;
    }
    match next_significant(tokens, i + 1).map(|j| &tokens[j].token) {
        Some(Token::Lt) => true,
        Some(Token::LParen) => is_word(t, "ROW"),
        _ => false,
    }
}

/// The `>` a `>>` token leaves to be taken.
static GT: Token = Token::Gt;

/// Reads one type from the tokens.
struct TypeReader<'a> {
    tokens: &'a [TokenWithSpan],
    at: usize,
    /// `>` still to be taken from a `>>` token already passed.
    pending_gt: usize,
}

impl TypeReader<'_> {
    fn skip_space(&mut self) {
        while self
            .tokens
            .get(self.at)
            .is_some_and(|t| matches!(t.token, Token::Whitespace(_)))
        {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<&Token> {
        self.skip_space();
        if self.pending_gt > 0 {
            return Some(&GT);
        }
        self.tokens.get(self.at).map(|t| &t.token)
    }

    fn error(&self, expected: &str) -> SqlError {
        let (found, at) = match self.tokens.get(self.at) {
            Some(t) => (format!("`{}`", t.token), t.span.start),
            None => (
                "the end of the statement".to_string(),
                self.tokens
                    .last()
                    .map_or(sqlparser::tokenizer::Location::new(0, 0), |t| t.span.end),
            ),
        };
        SqlError::syntax(
            format!(
                "expected {expected} in a nested type, found {found} (the forms are \
                 `ARRAY<T>`, `MAP<K, V>`, `MULTISET<T>`, `ROW<name T, ...>`)"
            ),
            at.line,
            at.column,
        )
    }

    /// Takes `token` if it is next.
    fn take(&mut self, token: &Token) -> bool {
        if self.peek() != Some(token) {
            return false;
        }
        if *token == Token::Gt && self.pending_gt > 0 {
            self.pending_gt -= 1;
        } else {
            self.at += 1;
        }
        true
    }

    /// Takes a closing `>` (half of a `>>`).
    fn close(&mut self) -> Result<(), SqlError> {
        if self.take(&Token::Gt) {
            return Ok(());
        }
        if self.peek() == Some(&Token::ShiftRight) {
            self.at += 1;
            self.pending_gt += 1;
            return Ok(());
        }
        Err(self.error("`>`"))
    }

    /// A type, and `NOT NULL` after it: the type and whether it is
    /// nullable.
    fn element(&mut self) -> Result<(DataType, bool), SqlError> {
        let ty = self.data_type()?;
        let mut nullable = true;
        self.skip_space();
        if self.pending_gt == 0 && self.tokens.get(self.at).is_some_and(|t| is_word(t, "NOT")) {
            self.at += 1;
            self.skip_space();
            if !self.tokens.get(self.at).is_some_and(|t| is_word(t, "NULL")) {
                return Err(self.error("NULL after NOT"));
            }
            self.at += 1;
            nullable = false;
        } else if self.pending_gt == 0
            && self.tokens.get(self.at).is_some_and(|t| is_word(t, "NULL"))
        {
            self.at += 1;
        }
        Ok((ty, nullable))
    }

    fn data_type(&mut self) -> Result<DataType, SqlError> {
        self.skip_space();
        let start = self.at;
        let tokens = self.tokens;
        if starts_nested_here(tokens, start) {
            let word = &tokens[start];
            self.at += 1;
            let angle = self.take(&Token::Lt);
            if !angle && !self.take(&Token::LParen) {
                return Err(self.error("`<`"));
            }
            let ty = if is_word(word, "ARRAY") {
                let (t, nullable) = self.element()?;
                DataType::List(Arc::new(Field::new("item", t, nullable)))
            } else if is_word(word, "MULTISET") {
                let (t, _) = self.element()?;
                tenon_kernels::multiset_type(t)
            } else if is_word(word, "MAP") {
                let (k, _) = self.element()?;
                if !self.take(&Token::Comma) {
                    return Err(self.error("`,` between the key and value types of MAP"));
                }
                let (v, nullable) = self.element()?;
                let entries = Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("key", k, false),
                        Field::new("value", v, nullable),
                    ])),
                    false,
                );
                DataType::Map(Arc::new(entries), false)
            } else {
                self.row_fields()?
            };
            if angle {
                self.close()?;
            } else if !self.take(&Token::RParen) {
                return Err(self.error("`)`"));
            }
            return Ok(ty);
        }
        self.scalar()
    }

    /// `name T [NOT NULL] ['comment'], ...` of a ROW.
    fn row_fields(&mut self) -> Result<DataType, SqlError> {
        let mut fields = Vec::new();
        loop {
            self.skip_space();
            let tokens = self.tokens;
            let Some(t) = tokens.get(self.at).filter(|_| self.pending_gt == 0) else {
                return Err(self.error("a field name"));
            };
            let Token::Word(w) = &t.token else {
                return Err(self.error("a field name"));
            };
            let name = fold_ident(&w.clone().into_ident(t.span));
            self.at += 1;
            let (ty, nullable) = self.element()?;
            // a field's description, as Flink allows
            if matches!(self.peek(), Some(Token::SingleQuotedString(_))) {
                self.at += 1;
            }
            fields.push(Field::new(name, ty, nullable));
            if !self.take(&Token::Comma) {
                break;
            }
        }
        Ok(DataType::Struct(Fields::from(fields)))
    }

    /// A type that is not nested: its tokens up to a `,`, `>` or `)` (or
    /// NOT NULL, a comment) outside parentheses, read as a column of that
    /// type would be.
    fn scalar(&mut self) -> Result<DataType, SqlError> {
        let start = self.at;
        let mut depth = 0usize;
        while let Some(t) = self.tokens.get(self.at) {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth > 0 => depth -= 1,
                Token::Comma | Token::Gt | Token::ShiftRight | Token::RParen if depth == 0 => {
                    break;
                }
                Token::SingleQuotedString(_) if depth == 0 => break,
                Token::Word(_) if depth == 0 && (is_word(t, "NOT") || is_word(t, "NULL")) => break,
                _ => {}
            }
            self.at += 1;
        }
        let text: String = self.tokens[start..self.at]
            .iter()
            .map(|t| t.token.to_string())
            .collect();
        if text.trim().is_empty() {
            return Err(self.error("a type"));
        }
        let data_type = super::dialect::parser()
            .try_with_sql(&text)?
            .parse_data_type()?;
        let column = ColumnDef {
            name: Ident::new("x"),
            data_type,
            options: Vec::new(),
        };
        let catalog = Catalog::new();
        let schema = SqlToRel::new(&catalog)
            .build_schema(vec![column])
            .map_err(SqlError::from)?;
        Ok(schema.field(0).data_type().clone())
    }
}

/// Whether a nested type's keyword and its `<` (or ROW's `(`) start at
/// `i`, in a type position already known.
fn starts_nested_here(tokens: &[TokenWithSpan], i: usize) -> bool {
    let Some(t) = tokens.get(i) else {
        return false;
    };
    NESTED.iter().any(|w| is_word(t, w))
        && match next_significant(tokens, i + 1).map(|j| &tokens[j].token) {
            Some(Token::Lt) => true,
            Some(Token::LParen) => is_word(t, "ROW"),
            _ => false,
        }
}

/// The Arrow type of a placeholder type name (`__tenon_nested_<n>`).
pub(super) fn placeholder_type(name: &str, types: &[DataType]) -> Option<DataType> {
    let n: usize = name
        .strip_prefix(PLACEHOLDER)
        .and_then(|n| n.parse().ok())?;
    types.get(n).cloned()
}
