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
            DataFusionError::NotImplemented(what) => {
                return SqlError::Unsupported(planner_words(what));
            }
            _ => {}
        }
        SqlError::Plan(planner_words(&e.find_root().strip_backtrace()))
    }
}

/// The end DataFusion puts on an internal error: a request to report it to
/// DataFusion, which is not where a tenon user should go.
const BUG_REPORT: &str = "This issue was likely caused by a bug in DataFusion";

/// DataFusion's planner message `text` in tenon's words: its error-kind
/// prefixes and bug-report request removed, the messages users meet most
/// (a function's argument types, an unknown function, `[return_type]`,
/// a `Debug` dump of the syntax tree) rewritten.
pub(crate) fn planner_words(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(at) = text.find(BUG_REPORT) {
        text.truncate(at);
    }
    let text = crate::words::without_dependency_prefixes(&text);
    let text = text.trim().trim_end_matches('.').trim().to_string();
    if let Some(words) = signature_words(&text)
        .or_else(|| return_type_words(&text))
        .or_else(|| unknown_function_words(&text))
        .or_else(|| field_access_words(&text))
        .or_else(|| coercion_words(&text))
    {
        return words;
    }
    if ["Ident {", "Span(", "Location(", "BinaryOp {", "value: "]
        .iter()
        .any(|dump| text.contains(dump))
    {
        // a Debug dump of the syntax tree: keep only the sentence before it
        let head = text.split([':', '(']).next().unwrap_or("").trim();
        return format!("{head}: this construct is not supported; rewrite it in plainer SQL");
    }
    text
}

/// The text between `open` and the next `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}

/// `Function 'sum' failed to match any signature, errors: ... Function
/// 'sum' requires Decimal, but received String (DataType: Utf8View) ...`.
fn signature_words(text: &str) -> Option<String> {
    if !text.contains("failed to match any signature") {
        return None;
    }
    let name = between(text, "Function '", "'")?;
    let mut takes: Vec<&str> = Vec::new();
    let mut received = None;
    for part in text.split("requires ").skip(1) {
        let (wanted, rest) = part.split_once(", but received ")?;
        if !takes.contains(&wanted) {
            takes.push(wanted);
        }
        received.get_or_insert_with(|| {
            rest.split(").")
                .next()
                .unwrap_or(rest)
                .trim_end_matches(')')
        });
    }
    let received = received?.replace("(DataType: ", "(");
    let received = if received.contains('(') && !received.ends_with(')') {
        format!("{received})")
    } else {
        received
    };
    Some(format!(
        "function `{name}` does not take an argument of type {received}; it takes {}: cast \
         the argument (`CAST(x AS DOUBLE)`, ...) or use another function",
        takes.join(", ")
    ))
}

/// `[return_type] SUM not supported for Null`.
fn return_type_words(text: &str) -> Option<String> {
    let rest = text.strip_prefix("[return_type] ")?;
    let (name, ty) = rest.split_once(" not supported for ")?;
    Some(format!(
        "function `{}` does not take an argument of type {ty}; give it a column or a \
         typed value (`CAST(NULL AS BIGINT)`, ...)",
        name.to_lowercase()
    ))
}

/// `Invalid function 'row_number'.\nDid you mean 'power'?`: the
/// suggestion only when it is close to the name.
fn unknown_function_words(text: &str) -> Option<String> {
    let name = between(text, "Invalid function '", "'")?;
    let mut words = format!("unknown function `{name}`");
    if let Some(suggested) = between(text, "Did you mean '", "'")
        && edit_distance(name, suggested) <= 2.max(name.len() / 4)
    {
        words.push_str(&format!("; did you mean `{suggested}`?"));
    }
    Some(words)
}

/// `Dot access not supported for non-string expr: Identifier(...)`.
fn field_access_words(text: &str) -> Option<String> {
    if !text.starts_with("Dot access not supported") {
        return None;
    }
    let field = between(text, "value: \"", "\"").unwrap_or("a field");
    let position = between(text, "Location(", ")")
        .and_then(|p| p.split_once(','))
        .map(|(line, column)| format!(" (line {line}, column {})", column.trim()))
        .unwrap_or_default();
    Some(format!(
        "field access `.{field}`{position} on a value that is not a struct: `.` selects a \
         field of a struct column, or a column of a table (`t.{field}`)"
    ))
}

/// `Cannot coerce arithmetic expression Int64 - Utf8View to valid types`.
fn coercion_words(text: &str) -> Option<String> {
    let operation = between(
        text,
        "Cannot coerce arithmetic expression ",
        " to valid types",
    )?;
    Some(format!(
        "the operands of `{operation}` cannot be combined by the operator: cast one of them \
         (`CAST(x AS BIGINT)`, `CAST(x AS DOUBLE)`, ...)"
    ))
}

/// Levenshtein distance of two short names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}
