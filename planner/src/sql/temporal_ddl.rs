//! The DDL of temporal table functions, which Flink defines only through its
//! Table API (`createTemporalTableFunction(time, key)`):
//!
//! ```sql
//! CREATE [OR REPLACE] TEMPORAL TABLE FUNCTION rates AS rates_history(r_time, r_currency);
//! DROP TEMPORAL TABLE FUNCTION [IF EXISTS] rates;
//! ```
//!
//! The first argument is the table's time attribute, the others the key
//! columns. sqlparser has no such statement: it is read token by token.

use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use super::blocks::fold_ident;
use super::catalog::TemporalFunction;
use super::error::SqlError;
use super::statement::{DropObjects, SqlStatement};
use super::table_ddl::{ident_of, is_word};

/// A parsed `CREATE TEMPORAL TABLE FUNCTION name AS table(time, key, ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTemporalFunction {
    /// The function (names folded).
    pub function: TemporalFunction,
    /// `OR REPLACE`: replace a function of that name.
    pub or_replace: bool,
}

const SHAPE: &str = "CREATE [OR REPLACE] TEMPORAL TABLE FUNCTION name AS table(time_column, \
                     key_column [, ...])";
const DROP_SHAPE: &str = "DROP TEMPORAL TABLE FUNCTION [IF EXISTS] name [, ...]";

/// The statement's tokens without white space and comments.
struct Cursor<'a> {
    tokens: Vec<&'a TokenWithSpan>,
    at: usize,
    shape: &'static str,
}

impl<'a> Cursor<'a> {
    fn new(tokens: &'a [TokenWithSpan], shape: &'static str) -> Self {
        Cursor {
            tokens: tokens
                .iter()
                .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
                .collect(),
            at: 0,
            shape,
        }
    }

    fn location(&self) -> Location {
        match self.tokens.get(self.at) {
            Some(t) => t.span.start,
            None => self
                .tokens
                .last()
                .map_or(Location::new(0, 0), |t| t.span.end),
        }
    }

    fn error(&self, expected: &str) -> SqlError {
        let found = self.tokens.get(self.at).map_or_else(
            || "the end of the statement".to_string(),
            |t| format!("`{}`", t.token),
        );
        let l = self.location();
        SqlError::syntax(
            format!(
                "expected {expected}, found {found} (the form is `{}`)",
                self.shape
            ),
            l.line,
            l.column,
        )
    }

    /// Takes the unquoted word `word` if it is next.
    fn word(&mut self, word: &str) -> bool {
        let next = self.tokens.get(self.at).is_some_and(|t| is_word(t, word));
        if next {
            self.at += 1;
        }
        next
    }

    fn expect_word(&mut self, word: &str) -> Result<(), SqlError> {
        if self.word(word) {
            Ok(())
        } else {
            Err(self.error(word))
        }
    }

    fn token(&mut self, token: &Token) -> bool {
        let next = self.tokens.get(self.at).is_some_and(|t| &t.token == token);
        if next {
            self.at += 1;
        }
        next
    }

    fn name(&mut self, what: &str) -> Result<String, SqlError> {
        let ident = self.tokens.get(self.at).and_then(|t| ident_of(t));
        match ident {
            Some(ident) => {
                self.at += 1;
                if self
                    .tokens
                    .get(self.at)
                    .is_some_and(|t| t.token == Token::Period)
                {
                    return Err(self.error(&format!(
                        "{what} without a schema or catalog (tenon has one namespace)"
                    )));
                }
                Ok(fold_ident(&ident))
            }
            None => Err(self.error(what)),
        }
    }

    fn end(&self) -> Result<(), SqlError> {
        if self.at < self.tokens.len() {
            return Err(self.error("the end of the statement"));
        }
        Ok(())
    }
}

/// Whether `tokens` start `CREATE [OR REPLACE] TEMPORAL` or `DROP TEMPORAL`.
pub(super) fn is_temporal_function_ddl(tokens: &[TokenWithSpan]) -> bool {
    let mut c = Cursor::new(tokens, SHAPE);
    if c.word("CREATE") {
        if c.word("OR") {
            c.word("REPLACE");
        }
        return c.word("TEMPORAL");
    }
    c.word("DROP") && c.word("TEMPORAL")
}

/// Parses `CREATE ... TEMPORAL TABLE FUNCTION` or `DROP TEMPORAL TABLE
/// FUNCTION` (see the module docs).
pub(super) fn parse_temporal_function_ddl(
    tokens: &[TokenWithSpan],
) -> Result<SqlStatement, SqlError> {
    let mut c = Cursor::new(tokens, SHAPE);
    if c.word("DROP") {
        c.shape = DROP_SHAPE;
        c.expect_word("TEMPORAL")?;
        c.expect_word("TABLE")?;
        c.expect_word("FUNCTION")?;
        let if_exists = c.word("IF");
        if if_exists {
            c.expect_word("EXISTS")?;
        }
        let mut names = vec![c.name("the function's name")?];
        while c.token(&Token::Comma) {
            names.push(c.name("the function's name")?);
        }
        c.end()?;
        return Ok(SqlStatement::DropTemporalFunction(DropObjects {
            names,
            if_exists,
        }));
    }
    c.expect_word("CREATE")?;
    let or_replace = c.word("OR");
    if or_replace {
        c.expect_word("REPLACE")?;
    }
    c.expect_word("TEMPORAL")?;
    c.expect_word("TABLE")?;
    c.expect_word("FUNCTION")?;
    let name = c.name("the function's name")?;
    c.expect_word("AS")?;
    let table = c.name("the versioned table's name")?;
    if !c.token(&Token::LParen) {
        return Err(c.error("`(` and the table's time attribute"));
    }
    let time = c.name("the table's time attribute (its event-time or PROCTIME() column)")?;
    let mut key = Vec::new();
    while c.token(&Token::Comma) {
        key.push(c.name("a key column")?);
    }
    if key.is_empty() {
        return Err(c.error(
            "`,` and the key columns after the time attribute (which rows are versions of one \
             another)",
        ));
    }
    if !c.token(&Token::RParen) {
        return Err(c.error("`,` and a key column, or `)`"));
    }
    c.end()?;
    Ok(SqlStatement::CreateTemporalFunction(
        CreateTemporalFunction {
            function: TemporalFunction {
                name,
                table,
                time,
                key,
            },
            or_replace,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::statement::parse_statement;
    use super::*;

    #[test]
    fn create_and_drop_parse() {
        let s = parse_statement(
            "CREATE TEMPORAL TABLE FUNCTION Rates AS rates_history(r_time, \"R_Currency\")",
        )
        .unwrap();
        let SqlStatement::CreateTemporalFunction(f) = s else {
            panic!("{s:?}")
        };
        assert_eq!(
            f.function,
            TemporalFunction {
                name: "rates".into(),
                table: "rates_history".into(),
                time: "r_time".into(),
                key: vec!["R_Currency".into()],
            }
        );
        assert!(!f.or_replace);
        let s =
            parse_statement("create or replace temporal table function r as t(a, b, c)").unwrap();
        let SqlStatement::CreateTemporalFunction(f) = s else {
            panic!("{s:?}")
        };
        assert!(f.or_replace);
        assert_eq!(f.function.key, ["b", "c"]);
        let s = parse_statement("DROP TEMPORAL TABLE FUNCTION IF EXISTS rates, r2").unwrap();
        assert_eq!(
            s,
            SqlStatement::DropTemporalFunction(DropObjects {
                names: vec!["rates".into(), "r2".into()],
                if_exists: true,
            })
        );
    }

    #[test]
    fn malformed_statements_say_what_was_expected_and_where() {
        for (sql, expected, column) in [
            (
                "CREATE TEMPORAL TABLE FUNCTION rates AS t(r_time)",
                "key columns",
                49,
            ),
            (
                "CREATE TEMPORAL TABLE FUNCTION rates t(a, b)",
                "expected AS",
                38,
            ),
            (
                "CREATE TEMPORAL FUNCTION rates AS t(a, b)",
                "expected TABLE",
                17,
            ),
            (
                "CREATE TEMPORAL TABLE FUNCTION rates AS t(a, b) x",
                "end of the statement",
                49,
            ),
            (
                "CREATE TEMPORAL TABLE FUNCTION s.rates AS t(a, b)",
                "one namespace",
                33,
            ),
            ("DROP TEMPORAL TABLE FUNCTION", "function's name", 29),
        ] {
            let e = parse_statement(sql).unwrap_err();
            let SqlError::Syntax {
                message,
                line,
                column: c,
            } = &e
            else {
                panic!("{sql}: {e}")
            };
            assert!(message.contains(expected), "{sql}: {e}");
            assert_eq!((*line, *c), (1, column), "{sql}: {e}");
        }
    }
}
