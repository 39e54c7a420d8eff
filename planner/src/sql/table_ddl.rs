//! `CREATE TABLE`: the columns and their types, the `WITH (...)` options,
//! and what the table declares about time and versions (Flink's DDL):
//! `WATERMARK FOR t AS expr`, `proc AS PROCTIME()`, `PRIMARY KEY (k) NOT
//! ENFORCED`, `TIMESTAMP_LTZ(p)`.
//!
//! sqlparser does not parse a `WATERMARK` clause, computed columns (`c AS
//! expr`) or `METADATA` columns, so those elements of the column list are
//! cut out of the token stream before sqlparser parses the rest (the
//! tokens keep their positions, so sqlparser's errors still point into the
//! statement as written); strings and comments are tokens of their own and
//! are never mistaken for them.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, TimeUnit};
use datafusion_sql::planner::SqlToRel;
use sqlparser::ast::{
    ColumnOption, CreateTableOptions, DataType as SqlType, Expr, Ident, PrimaryKeyConstraint,
    SqlOption, TableConstraint, TimezoneInfo, Value,
};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use super::blocks::fold_ident;
use super::catalog::{Catalog, EventTime, TableTime};
use super::error::SqlError;
use super::nested_types::{cut_nested_types, placeholder_type};
use super::statement::{CreateTable, Lines, SqlStatement, single_name};

/// The type of a `PROCTIME()` column: Flink's `TIMESTAMP_LTZ(3)`.
pub fn proc_time_type() -> DataType {
    DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
}

/// Whether `tokens` (a whole statement) are a `CREATE [OR REPLACE]
/// [TEMPORARY] TABLE`.
pub(super) fn is_create_table(tokens: &[TokenWithSpan]) -> bool {
    let mut words = words(tokens);
    if !words.next().is_some_and(|w| is_word(w, "CREATE")) {
        return false;
    }
    for w in words {
        if is_word(w, "TABLE") {
            return true;
        }
        if !["OR", "REPLACE", "TEMPORARY", "TEMP"]
            .iter()
            .any(|k| is_word(w, k))
        {
            return false;
        }
    }
    false
}

/// The tokens that are not white space or comments.
fn words(tokens: &[TokenWithSpan]) -> impl Iterator<Item = &TokenWithSpan> {
    tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
}

/// Whether `t` is the unquoted word `word` (any case).
pub(super) fn is_word(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// `t` as an identifier, if it is a word.
pub(super) fn ident_of(t: &TokenWithSpan) -> Option<Ident> {
    match &t.token {
        Token::Word(w) => Some(Ident {
            value: w.value.clone(),
            quote_style: w.quote_style,
            span: t.span,
        }),
        _ => None,
    }
}

/// " (line L, column C)" for messages.
pub(super) fn at(location: Location) -> String {
    if location.line == 0 {
        String::new()
    } else {
        format!(" (line {}, column {})", location.line, location.column)
    }
}

/// What the pre-pass cut out of the column list.
#[derive(Debug, Default)]
struct TimeClauses {
    /// `WATERMARK FOR column AS expr`: the column, the expression's text,
    /// where the clause starts.
    watermark: Option<(Ident, String, Location)>,
    /// `name AS PROCTIME()`: the name, the number of columns declared
    /// before it, where it starts.
    proc_time: Option<(Ident, usize, Location)>,
}

/// The first words of table constraints (elements that are not columns).
const CONSTRAINT_WORDS: [&str; 9] = [
    "PRIMARY",
    "CONSTRAINT",
    "UNIQUE",
    "FOREIGN",
    "CHECK",
    "KEY",
    "INDEX",
    "FULLTEXT",
    "SPATIAL",
];

/// The column list's elements: index ranges `[start, end)` of `tokens`,
/// each with the index of the `,` or `)` that ends it.
fn column_list(tokens: &[TokenWithSpan]) -> Option<Vec<(usize, usize)>> {
    let table = tokens.iter().position(|t| is_word(t, "TABLE"))?;
    let mut i = table + 1;
    // the first `(` at depth 0 after the name, unless the statement goes on
    // with WITH / AS / LIKE / CLONE first (no column list)
    loop {
        let t = tokens.get(i)?;
        if t.token == Token::LParen {
            break;
        }
        if ["WITH", "AS", "LIKE", "CLONE"]
            .iter()
            .any(|k| is_word(t, k))
        {
            return None;
        }
        i += 1;
    }
    let mut elements = Vec::new();
    let mut depth = 0usize;
    let mut start = i + 1;
    for (j, t) in tokens.iter().enumerate().skip(i) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    elements.push((start, j));
                    return Some(elements);
                }
            }
            Token::Comma if depth == 1 => {
                elements.push((start, j));
                start = j + 1;
            }
            _ => {}
        }
    }
    None
}

/// Cuts the WATERMARK clause and the PROCTIME() column out of a `CREATE
/// TABLE`'s tokens; refuses other computed columns and METADATA columns.
fn cut_time_clauses(
    sql: &str,
    tokens: &[TokenWithSpan],
) -> Result<(Vec<TokenWithSpan>, TimeClauses), SqlError> {
    let mut clauses = TimeClauses::default();
    let Some(elements) = column_list(tokens) else {
        return Ok((tokens.to_vec(), clauses));
    };
    let lines = Lines::new(sql);
    let mut cut = vec![false; elements.len()];
    let mut columns = 0usize;
    for (n, &(start, end)) in elements.iter().enumerate() {
        let element: Vec<&TokenWithSpan> = words(&tokens[start..end]).collect();
        let Some(first) = element.first() else {
            continue;
        };
        let second = element.get(1);
        let is_watermark = is_word(first, "WATERMARK") && second.is_some_and(|t| is_word(t, "FOR"));
        let is_computed = !is_watermark && second.is_some_and(|t| is_word(t, "AS"));
        if is_watermark {
            let (Some(column), Some(as_)) =
                (element.get(2).and_then(|t| ident_of(t)), element.get(3))
            else {
                return Err(SqlError::syntax(
                    "expected `WATERMARK FOR column AS expression`",
                    first.span.start.line,
                    first.span.start.column,
                ));
            };
            if !is_word(as_, "AS") || element.len() < 5 {
                return Err(SqlError::syntax(
                    "expected `WATERMARK FOR column AS expression`, e.g. \
                     `WATERMARK FOR t AS t - INTERVAL '5' SECOND`",
                    as_.span.start.line,
                    as_.span.start.column,
                ));
            }
            if clauses.watermark.is_some() {
                return Err(SqlError::Unsupported(format!(
                    "a second WATERMARK clause{}: a table has one event-time attribute",
                    at(first.span.start)
                )));
            }
            check_expression(&element[4..])?;
            let from = lines.offset(element[4].span.start);
            let to = lines.offset(element[element.len() - 1].span.end);
            let text = sql[from..to.max(from)].to_string();
            clauses.watermark = Some((column, text, first.span.start));
        } else if is_computed {
            let name = ident_of(first).unwrap_or_else(|| Ident::new(first.to_string()));
            let body = &element[2..];
            let is_proctime = body.len() == 3
                && is_word(body[0], "PROCTIME")
                && body[1].token == Token::LParen
                && body[2].token == Token::RParen;
            if !is_proctime {
                let from = lines.offset(first.span.start);
                let to = lines.offset(element[element.len() - 1].span.end);
                return Err(SqlError::Unsupported(format!(
                    "computed column `{}`{}: computed columns other than PROCTIME() are not \
                     supported; declare the column with a type (`{} TYPE`) and store its \
                     values in the file, or compute it in a view (CREATE VIEW ... AS SELECT \
                     ..., expression AS {})",
                    &sql[from..to.max(from)],
                    at(first.span.start),
                    name.value,
                    name.value
                )));
            }
            if clauses.proc_time.is_some() {
                return Err(SqlError::Unsupported(format!(
                    "a second PROCTIME() column{}: declare one",
                    at(first.span.start)
                )));
            }
            clauses.proc_time = Some((name, columns, first.span.start));
        } else {
            if let Some(metadata) = element.iter().skip(1).find(|t| is_word(t, "METADATA")) {
                let column = first.to_string();
                return Err(SqlError::Unsupported(format!(
                    "METADATA column `{column}`{}: a filesystem table has no metadata columns \
                     (they are a connector's, such as Kafka's record timestamp); declare \
                     `{column}` as a plain column whose values the file holds (in a \
                     'debezium-json' table, the event-time column is filled from each \
                     change's `ts_ms` when the row does not hold it)",
                    at(metadata.span.start)
                )));
            }
            if !CONSTRAINT_WORDS.iter().any(|k| is_word(first, k)) {
                columns += 1;
            }
            continue;
        }
        cut[n] = true;
    }
    // The tokens up to the list's `(`, the kept elements separated by
    // commas, then the list's `)` and the rest.
    let open = elements.first().map_or(0, |e| e.0);
    let close = elements.last().map_or(tokens.len(), |e| e.1);
    let mut kept: Vec<TokenWithSpan> = tokens[..open].to_vec();
    let mut first = true;
    for (n, &(start, end)) in elements.iter().enumerate() {
        if cut[n] {
            continue;
        }
        if !first {
            let at = tokens[start].span.start;
            kept.push(TokenWithSpan::at(Token::Comma, at, at));
        }
        first = false;
        kept.extend_from_slice(&tokens[start..end]);
    }
    kept.extend_from_slice(&tokens[close..]);
    Ok((kept, clauses))
}

/// Checks that `tokens` are one expression (a watermark's).
fn check_expression(tokens: &[&TokenWithSpan]) -> Result<(), SqlError> {
    let mut owned: Vec<TokenWithSpan> = tokens.iter().map(|t| (*t).clone()).collect();
    let end = owned
        .last()
        .map(|t| t.span.end)
        .unwrap_or(Location::new(0, 0));
    owned.push(TokenWithSpan::at(Token::EOF, end, end));
    let mut parser = super::dialect::parser().with_tokens_with_locations(owned);
    parser.parse_expr()?;
    parser.expect_token(&Token::EOF)?;
    Ok(())
}

/// Parses a `CREATE TABLE` statement (`tokens` are its tokens).
pub(super) fn parse_create_table(
    sql: &str,
    tokens: &[TokenWithSpan],
) -> Result<SqlStatement, SqlError> {
    let (tokens, nested) = cut_nested_types(tokens)?;
    let (kept, clauses) = cut_time_clauses(sql, &tokens)?;
    let mut statements = super::dialect::parser()
        .with_tokens_with_locations(kept)
        .parse_statements()?;
    if statements.len() != 1 {
        return Err(SqlError::Unsupported(format!(
            "{} statements: run one statement at a time (or a script)",
            statements.len()
        )));
    }
    match statements.remove(0) {
        sqlparser::ast::Statement::CreateTable(t) => create_table(t, clauses, &nested),
        other => Err(SqlError::Unsupported(format!(
            "statement `{}`: expected CREATE TABLE",
            other.to_string().chars().take(40).collect::<String>()
        ))),
    }
}

/// `PRIMARY KEY ... NOT ENFORCED`'s columns, or an error when it lacks NOT
/// ENFORCED (Flink's rule: keys are declared, not checked).
fn key_columns(pk: &PrimaryKeyConstraint, column: Option<&Ident>) -> Result<Vec<Ident>, SqlError> {
    let columns: Vec<Ident> = match column {
        Some(c) => vec![c.clone()],
        None => pk
            .columns
            .iter()
            .map(|c| match &c.column.expr {
                Expr::Identifier(ident) => Ok(ident.clone()),
                other => Err(SqlError::Unsupported(format!(
                    "PRIMARY KEY element `{other}`: a key is a list of column names"
                ))),
            })
            .collect::<Result<_, _>>()?,
    };
    let enforced = pk.characteristics.as_ref().and_then(|c| c.enforced);
    if enforced != Some(false) {
        let names: Vec<&str> = columns.iter().map(|c| c.value.as_str()).collect();
        let place = columns
            .first()
            .map(|c| at(c.span.start))
            .unwrap_or_default();
        let written = match column {
            Some(c) => format!("{} TYPE PRIMARY KEY NOT ENFORCED", c.value),
            None => format!("PRIMARY KEY ({}) NOT ENFORCED", names.join(", ")),
        };
        return Err(SqlError::Unsupported(format!(
            "PRIMARY KEY ({}){place} without NOT ENFORCED: tenon does not enforce keys (it \
             does not check that the data holds each key once, as Flink does not); write \
             `{written}`",
            names.join(", ")
        )));
    }
    Ok(columns)
}

/// `TIMESTAMP_LTZ[(p)]`: the precision, when `data_type` is one.
fn timestamp_ltz(data_type: &SqlType) -> Option<Result<u64, SqlError>> {
    let SqlType::Custom(name, args) = data_type else {
        return None;
    };
    if name.0.len() != 1 || !name.to_string().eq_ignore_ascii_case("TIMESTAMP_LTZ") {
        return None;
    }
    Some(match args.as_slice() {
        [] => Ok(6),
        [p] => match p.trim().parse::<u64>() {
            Ok(p @ (0 | 3 | 6 | 9)) => Ok(p),
            _ => Err(SqlError::Unsupported(format!(
                "type {data_type}: tenon's timestamps have a precision of 0, 3, 6 or 9 \
                 (seconds, milliseconds, microseconds, nanoseconds)"
            ))),
        },
        _ => Err(SqlError::Unsupported(format!(
            "type {data_type}: TIMESTAMP_LTZ takes one precision, e.g. TIMESTAMP_LTZ(3)"
        ))),
    })
}

fn create_table(
    mut t: sqlparser::ast::CreateTable,
    clauses: TimeClauses,
    nested: &[DataType],
) -> Result<SqlStatement, SqlError> {
    let name = single_name(&t.name, "table")?;
    if t.query.is_some() || t.like.is_some() || t.clone.is_some() {
        return Err(SqlError::Unsupported(
            "CREATE TABLE AS / LIKE / CLONE: tenon's tables are files, declared as \
             `CREATE TABLE t (col TYPE, ...) WITH ('connector' = 'filesystem', 'path' = '...', \
             'format' = '...')`"
                .into(),
        ));
    }
    if t.columns.is_empty() {
        return Err(SqlError::Unsupported(format!(
            "CREATE TABLE {name} without columns: declare them, e.g. \
             `CREATE TABLE {name} (id BIGINT, name STRING) WITH (...)` (to read a file with the \
             types it holds, register it with --table / Session::register_file)"
        )));
    }
    let mut key: Option<Vec<Ident>> = None;
    let mut set_key = |columns: Vec<Ident>| -> Result<(), SqlError> {
        if key.is_some() {
            return Err(SqlError::Unsupported(
                "a second PRIMARY KEY: a table has one (list its columns in one \
                 `PRIMARY KEY (a, b) NOT ENFORCED`)"
                    .into(),
            ));
        }
        key = Some(columns);
        Ok(())
    };
    for c in &t.constraints {
        match c {
            TableConstraint::PrimaryKey(pk) => set_key(key_columns(pk, None)?)?,
            _ => {
                return Err(SqlError::Unsupported(format!(
                    "table constraint `{c}`: only PRIMARY KEY ... NOT ENFORCED is accepted (and \
                     not enforced)"
                )));
            }
        }
    }
    let mut ltz = Vec::new();
    // the nested types read before parsing (`nested_types`), by column
    let mut nested_columns: Vec<(String, DataType)> = Vec::new();
    for column in &mut t.columns {
        if let SqlType::Custom(name, _) = &column.data_type
            && let Some(ty) = placeholder_type(&name.to_string(), nested)
        {
            nested_columns.push((fold_ident(&column.name), ty));
            column.data_type = SqlType::Int(None);
        }
        for o in &column.options {
            match &o.option {
                ColumnOption::Null | ColumnOption::NotNull | ColumnOption::Comment(_) => {}
                ColumnOption::PrimaryKey(pk) => set_key(key_columns(pk, Some(&column.name))?)?,
                other => {
                    return Err(SqlError::Unsupported(format!(
                        "column option `{other}` of column `{}`: columns take a type, \
                         NOT NULL, COMMENT and PRIMARY KEY NOT ENFORCED",
                        column.name
                    )));
                }
            }
        }
        if let Some(precision) = timestamp_ltz(&column.data_type) {
            ltz.push(fold_ident(&column.name));
            column.data_type = SqlType::Timestamp(Some(precision?), TimezoneInfo::None);
        }
    }
    let declared: Vec<(String, String)> = t
        .columns
        .iter()
        .map(|c| (fold_ident(&c.name), c.data_type.to_string()))
        .collect();
    let catalog = Catalog::new();
    let schema = SqlToRel::new(&catalog)
        .build_schema(t.columns)
        .map_err(SqlError::from)?;
    let key: Vec<String> = key.unwrap_or_default().iter().map(fold_ident).collect();
    let mut fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let mut f = f.as_ref().clone();
            if let Some((_, ty)) = nested_columns.iter().find(|(n, _)| n == f.name()) {
                f = f.with_data_type(ty.clone());
            }
            if ltz.contains(f.name())
                && let DataType::Timestamp(unit, _) = f.data_type()
            {
                let utc = DataType::Timestamp(*unit, Some("UTC".into()));
                f = f.with_data_type(utc);
            }
            // Flink's rule: the columns of a primary key are NOT NULL
            if key.contains(f.name()) {
                f = f.with_nullable(false);
            }
            f
        })
        .collect();
    let mut time = TableTime::default();
    for k in &key {
        if !declared.iter().any(|(n, _)| n == k) {
            let proc = clauses.proc_time.as_ref().map(|(p, _, _)| fold_ident(p));
            return Err(SqlError::Unsupported(if proc.as_deref() == Some(k) {
                format!(
                    "PRIMARY KEY column `{k}` is the PROCTIME() column: a key is stored columns"
                )
            } else {
                format!(
                    "PRIMARY KEY column `{k}` is not a column of {name} (columns: {})",
                    names(&declared)
                )
            }));
        }
    }
    time.primary_key = key;
    if let Some((proc, index, location)) = &clauses.proc_time {
        let proc = fold_ident(proc);
        if declared.iter().any(|(n, _)| n.eq_ignore_ascii_case(&proc)) {
            return Err(SqlError::Unsupported(format!(
                "PROCTIME() column `{proc}`{}: {name} has another column of that name",
                at(*location)
            )));
        }
        fields.insert(
            (*index).min(fields.len()),
            Field::new(&proc, proc_time_type(), false),
        );
        time.proc_time = Some(proc);
    }
    if let Some((column, watermark, location)) = clauses.watermark {
        let column = fold_ident(&column);
        if time.proc_time.as_deref() == Some(column.as_str()) {
            return Err(SqlError::Unsupported(format!(
                "WATERMARK FOR {column}{}: `{column}` is the PROCTIME() column, a processing \
                 time; a watermark marks an event-time column (TIMESTAMP(p), TIMESTAMP_LTZ(p) \
                 or DATE) that the data holds",
                at(location)
            )));
        }
        let Some(field) = fields.iter().find(|f| f.name() == &column) else {
            return Err(SqlError::Unsupported(format!(
                "WATERMARK FOR {column}{}: `{column}` is not a column of {name} (columns: {})",
                at(location),
                names(&declared)
            )));
        };
        if !matches!(
            field.data_type(),
            DataType::Timestamp(_, _) | DataType::Date32 | DataType::Date64
        ) {
            let written = declared
                .iter()
                .find(|(n, _)| n == &column)
                .map_or_else(|| field.data_type().to_string(), |(_, t)| t.clone());
            return Err(SqlError::Unsupported(format!(
                "WATERMARK FOR {column}{}: `{column}` is {written}, and an event-time column \
                 must be a TIMESTAMP(p), TIMESTAMP_LTZ(p) or DATE; declare `{column}` with one \
                 of those types",
                at(location)
            )));
        }
        time.event_time = Some(EventTime { column, watermark });
    }
    let options = match t.table_options {
        CreateTableOptions::With(options) => options,
        CreateTableOptions::None => Vec::new(),
        other => {
            return Err(SqlError::Unsupported(format!(
                "table options `{other}`: write them as WITH ('key' = 'value', ...)"
            )));
        }
    };
    let options = options
        .iter()
        .map(option_pair)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SqlStatement::CreateTable(CreateTable {
        name,
        schema: Arc::new(Schema::new(fields)),
        options,
        or_replace: t.or_replace,
        if_not_exists: t.if_not_exists,
        time,
    }))
}

fn names(declared: &[(String, String)]) -> String {
    declared
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `'key' = 'value'` option; numbers and booleans are taken as text.
fn option_pair(option: &SqlOption) -> Result<(String, String), SqlError> {
    let bad = || {
        SqlError::Unsupported(format!(
            "table option `{option}`: write options as 'key' = 'value'"
        ))
    };
    let SqlOption::KeyValue { key, value } = option else {
        return Err(bad());
    };
    let key = match key.quote_style {
        Some(_) => key.value.clone(),
        None => key.value.to_lowercase(),
    };
    let value = match value {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
            Value::Number(n, _) => n.to_string(),
            Value::Boolean(b) => b.to_string(),
            _ => return Err(bad()),
        },
        Expr::Identifier(ident) => ident.value.clone(),
        _ => return Err(bad()),
    };
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    use super::super::statement::parse_statement;
    use super::*;

    fn create(sql: &str) -> CreateTable {
        match parse_statement(sql) {
            Ok(SqlStatement::CreateTable(t)) => t,
            other => panic!("{sql}: {other:?}"),
        }
    }

    fn error(sql: &str) -> String {
        match parse_statement(sql) {
            Err(e) => e.to_string(),
            Ok(s) => panic!("{sql}: expected an error, got {s:?}"),
        }
    }

    const WITH: &str = "WITH ('connector' = 'filesystem', 'path' = 'x', 'format' = 'csv')";

    #[test]
    fn the_seed_tables_parse_with_their_time() {
        let orders = create(&format!(
            "CREATE TABLE orders (\n order_id STRING,\n price DECIMAL(32,2),\n currency STRING,\n \
             order_time TIMESTAMP(3),\n WATERMARK FOR order_time AS order_time - INTERVAL '15' \
             SECOND\n) {WITH}"
        ));
        let types: Vec<DataType> = orders
            .schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(
            types,
            [
                DataType::Utf8View,
                DataType::Decimal128(32, 2),
                DataType::Utf8View,
                DataType::Timestamp(TimeUnit::Millisecond, None),
            ]
        );
        assert_eq!(
            orders.time.event_time,
            Some(EventTime {
                column: "order_time".into(),
                watermark: "order_time - INTERVAL '15' SECOND".into()
            })
        );
        assert!(orders.time.primary_key.is_empty() && !orders.time.is_versioned());
        assert_eq!(orders.options.len(), 3);

        let rates = create(&format!(
            "CREATE TABLE currency_rates (currency STRING, conversion_rate DECIMAL(32, 2), \
             update_time TIMESTAMP_LTZ(3), WATERMARK FOR update_time AS update_time - INTERVAL \
             '15' SECOND, PRIMARY KEY(currency) NOT ENFORCED) {WITH}"
        ));
        assert_eq!(rates.time.primary_key, ["currency"]);
        assert!(rates.time.is_versioned());
        let currency = rates.schema.field(0);
        assert!(!currency.is_nullable(), "a key column is NOT NULL");
        assert_eq!(
            rates.schema.field(2).data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
    }

    #[test]
    fn proctime_and_column_keys() {
        let t = create(&format!(
            "CREATE TABLE o (id BIGINT PRIMARY KEY NOT ENFORCED, proc_time AS PROCTIME(), \
             amount INT) {WITH}"
        ));
        let names: Vec<&str> = t
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(names, ["id", "proc_time", "amount"]);
        assert_eq!(t.schema.field(1).data_type(), &proc_time_type());
        assert_eq!(t.time.proc_time.as_deref(), Some("proc_time"));
        assert_eq!(t.time.primary_key, ["id"]);
        assert!(t.time.is_versioned());
        // last element, with a comment and a string holding "WATERMARK FOR"
        let t = create(
            "CREATE TABLE o (\"Id\" BIGINT COMMENT 'WATERMARK FOR x AS y', -- a, b AS c\n p AS \
             proctime ( ), PRIMARY KEY (\"Id\") NOT ENFORCED) WITH ('connector' = 'filesystem', \
             'path' = 'x', 'format' = 'csv')",
        );
        assert_eq!(t.time.proc_time.as_deref(), Some("p"));
        assert_eq!(t.time.primary_key, ["Id"]);
        assert_eq!(t.schema.fields().len(), 2);
        assert!(t.time.event_time.is_none());
    }

    #[test]
    fn time_declaration_errors_say_what_to_write() {
        for (columns, words) in [
            (
                "k STRING, PRIMARY KEY (k)",
                &["does not enforce keys", "PRIMARY KEY (k) NOT ENFORCED"][..],
            ),
            (
                "k STRING PRIMARY KEY",
                &["k TYPE PRIMARY KEY NOT ENFORCED", "line 1, column 19"][..],
            ),
            (
                "k STRING, PRIMARY KEY (x) NOT ENFORCED",
                &["`x` is not a column", "columns: k"][..],
            ),
            (
                "k STRING, t BIGINT, WATERMARK FOR t AS t - 5",
                &["`t` is BIGINT", "TIMESTAMP(p), TIMESTAMP_LTZ(p) or DATE"][..],
            ),
            (
                "k STRING, WATERMARK FOR t AS t",
                &["`t` is not a column of tbl"][..],
            ),
            (
                "k STRING, c AS k || 'x'",
                &["computed column `c AS k || 'x'`", "other than PROCTIME()"][..],
            ),
            (
                "k STRING, t TIMESTAMP(3) METADATA FROM `values.source.timestamp` VIRTUAL",
                &[
                    "METADATA column `t`",
                    "no metadata columns",
                    "ts_ms",
                    "plain column",
                ][..],
            ),
            (
                "k STRING, t TIMESTAMP(3) METADATA VIRTUAL",
                &["METADATA column `t`"][..],
            ),
            (
                "k STRING, p AS PROCTIME(), WATERMARK FOR p AS p",
                &["PROCTIME() column, a processing time"][..],
            ),
            (
                "t DATE, WATERMARK FOR t AS t, WATERMARK FOR t AS t",
                &["a second WATERMARK"][..],
            ),
            (
                "k STRING, t TIMESTAMP_LTZ(2)",
                &["precision of 0, 3, 6 or 9"][..],
            ),
            (
                "k STRING PRIMARY KEY NOT ENFORCED, PRIMARY KEY (k) NOT ENFORCED",
                &["a second PRIMARY KEY"][..],
            ),
        ] {
            let sql = format!("CREATE TABLE tbl ({columns}) {WITH}");
            let e = error(&sql);
            for w in words {
                assert!(e.contains(w), "{sql}\n  {e}\n  lacks: {w}");
            }
        }
        let e = error(&format!(
            "CREATE TABLE tbl (t DATE, WATERMARK FOR t AS t -) {WITH}"
        ));
        assert!(e.contains("syntax error at line 1"), "{e}");
    }

    #[test]
    fn dates_and_ltz_timestamps_are_time_attributes() {
        let t = create(&format!(
            "CREATE TABLE d (t DATE, WATERMARK FOR t AS t - INTERVAL '1' DAY) {WITH}"
        ));
        assert_eq!(t.time.event_time.map(|e| e.column), Some("t".into()));
        let t = create(&format!(
            "CREATE TABLE d (t TIMESTAMP_LTZ, WATERMARK FOR t AS t) {WITH}"
        ));
        assert_eq!(
            t.schema.field(0).data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
    }
}
