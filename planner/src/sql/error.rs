//! The SQL front end's error type.

use datafusion_common::{DataFusionError, SchemaError};
use sqlparser::parser::ParserError;
use sqlparser::tokenizer::TokenizerError;

/// What can go wrong between SQL text and a [`PlannedQuery`](super::PlannedQuery).
///
/// Syntax errors carry the line and column (1-based) of the problem; unknown
/// tables and columns name themselves and what is known instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    /// The text is not valid SQL (or hints are misplaced, H04).
    #[error("SQL syntax error at line {line}, column {column}: {message}")]
    Syntax {
        /// What the parser expected or found.
        message: String,
        /// 1-based line of the problem (0 when the parser did not say).
        line: u64,
        /// 1-based column of the problem (0 when the parser did not say).
        column: u64,
    },
    /// A table (or view) that the catalog does not hold.
    #[error("unknown table `{name}`; known tables and views: {}", list(known))]
    UnknownTable {
        /// The table as written in the query.
        name: String,
        /// The names registered in the catalog.
        known: Vec<String>,
    },
    /// A column that none of the tables in scope has.
    #[error("unknown column `{name}`; columns in scope: {}", list(valid))]
    UnknownColumn {
        /// The column as written (qualified when it was qualified).
        name: String,
        /// The columns in scope, qualified.
        valid: Vec<String>,
    },
    /// A statement or construct the front end does not plan (yet).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The statement is larger or deeper than tenon plans: which limit,
    /// and how to stay within it.
    #[error("statement too large: {0}")]
    Limit(String),
    /// Any other planning error (types, ambiguous names, ...).
    #[error("planning error: {0}")]
    Plan(String),
    /// An error while planning the body of a view the query reads (its
    /// positions are positions in the view's `CREATE VIEW` statement).
    #[error("in view `{view}`: {error}")]
    InView {
        /// The view.
        view: String,
        /// What went wrong in its body.
        error: Box<SqlError>,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(", ")
    }
}

impl SqlError {
    /// A syntax error at a position.
    pub(crate) fn syntax(message: impl Into<String>, line: u64, column: u64) -> Self {
        SqlError::Syntax {
            message: message.into(),
            line,
            column,
        }
    }
}

impl From<TokenizerError> for SqlError {
    fn from(e: TokenizerError) -> Self {
        SqlError::syntax(e.message, e.location.line, e.location.column)
    }
}

impl From<ParserError> for SqlError {
    fn from(e: ParserError) -> Self {
        let message = match e {
            ParserError::TokenizerError(m) | ParserError::ParserError(m) => m,
            ParserError::RecursionLimitExceeded => {
                return SqlError::Limit(format!(
                    "it nests expressions and subqueries deeper than the SQL parser's limit of \
                     {} levels (each parenthesis, subquery, NOT, CASE and function call is a \
                     level); flatten it (`x IN (a, b, ...)` for a chain of `x = a OR x = b`, \
                     a WITH clause or a view for a deep subquery)",
                    super::dialect::NESTING_LIMIT
                ));
            }
        };
        // sqlparser appends the position as " at Line: L, Column: C".
        if let Some(at) = message.rfind(" at Line: ") {
            let (text, pos) = message.split_at(at);
            let mut numbers = pos
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse::<u64>().ok());
            if let (Some(line), Some(column)) = (numbers.next(), numbers.next()) {
                return SqlError::syntax(text, line, column);
            }
        }
        SqlError::syntax(message, 0, 0)
    }
}

impl From<DataFusionError> for SqlError {
    fn from(e: DataFusionError) -> Self {
        match e.find_root() {
            DataFusionError::External(inner) => {
                if let Some(sql) = inner.downcast_ref::<SqlError>() {
                    return sql.clone();
                }
            }
            DataFusionError::SchemaError(schema, _) => {
                if let SchemaError::FieldNotFound {
                    field,
                    valid_fields,
                } = schema.as_ref()
                {
                    return SqlError::UnknownColumn {
                        name: field.flat_name(),
                        valid: valid_fields.iter().map(|c| c.flat_name()).collect(),
                    };
                }
            }
            DataFusionError::SQL(parser, _) => return SqlError::from(parser.as_ref().clone()),
            DataFusionError::NotImplemented(what) => return SqlError::Unsupported(what.clone()),
            _ => {}
        }
        SqlError::Plan(e.find_root().to_string())
    }
}
