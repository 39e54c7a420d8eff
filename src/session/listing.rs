//! The statements about the session that give rows, as Flink's SQL client
//! shows them: `SET` (the settings), `SHOW TABLES`, `DESCRIBE t` and
//! `EXPLAIN [PLAN FOR] query`; and `SET 'key' = 'value'` / `RESET`, which
//! change the settings.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use tenon_planner::sql::{SqlStatement, TableTime};

use super::{QueryOutput, Session};
use crate::error::{Cause, Error};

/// A result of text (and boolean) columns, made in the session.
fn rows(columns: Vec<(&str, ArrayRef)>, started: Instant) -> Result<QueryOutput, Error> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(
        Arc::clone(&schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .map_err(|e| Error::Execution(Cause::context("cannot make the listing", e)))?;
    Ok(QueryOutput {
        schema,
        batches: vec![batch],
        elapsed: started.elapsed(),
        reads_files: false,
        peak_memory: 0,
        spilled_bytes: 0,
    })
}

fn text(values: Vec<Option<String>>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

impl Session {
    /// The rows of a statement that gives them without a plan (`SET`,
    /// `SHOW TABLES`, `DESCRIBE`, `EXPLAIN`); `None` for another
    /// statement.
    pub(super) fn listing(&self, statement: &SqlStatement) -> Result<Option<QueryOutput>, Error> {
        let started = Instant::now();
        Ok(Some(match statement {
            SqlStatement::Set(None) => {
                let (keys, values): (Vec<_>, Vec<_>) = self
                    .config
                    .entries()
                    .into_iter()
                    .map(|(k, v)| (Some(k.to_string()), Some(v)))
                    .unzip();
                rows(vec![("key", text(keys)), ("value", text(values))], started)?
            }
            SqlStatement::ShowTables => {
                let mut names = self.table_names();
                names.extend(self.view_names());
                names.sort();
                names.dedup();
                rows(
                    vec![("table name", text(names.into_iter().map(Some).collect()))],
                    started,
                )?
            }
            SqlStatement::Describe(name) => self.describe(name, started)?,
            SqlStatement::Explain(query) => {
                let plan = self.explain(query)?.to_text();
                let lines = plan.lines().map(|l| Some(l.to_string())).collect();
                rows(vec![("plan", text(lines))], started)?
            }
            _ => return Ok(None),
        }))
    }

    /// `DESCRIBE t`: one row per column, as Flink's: name, type, null,
    /// key (`PRI(a, b)` on each primary key column), extras (`AS
    /// PROCTIME()`), watermark (on the event-time column).
    fn describe(&self, name: &str, started: Instant) -> Result<QueryOutput, Error> {
        let (schema, time) = {
            let registry = self.read();
            match registry.catalog.table(name) {
                Some(t) => (Some(Arc::clone(&t.schema)), t.time.clone()),
                None if registry.catalog.view(name).is_some() => (None, TableTime::default()),
                None => {
                    let mut known = registry.catalog.relation_names();
                    known.sort();
                    return Err(Error::Ddl(format!(
                        "DESCRIBE {name}: there is no table or view `{name}` (there are: {}; \
                         SHOW TABLES lists them)",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )));
                }
            }
        };
        let schema = match schema {
            Some(s) => s,
            // a view: its columns as a query of it gives them
            None => self
                .sql(&format!("SELECT * FROM \"{}\"", name.replace('"', "\"\"")))?
                .schema(),
        };
        let key =
            (!time.primary_key.is_empty()).then(|| format!("PRI({})", time.primary_key.join(", ")));
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut nulls = Vec::new();
        let mut keys = Vec::new();
        let mut extras = Vec::new();
        let mut watermarks = Vec::new();
        for field in schema.fields() {
            let column = field.name();
            let event = time.event_time.as_ref().filter(|e| &e.column == column);
            let proc = time.proc_time.as_deref() == Some(column.as_str());
            let mut ty = flink_type(field.data_type());
            if event.is_some() {
                ty.push_str(" *ROWTIME*");
            } else if proc {
                ty.push_str(" *PROCTIME*");
            }
            names.push(Some(column.clone()));
            types.push(Some(ty));
            nulls.push(Some(field.is_nullable()));
            keys.push(key.clone().filter(|_| time.primary_key.contains(column)));
            extras.push(proc.then(|| "AS PROCTIME()".to_string()));
            watermarks.push(event.map(|e| e.watermark.clone()));
        }
        rows(
            vec![
                ("name", text(names)),
                ("type", text(types)),
                ("null", Arc::new(BooleanArray::from(nulls))),
                ("key", text(keys)),
                ("extras", text(extras)),
                ("watermark", text(watermarks)),
            ],
            started,
        )
    }
}

/// An Arrow type in Flink SQL's words (`BIGINT`, `STRING`,
/// `TIMESTAMP(3)`, `MAP<STRING, INT>`, `ROW<`a` INT NOT NULL>`); a type
/// Flink has no name for in Arrow's.
pub(crate) fn flink_type(t: &DataType) -> String {
    let precision = |unit: &TimeUnit| match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    };
    let nested = |f: &Field| {
        let null = if f.is_nullable() { "" } else { " NOT NULL" };
        format!("{}{null}", flink_type(f.data_type()))
    };
    match t {
        DataType::Null => "NULL".into(),
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Int8 => "TINYINT".into(),
        DataType::Int16 => "SMALLINT".into(),
        DataType::Int32 => "INT".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::Float32 => "FLOAT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "STRING".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "BYTES".into(),
        DataType::FixedSizeBinary(n) => format!("BINARY({n})"),
        DataType::Date32 | DataType::Date64 => "DATE".into(),
        DataType::Time32(u) | DataType::Time64(u) => format!("TIME({})", precision(u)),
        DataType::Timestamp(u, None) => format!("TIMESTAMP({})", precision(u)),
        DataType::Timestamp(u, Some(_)) => format!("TIMESTAMP_LTZ({})", precision(u)),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => format!("DECIMAL({p}, {s})"),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            format!("ARRAY<{}>", nested(f))
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                format!("MAP<{}, {}>", nested(&kv[0]), nested(&kv[1]))
            }
            other => format!("MAP<{other}>"),
        },
        DataType::Struct(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("`{}` {}", f.name(), nested(f)))
                .collect();
            format!("ROW<{}>", inner.join(", "))
        }
        other => other.to_string(),
    }
}
