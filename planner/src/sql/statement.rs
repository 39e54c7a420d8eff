//! Statements beyond queries: scripts split into statements, and the DDL a
//! session runs (`CREATE [TEMPORARY] VIEW`, `DROP VIEW`, Flink-style
//! `CREATE TABLE ... WITH (...)` (parsed in `table_ddl`), `DROP TABLE`,
//! `CREATE / DROP TEMPORAL TABLE FUNCTION` (`temporal_ddl`)), and
//! `ANALYZE [TABLE] t`, parsed into plain values.
//!
//! The meaning of a `CREATE TABLE`'s options (connector, path, format, ...)
//! is the session's: here they are only read as `'key' = 'value'` pairs.

use arrow_schema::SchemaRef;
use sqlparser::ast::{ObjectName, ObjectNamePart, ObjectType, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

use super::blocks::fold_ident;
use super::catalog::{TableTime, ViewDef};
use super::dialect::TenonDialect;
use super::error::SqlError;
use super::session_statements::{is_session_statement, parse_session_statement};
use super::table_ddl::{is_create_table, parse_create_table};
use super::temporal_ddl::{
    CreateTemporalFunction, is_temporal_function_ddl, parse_temporal_function_ddl,
};

/// One statement of a script, as [`split_statements`] cuts it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptStatement {
    /// Its number in the script, from 1 (empty statements are not counted).
    pub number: usize,
    /// The 1-based line of the script where it starts.
    pub line: u64,
    /// Its text, without the `;`, preceded by as many line breaks and
    /// spaces as the script had before it: line and column numbers in
    /// errors about it are the script's. (A statement that starts beyond
    /// column 4096 of its line starts at column 1 of its own text: its
    /// columns count from its start.)
    pub text: String,
}

impl ScriptStatement {
    /// The statement's first line, trimmed (for messages).
    pub fn first_line(&self) -> &str {
        self.text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
    }
}

/// A statement, classified for a session.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlStatement {
    /// A query (SELECT, UNION, WITH, VALUES ...): plan it with
    /// [`plan_sql`](super::plan_sql).
    Query,
    /// `CREATE [OR REPLACE] [TEMPORARY] VIEW [IF NOT EXISTS] v [(cols)] AS query`.
    CreateView(CreateView),
    /// `DROP [TEMPORARY] VIEW [IF EXISTS] v [, ...]`.
    DropView(DropObjects),
    /// `CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] t (cols) WITH (...)`.
    CreateTable(CreateTable),
    /// `DROP [TEMPORARY] TABLE [IF EXISTS] t [, ...]`.
    DropTable(DropObjects),
    /// `CREATE [OR REPLACE] TEMPORAL TABLE FUNCTION f AS t(time, key, ...)`.
    CreateTemporalFunction(CreateTemporalFunction),
    /// `DROP TEMPORAL TABLE FUNCTION [IF EXISTS] f [, ...]`.
    DropTemporalFunction(DropObjects),
    /// `ANALYZE [TABLE] t`: compute table `t`'s column statistics now
    /// (the table's name, folded).
    Analyze(String),
    /// `SET 'key' = 'value'`: change a setting (tenon's or Flink's name,
    /// as written); `SET` alone (`None`): list the settings.
    Set(Option<(String, String)>),
    /// `RESET 'key'`: a setting back to its default; `RESET` alone
    /// (`None`): every setting.
    Reset(Option<String>),
    /// `SHOW TABLES`: the tables and views.
    ShowTables,
    /// `DESCRIBE t` / `DESC t`: table or view `t`'s columns (its name,
    /// folded).
    Describe(String),
    /// `EXPLAIN [PLAN FOR] query`: the query's plan as rows (the query's
    /// text, at its place in the statement).
    Explain(String),
}

impl SqlStatement {
    /// Whether the statement gives rows (a query, `SET` alone, `SHOW
    /// TABLES`, `DESCRIBE`, `EXPLAIN`), which `Session::sql` returns as a
    /// query's result; the others change the session and give none.
    pub fn gives_rows(&self) -> bool {
        matches!(
            self,
            SqlStatement::Query
                | SqlStatement::Set(None)
                | SqlStatement::ShowTables
                | SqlStatement::Describe(_)
                | SqlStatement::Explain(_)
        )
    }

    /// Whether the statement changes the session's settings (`SET 'k' =
    /// 'v'`, `RESET`), which takes the session mutably
    /// (`Session::execute_mut`).
    pub fn changes_settings(&self) -> bool {
        matches!(self, SqlStatement::Set(Some(_)) | SqlStatement::Reset(_))
    }
}

/// A parsed `CREATE VIEW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateView {
    /// The view: name, body text (at its place in the statement) and
    /// column names.
    pub view: ViewDef,
    /// `OR REPLACE`: replace a view of that name.
    pub or_replace: bool,
    /// `IF NOT EXISTS`: do nothing when a view of that name exists.
    pub if_not_exists: bool,
}

/// A parsed `DROP VIEW` or `DROP TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropObjects {
    /// The names, folded.
    pub names: Vec<String>,
    /// `IF EXISTS`: a name that does not exist is not an error.
    pub if_exists: bool,
}

/// A parsed `CREATE TABLE t (col TYPE [NOT NULL], ...) WITH ('k' = 'v', ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    /// The table's name, folded.
    pub name: String,
    /// The declared columns: names folded, SQL types as Arrow types
    /// (DataFusion's mapping: `STRING`/`VARCHAR` are Utf8View, `INT` is
    /// Int32, `BIGINT` Int64, `TIMESTAMP(3)` milliseconds, ...), `NOT NULL`
    /// as non-nullable. `TIMESTAMP_LTZ(p)` is a timestamp in UTC, a
    /// `PROCTIME()` column is `Timestamp(Millisecond, "UTC")` not null, at
    /// its declared place, and PRIMARY KEY columns are NOT NULL (Flink's
    /// rule).
    pub schema: SchemaRef,
    /// The `WITH (...)` options, in written order, keys as written.
    pub options: Vec<(String, String)>,
    /// `OR REPLACE`: replace a table of that name.
    pub or_replace: bool,
    /// `IF NOT EXISTS`: do nothing when a table of that name exists.
    pub if_not_exists: bool,
    /// The PRIMARY KEY, WATERMARK and PROCTIME() column it declares
    /// (`versions` is the session's to fill in).
    pub time: TableTime,
}

/// Byte offsets of line starts, to turn token locations into offsets.
pub(super) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last location looked up on a line: `(line start, column,
    /// offset)`, so that locations met in order along one long line cost
    /// the characters between them, not the line's from its start.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines {
            text,
            starts,
            last: std::cell::Cell::new((0, 0, 0)),
        }
    }

    /// The byte offset of a (1-based, columns in characters) location.
    pub(super) fn offset(&self, at: Location) -> usize {
        let Some(&start) = usize::try_from(at.line)
            .ok()
            .and_then(|l| l.checked_sub(1))
            .and_then(|l| self.starts.get(l))
        else {
            return self.text.len();
        };
        let column = usize::try_from(at.column.saturating_sub(1)).unwrap_or(usize::MAX);
        let (last_start, last_column, last_offset) = self.last.get();
        let (from_column, from) = if last_start == start && last_column <= column {
            (last_column, last_offset)
        } else {
            (0, start)
        };
        let offset = self.text[from..]
            .char_indices()
            .nth(column - from_column)
            .map_or(self.text.len(), |(i, _)| from + i);
        if offset < self.text.len() {
            self.last.set((start, column, offset));
        }
        offset
    }
}

/// The most spaces put before a statement to give it its column in the
/// script: a statement further along a line (the ten thousandth on one
/// line) starts its own text at column 1, or a script of many statements
/// on one line would cost the square of its length in padding.
const MOST_PADDING_COLUMNS: usize = 4096;

/// The text from `at` to `end` of `text`, preceded by line breaks and
/// spaces that put it at `at` again.
pub(super) fn in_place(lines: &Lines<'_>, at: Location, end: usize) -> String {
    padded(lines, at, lines.offset(at), end)
}

/// [`in_place`] with the byte offset of `at` known (`begin`).
fn padded(lines: &Lines<'_>, at: Location, begin: usize, end: usize) -> String {
    let begin = begin.min(end);
    let line_breaks = usize::try_from(at.line.saturating_sub(1)).unwrap_or(0);
    let spaces = usize::try_from(at.column.saturating_sub(1))
        .unwrap_or(0)
        .min(MOST_PADDING_COLUMNS + 1);
    let spaces = if spaces > MOST_PADDING_COLUMNS {
        0
    } else {
        spaces
    };
    let mut s = String::with_capacity(line_breaks + spaces + end - begin);
    s.extend(std::iter::repeat_n('\n', line_breaks));
    s.extend(std::iter::repeat_n(' ', spaces));
    s.push_str(&lines.text[begin..end]);
    s
}

fn tokenize(sql: &str) -> Result<Vec<TokenWithSpan>, SqlError> {
    Ok(Tokenizer::new(&TenonDialect::default(), sql).tokenize_with_location()?)
}

/// Splits a script into its statements at the `;` between them (not those
/// inside strings, quoted names or comments). Statements with nothing but
/// white space and comments are dropped.
///
/// # Errors
/// A tokenizer error (an unclosed string or comment), with its position.
///
/// # Examples
/// ```
/// use tenon_planner::sql::split_statements;
///
/// let script = "CREATE VIEW v AS SELECT ';' AS s;\n\n-- the query\nSELECT * FROM v;";
/// let statements = split_statements(script).unwrap();
/// assert_eq!(statements.len(), 2);
/// assert_eq!(statements[1].number, 2);
/// assert_eq!(statements[1].line, 4);
/// assert_eq!(statements[1].first_line(), "SELECT * FROM v");
/// assert_eq!(statements[1].text.trim(), "SELECT * FROM v");
/// ```
pub fn split_statements(script: &str) -> Result<Vec<ScriptStatement>, SqlError> {
    let tokens = tokenize(script)?;
    let lines = Lines::new(script);
    let mut out = Vec::new();
    // Each statement's start with its byte offset, found in token order
    // (so that locations along one long line are found from the last).
    let mut start: Option<(Location, usize)> = None;
    for t in &tokens {
        match &t.token {
            Token::SemiColon | Token::EOF => {
                if let Some((at, begin)) = start.take() {
                    let end = lines.offset(t.span.start);
                    out.push(ScriptStatement {
                        number: out.len() + 1,
                        line: at.line,
                        text: padded(&lines, at, begin, end),
                    });
                }
            }
            Token::Whitespace(_) => {}
            _ => {
                if start.is_none() {
                    start = Some((t.span.start, lines.offset(t.span.start)));
                }
            }
        }
    }
    if let Some((at, begin)) = start {
        out.push(ScriptStatement {
            number: out.len() + 1,
            line: at.line,
            text: padded(&lines, at, begin, script.len()),
        });
    }
    Ok(out)
}

/// The first keyword of a statement, skipping white space and comments.
fn first_keyword(tokens: &[TokenWithSpan]) -> Option<Keyword> {
    tokens.iter().find_map(|t| match &t.token {
        Token::Whitespace(_) => None,
        Token::Word(w) => Some(w.keyword),
        _ => Some(Keyword::NoKeyword),
    })
}

/// Classifies one statement and parses it if it is DDL. A query is only
/// recognised (by its first word), not parsed: [`plan_sql`](super::plan_sql)
/// parses it.
///
/// # Errors
/// [`SqlError::Syntax`] for DDL that does not parse;
/// [`SqlError::Unsupported`] for DDL tenon does not run (`CREATE TABLE AS`,
/// materialized views, qualified names, column defaults, computed columns
/// other than `PROCTIME()`, METADATA columns, a PRIMARY KEY without NOT
/// ENFORCED, a WATERMARK on a column that is not a timestamp or date, ...)
/// and for other statements (`INSERT`, `SHOW`, ...), [`SqlError::Plan`]
/// for a column type DataFusion has no Arrow type for.
///
/// # Examples
/// ```
/// use tenon_planner::sql::{SqlStatement, parse_statement};
///
/// let ddl = "CREATE TABLE t (id BIGINT NOT NULL, name STRING) \
///            WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv')";
/// let SqlStatement::CreateTable(t) = parse_statement(ddl).unwrap() else { panic!() };
/// assert_eq!(t.name, "t");
/// assert!(!t.schema.field(0).is_nullable());
/// assert_eq!(t.options[2], ("format".to_string(), "csv".to_string()));
///
/// let view = "CREATE VIEW v AS SELECT /*+ BROADCAST(t) */ * FROM t";
/// let SqlStatement::CreateView(v) = parse_statement(view).unwrap() else { panic!() };
/// // the body keeps its hint comment and its place in the statement
/// assert_eq!(v.view.sql, "                 SELECT /*+ BROADCAST(t) */ * FROM t");
/// assert_eq!(parse_statement("SELECT 1").unwrap(), SqlStatement::Query);
/// ```
pub fn parse_statement(sql: &str) -> Result<SqlStatement, SqlError> {
    let tokens = tokenize(sql)?;
    if is_session_statement(&tokens) {
        return parse_session_statement(sql, &tokens);
    }
    if first_keyword(&tokens) == Some(Keyword::ANALYZE) {
        return parse_analyze(&tokens);
    }
    if !matches!(
        first_keyword(&tokens),
        Some(Keyword::CREATE | Keyword::DROP)
    ) {
        return Ok(SqlStatement::Query);
    }
    if is_temporal_function_ddl(&tokens) {
        return parse_temporal_function_ddl(&tokens);
    }
    if is_create_table(&tokens) {
        return parse_create_table(sql, &tokens);
    }
    let mut statements = super::dialect::parser()
        .with_tokens_with_locations(tokens.clone())
        .parse_statements()?;
    if statements.len() != 1 {
        return Err(SqlError::Unsupported(format!(
            "{} statements: run one statement at a time (or a script)",
            statements.len()
        )));
    }
    match statements.remove(0) {
        Statement::CreateView(v) => {
            if v.materialized || v.or_alter || v.to.is_some() {
                return Err(SqlError::Unsupported(
                    "materialized views and CREATE OR ALTER VIEW: tenon views are named queries, \
                     `CREATE [OR REPLACE] [TEMPORARY] VIEW v AS SELECT ...`"
                        .into(),
                ));
            }
            let name = single_name(&v.name, "view")?;
            let body = view_body(sql, &tokens)
                .ok_or_else(|| SqlError::Unsupported("CREATE VIEW without `AS query`".into()))?;
            Ok(SqlStatement::CreateView(CreateView {
                view: ViewDef {
                    name,
                    sql: body,
                    columns: v.columns.iter().map(|c| fold_ident(&c.name)).collect(),
                },
                or_replace: v.or_replace,
                if_not_exists: v.if_not_exists,
            }))
        }
        Statement::Drop {
            object_type,
            if_exists,
            names,
            ..
        } => {
            let kind = match object_type {
                ObjectType::Table => "table",
                ObjectType::View => "view",
                other => {
                    return Err(SqlError::Unsupported(format!(
                        "DROP {other}: tenon drops tables and views"
                    )));
                }
            };
            let drop = DropObjects {
                names: names
                    .iter()
                    .map(|n| single_name(n, kind))
                    .collect::<Result<_, _>>()?,
                if_exists,
            };
            Ok(match object_type {
                ObjectType::Table => SqlStatement::DropTable(drop),
                _ => SqlStatement::DropView(drop),
            })
        }
        other => Err(SqlError::Unsupported(format!(
            "statement `{} ...`: tenon runs queries, CREATE/DROP VIEW and CREATE/DROP TABLE",
            other
                .to_string()
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        ))),
    }
}

/// `ANALYZE [TABLE] name [;]`, tokenized: the name, folded. Hive's and
/// Spark's clauses (`PARTITION`, `COMPUTE STATISTICS`, `FOR COLUMNS`) are
/// errors: tenon's ANALYZE computes every column's statistics.
fn parse_analyze(tokens: &[TokenWithSpan]) -> Result<SqlStatement, SqlError> {
    let words: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::SemiColon))
        .collect();
    let usage = |what: String| {
        SqlError::Unsupported(format!(
            "{what}: write `ANALYZE TABLE name`, which computes the row count and every \
             column's null count, minimum, maximum and distinct count"
        ))
    };
    let rest = match words.get(1).map(|t| &t.token) {
        Some(Token::Word(w)) if w.keyword == Keyword::TABLE && w.quote_style.is_none() => {
            &words[2..]
        }
        _ => &words[1..],
    };
    match rest {
        [] => Err(usage("ANALYZE without a table".into())),
        [t] => match &t.token {
            Token::Word(w) => Ok(SqlStatement::Analyze(fold_ident(
                &w.clone().into_ident(t.span),
            ))),
            other => Err(usage(format!("ANALYZE `{other}`: not a table name"))),
        },
        [t, more, ..] => {
            let after = match &t.token {
                Token::Word(_) => format!("`{more}` after the table name"),
                other => format!("`{other}`"),
            };
            Err(usage(format!(
                "ANALYZE {after} (line {}, column {})",
                more.span.start.line, more.span.start.column
            )))
        }
    }
}

/// A one-part name, folded.
pub(super) fn single_name(name: &ObjectName, kind: &str) -> Result<String, SqlError> {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => Ok(fold_ident(ident)),
        _ => Err(SqlError::Unsupported(format!(
            "{kind} name `{name}`: tenon has one namespace, name the {kind} without a schema \
             or catalog"
        ))),
    }
}

/// The body of a `CREATE VIEW`: everything after the first `AS` outside
/// parentheses that follows `VIEW`, kept at its place.
fn view_body(sql: &str, tokens: &[TokenWithSpan]) -> Option<String> {
    let mut seen_view = false;
    let mut depth = 0usize;
    for t in tokens {
        match &t.token {
            Token::Word(w) if w.keyword == Keyword::VIEW && w.quote_style.is_none() => {
                seen_view = true;
            }
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Word(w)
                if seen_view
                    && depth == 0
                    && w.keyword == Keyword::AS
                    && w.quote_style.is_none() =>
            {
                let lines = Lines::new(sql);
                return Some(in_place(&lines, t.span.end, sql.len()));
            }
            _ => {}
        }
    }
    None
}
