//! Statements about the session rather than data, as Flink's SQL client
//! writes them: `SET 'key' = 'value'`, `SET` (list the settings),
//! `RESET 'key'`, `RESET`, `SHOW TABLES`, `DESCRIBE t` / `DESC t`, and
//! `EXPLAIN [PLAN FOR] query`. Parsed from tokens into
//! [`SqlStatement`]s; the session runs them.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::blocks::fold_ident;
use super::error::SqlError;
use super::statement::{Lines, SqlStatement, in_place};

/// The statement's words and symbols: white space and a trailing `;` left
/// out.
fn significant(tokens: &[TokenWithSpan]) -> Vec<&TokenWithSpan> {
    tokens
        .iter()
        .filter(|t| {
            !matches!(
                t.token,
                Token::Whitespace(_) | Token::SemiColon | Token::EOF
            )
        })
        .collect()
}

/// Whether `t` is the unquoted word `word` (any case).
fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Whether the statement starts with one of the words this module parses.
pub(super) fn is_session_statement(tokens: &[TokenWithSpan]) -> bool {
    significant(tokens).first().is_some_and(|t| {
        ["set", "reset", "show", "describe", "desc", "explain"]
            .iter()
            .any(|w| is_word(t, w))
    })
}

/// Parses a statement [`is_session_statement`] accepted.
pub(super) fn parse_session_statement(
    sql: &str,
    tokens: &[TokenWithSpan],
) -> Result<SqlStatement, SqlError> {
    let words = significant(tokens);
    let Some(first) = words.first() else {
        return Ok(SqlStatement::Query);
    };
    let rest = &words[1..];
    if is_word(first, "set") {
        parse_set(sql, rest)
    } else if is_word(first, "reset") {
        match rest {
            [] => Ok(SqlStatement::Reset(None)),
            [key] => Ok(SqlStatement::Reset(Some(setting_key(sql, rest, key)?))),
            _ => Ok(SqlStatement::Reset(Some(text_of(sql, rest)))),
        }
    } else if is_word(first, "show") {
        match rest {
            [t] if is_word(t, "tables") => Ok(SqlStatement::ShowTables),
            [t] if is_word(t, "views") => Ok(SqlStatement::ShowTables),
            _ => Err(SqlError::Unsupported(format!(
                "`SHOW {}`: tenon shows its tables with `SHOW TABLES` (views included), a \
                 table's columns with `DESCRIBE t`, and the settings with `SET`",
                text_of(sql, rest).trim()
            ))),
        }
    } else if is_word(first, "describe") || is_word(first, "desc") {
        let rest = match rest {
            [t, more @ ..] if is_word(t, "extended") && !more.is_empty() => more,
            _ => rest,
        };
        match rest {
            [t] => match &t.token {
                Token::Word(w) => Ok(SqlStatement::Describe(fold_ident(
                    &w.clone().into_ident(t.span),
                ))),
                other => Err(describe_usage(&format!("`{other}` is not a table name"))),
            },
            [] => Err(describe_usage("DESCRIBE without a table")),
            _ => Err(describe_usage(&format!(
                "`{}`: a qualified name or more than a name",
                text_of(sql, rest).trim()
            ))),
        }
    } else {
        parse_explain(sql, rest)
    }
}

fn describe_usage(what: &str) -> SqlError {
    SqlError::Unsupported(format!(
        "{what}: write `DESCRIBE t` (or `DESC t`) with the name of a table or view"
    ))
}

/// The source text of `tokens` (from the first's start to the last's end).
fn text_of(sql: &str, tokens: &[&TokenWithSpan]) -> String {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return String::new();
    };
    let lines = Lines::new(sql);
    let (begin, end) = (lines.offset(first.span.start), lines.offset(last.span.end));
    sql.get(begin..end.max(begin)).unwrap_or("").to_string()
}

/// A setting's key: a quoted string (`'table.exec.state.ttl'`, Flink's
/// form) or the words as written (`table.exec.state.ttl`).
fn setting_key(sql: &str, all: &[&TokenWithSpan], one: &TokenWithSpan) -> Result<String, SqlError> {
    Ok(match &one.token {
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
        Token::Word(w) if w.quote_style.is_some() => w.value.clone(),
        _ => text_of(sql, all).trim().to_string(),
    })
}

/// `SET` alone, or `SET key = value` (key and value quoted or not).
fn parse_set(sql: &str, rest: &[&TokenWithSpan]) -> Result<SqlStatement, SqlError> {
    if rest.is_empty() {
        return Ok(SqlStatement::Set(None));
    }
    let usage = |what: &str| {
        SqlError::Unsupported(format!(
            "{what}: write `SET 'key' = 'value'` (Flink's form; `SET` alone lists the settings, \
             `RESET 'key'` restores one)"
        ))
    };
    let Some(eq) = rest.iter().position(|t| t.token == Token::Eq) else {
        return Err(usage(&format!(
            "`SET {}` has no `=`",
            text_of(sql, rest).trim()
        )));
    };
    let (key, value) = (&rest[..eq], &rest[eq + 1..]);
    let key = match key {
        [] => return Err(usage("SET without a key before `=`")),
        [one] => setting_key(sql, key, one)?,
        _ => text_of(sql, key).trim().to_string(),
    };
    let value = match value {
        [] => return Err(usage(&format!("SET '{key}' without a value after `=`"))),
        [one] => setting_key(sql, value, one)?,
        _ => text_of(sql, value).trim().to_string(),
    };
    Ok(SqlStatement::Set(Some((key, value))))
}

/// `EXPLAIN [PLAN FOR] query`: the query's text, at its place.
fn parse_explain(sql: &str, rest: &[&TokenWithSpan]) -> Result<SqlStatement, SqlError> {
    let body = match rest {
        [plan, for_, body @ ..] if is_word(plan, "plan") && is_word(for_, "for") => body,
        [analyze, ..] if is_word(analyze, "analyze") => {
            return Err(SqlError::Unsupported(
                "`EXPLAIN ANALYZE` as a statement: run the query with `tenon query --analyze` \
                 (or `Session::explain_analyze`); `EXPLAIN PLAN FOR query` shows the plan"
                    .into(),
            ));
        }
        body => body,
    };
    let Some(start) = body.first() else {
        return Err(SqlError::Unsupported(
            "EXPLAIN without a query: write `EXPLAIN PLAN FOR SELECT ...`".into(),
        ));
    };
    let lines = Lines::new(sql);
    let end = body.last().map_or(sql.len(), |t| lines.offset(t.span.end));
    Ok(SqlStatement::Explain(in_place(
        &lines,
        start.span.start,
        end,
    )))
}

#[cfg(test)]
mod tests {
    use super::super::statement::parse_statement;
    use super::*;

    #[test]
    fn set_reset_show_describe_explain_parse() {
        let p = |s: &str| parse_statement(s).unwrap();
        assert_eq!(
            p("SET 'table.exec.state.ttl' = '1 h';"),
            SqlStatement::Set(Some(("table.exec.state.ttl".into(), "1 h".into())))
        );
        assert_eq!(
            p("set table.exec.state.ttl = 36 h"),
            SqlStatement::Set(Some(("table.exec.state.ttl".into(), "36 h".into())))
        );
        assert_eq!(p("SET"), SqlStatement::Set(None));
        assert_eq!(p("RESET"), SqlStatement::Reset(None));
        assert_eq!(
            p("RESET 'parallelism.default'"),
            SqlStatement::Reset(Some("parallelism.default".into()))
        );
        assert_eq!(p("SHOW TABLES"), SqlStatement::ShowTables);
        assert_eq!(
            p("DESCRIBE Orders"),
            SqlStatement::Describe("orders".into())
        );
        assert_eq!(
            p("desc \"Orders\""),
            SqlStatement::Describe("Orders".into())
        );
        assert_eq!(
            p("EXPLAIN PLAN FOR SELECT 1"),
            SqlStatement::Explain("                 SELECT 1".into())
        );
        assert!(parse_statement("SET 'a'").is_err());
        assert!(parse_statement("SHOW FUNCTIONS").is_err());
        assert!(parse_statement("EXPLAIN PLAN FOR").is_err());
    }
}
