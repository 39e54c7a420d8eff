//! Debezium change logs (`'format' = 'debezium-json'`): one JSON change
//! event per line, read as **versions** of the table's primary key.
//!
//! An event is `{"before": {...} | null, "after": {...} | null, "op": "c" |
//! "r" | "u" | "d", "ts_ms": 123}`, or the same envelope under `"payload"`
//! (Debezium's JSON converter with schemas). `c` (create), `r` (snapshot
//! read) and `u` (update) make the `after` row the key's new version; `d`
//! (delete) is a *tombstone* for the `before` row's key: its other columns
//! are NULL.
//!
//! A version's time is the event-time column's value in the row when the
//! row holds it (not NULL), else the event's `ts_ms` (`source.ts_ms` when
//! the envelope has no `ts_ms`), milliseconds since the epoch; a
//! tombstone's time is the delete's `ts_ms` (the `before` row's time when
//! there is none). The time is written into the event-time column.
//!
//! Values are converted to the declared types: timestamps and dates from
//! strings (`2024-01-01 12:00:00`, ISO 8601) or numbers (milliseconds since
//! the epoch), decimals and the other types from numbers or strings.
//!
//! [`read_change_log`] gives either every version in file order
//! ([`ChangeLogView::Versions`], with a trailing [`DELETED_COLUMN`]) or the
//! state at the end of the log ([`ChangeLogView::Current`]): each key's last
//! version, keys whose last event is a delete left out, in the order of
//! those last events.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray, UInt32Array,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_cast::{CastOptions, cast_with_options};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use serde_json::{Map, Value};

use super::read::data_files;
use super::{FileFormat, IoError};

pub use tenon_planner::sql::DELETED_COLUMN;

/// How a change log's events map onto its declared columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeLog {
    /// The primary key's columns (indices of the declared columns).
    pub key: Vec<usize>,
    /// The event-time column's index, if the table declares one.
    pub time: Option<usize>,
    /// Skip lines that are not change events (not JSON, no `op`, a value
    /// that does not fit its column) instead of failing, and count them
    /// (`'debezium-json.ignore-parse-errors' = 'true'`).
    pub ignore_parse_errors: bool,
}

/// Which relation of a change log to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeLogView {
    /// The table as of the end of the log.
    Current,
    /// Every version, in file order, with [`DELETED_COLUMN`].
    Versions,
}

/// The schema of a change log's versions: the declared `columns` (those
/// not in `key` nullable, for tombstones) and [`DELETED_COLUMN`].
pub fn versions_schema(columns: &Schema, key: &[usize]) -> SchemaRef {
    let mut fields: Vec<Field> = columns
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let f = f.as_ref().clone();
            if key.contains(&i) {
                f
            } else {
                f.with_nullable(true)
            }
        })
        .collect();
    fields.push(Field::new(DELETED_COLUMN, DataType::Boolean, false));
    Arc::new(Schema::new(fields))
}

/// A change log's rows as read, with the lines skipped.
#[derive(Debug, Clone)]
pub struct ChangeLogRows {
    /// All rows, one batch.
    pub batch: RecordBatch,
    /// Lines skipped as unreadable (with `ignore_parse_errors`).
    pub skipped: u64,
}

/// One cell of a version before it is converted to its column's type.
#[derive(Debug, Clone)]
enum Cell {
    Null,
    /// JSON text: a string as it is, anything else as JSON.
    Text(String),
    /// Milliseconds since the epoch (a number in a time column, `ts_ms`).
    Millis(i64),
}

/// One version: where it came from and its cells.
struct Version {
    file: usize,
    line: u64,
    cells: Vec<Cell>,
    deleted: bool,
}

/// Reads the change log at `path` (a file, or a directory of `.json` /
/// `.ndjson` / `.jsonl` files read in name order) into `columns` (the
/// declared columns).
///
/// # Errors
///
/// [`IoError::NotFound`] / [`IoError::Io`] for a file that cannot be read;
/// [`IoError::Parse`] naming the file and line for a line that is not a
/// change event or a value that does not fit its column (unless
/// `ignore_parse_errors`).
pub fn read_change_log(
    path: &Path,
    columns: &SchemaRef,
    log: &ChangeLog,
    view: ChangeLogView,
) -> Result<ChangeLogRows, IoError> {
    let meta = super::metadata::table_metadata(path)?;
    let files = if meta.is_dir() {
        let files = data_files(path, Some(FileFormat::Json))?;
        if files.is_empty() {
            return Err(IoError::EmptyDirectory {
                path: path.to_path_buf(),
            });
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut versions = Vec::new();
    let mut skipped = 0u64;
    for (index, file) in files.iter().enumerate() {
        read_events(file, index, columns, log, &mut versions, &mut skipped)?;
    }
    let (arrays, bad) = convert(path, columns, log, &versions)?;
    // rows whose values do not fit: the first is an error, or all are skipped
    let mut keep: Vec<u32> = Vec::with_capacity(versions.len());
    for (row, v) in versions.iter().enumerate() {
        match &bad[row] {
            None => keep.push(row as u32),
            Some(message) if !log.ignore_parse_errors => {
                return Err(IoError::Parse {
                    path: files[v.file].clone(),
                    line: Some(v.line),
                    column: None,
                    message: message.clone(),
                });
            }
            Some(_) => skipped += 1,
        }
    }
    let deleted: ArrayRef = Arc::new(BooleanArray::from(
        versions.iter().map(|v| v.deleted).collect::<Vec<_>>(),
    ));
    let chosen = match view {
        ChangeLogView::Versions => keep,
        ChangeLogView::Current => current_rows(&arrays, &log.key, &versions, &keep, path)?,
    };
    let indices = UInt32Array::from(chosen);
    let take = |a: &ArrayRef| {
        arrow_select::take::take(a.as_ref(), &indices, None)
            .map_err(|e| super::read::corrupt(path, "Debezium JSON", e))
    };
    let mut out: Vec<ArrayRef> = arrays.iter().map(take).collect::<Result<_, _>>()?;
    let schema = match view {
        ChangeLogView::Versions => {
            out.push(take(&deleted)?);
            versions_schema(columns, &log.key)
        }
        ChangeLogView::Current => Arc::clone(columns),
    };
    let batch = RecordBatch::try_new(schema, out)
        .map_err(|e| super::read::corrupt(path, "Debezium JSON", e))?;
    Ok(ChangeLogRows { batch, skipped })
}

/// The rows of the state at the end of the log: each key's last version
/// unless it is a tombstone, in the order of those last versions.
fn current_rows(
    arrays: &[ArrayRef],
    key: &[usize],
    versions: &[Version],
    keep: &[u32],
    path: &Path,
) -> Result<Vec<u32>, IoError> {
    let options = FormatOptions::default().with_null("\u{0}NULL");
    let formatters = key
        .iter()
        .map(|&k| ArrayFormatter::try_new(arrays[k].as_ref(), &options))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| super::read::corrupt(path, "Debezium JSON", e))?;
    let mut last: HashMap<String, u32> = HashMap::new();
    for &row in keep {
        let mut k = String::new();
        for f in &formatters {
            let value = f.value(row as usize).to_string();
            // length-prefixed, so that no two keys run into one
            k.push_str(&value.len().to_string());
            k.push(':');
            k.push_str(&value);
        }
        last.insert(k, row);
    }
    let mut rows: Vec<u32> = last
        .into_values()
        .filter(|&r| !versions[r as usize].deleted)
        .collect();
    rows.sort_unstable();
    Ok(rows)
}

/// The JSON field of `row` for column `name`: exactly, else ignoring case.
fn field<'a>(row: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    row.get(name).or_else(|| {
        row.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

fn cell(value: Option<&Value>, time: bool) -> Cell {
    match value {
        None | Some(Value::Null) => Cell::Null,
        Some(Value::String(s)) => Cell::Text(s.clone()),
        Some(Value::Number(n)) if time => match n.as_i64() {
            Some(ms) => Cell::Millis(ms),
            None => Cell::Text(n.to_string()),
        },
        Some(other) => Cell::Text(other.to_string()),
    }
}

/// Reads one file's events into `versions`.
fn read_events(
    file: &PathBuf,
    index: usize,
    columns: &SchemaRef,
    log: &ChangeLog,
    versions: &mut Vec<Version>,
    skipped: &mut u64,
) -> Result<(), IoError> {
    let reader = BufReader::new(File::open(file).map_err(|e| IoError::io(file, e))?);
    for (n, line) in reader.lines().enumerate() {
        let line_number = n as u64 + 1;
        let line = line.map_err(|e| IoError::io(file, e))?;
        // a byte order mark that an editor put before the first event
        let line = match line.strip_prefix('\u{feff}') {
            Some(rest) if n == 0 => rest.to_string(),
            _ => line,
        };
        if line.trim().is_empty() {
            continue;
        }
        match event(&line, columns, log) {
            Ok((cells, deleted)) => versions.push(Version {
                file: index,
                line: line_number,
                cells,
                deleted,
            }),
            Err(_) if log.ignore_parse_errors => *skipped += 1,
            Err(message) => {
                return Err(IoError::Parse {
                    path: file.clone(),
                    line: Some(line_number),
                    column: None,
                    message: format!(
                        "{message} (each line of a 'debezium-json' table is one Debezium \
                         change event; 'debezium-json.ignore-parse-errors' = 'true' skips \
                         lines that are not)"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// One line as a version's cells and whether it is a tombstone.
fn event(line: &str, columns: &SchemaRef, log: &ChangeLog) -> Result<(Vec<Cell>, bool), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(mut envelope) = value else {
        return Err("not a JSON object".into());
    };
    if !envelope.contains_key("op")
        && let Some(Value::Object(payload)) = envelope.remove("payload")
    {
        envelope = payload;
    }
    let op = match envelope.get("op") {
        Some(Value::String(op)) => op.as_str(),
        Some(other) => {
            return Err(format!(
                "`op` is {other}, expected \"c\", \"r\", \"u\" or \"d\""
            ));
        }
        None => {
            return Err(
                "no `op` field: a change event says what changed with `op` (c, r, u or d)".into(),
            );
        }
    };
    let ts_ms = envelope.get("ts_ms").and_then(Value::as_i64).or_else(|| {
        envelope
            .get("source")
            .and_then(|s| s.get("ts_ms"))
            .and_then(Value::as_i64)
    });
    let (row, deleted) = match op {
        "c" | "r" | "u" => match envelope.get("after") {
            Some(Value::Object(row)) => (row, false),
            _ => return Err(format!("op \"{op}\" without an `after` row (an object)")),
        },
        "d" => match envelope.get("before") {
            Some(Value::Object(row)) => (row, true),
            _ => {
                return Err(
                    "a delete (op \"d\") without a `before` row: it cannot tell which key it \
                     deletes"
                        .into(),
                );
            }
        },
        other => {
            return Err(format!(
                "unknown op \"{other}\": expected c (create), r (read), u (update) or d (delete)"
            ));
        }
    };
    let mut cells = Vec::with_capacity(columns.fields().len());
    for (i, f) in columns.fields().iter().enumerate() {
        let is_time = log.time == Some(i);
        let value = field(row, f.name());
        let c = if is_time {
            let own = cell(value, true);
            match (deleted, ts_ms, own) {
                (true, Some(ms), _) => Cell::Millis(ms),
                (false, _, own @ (Cell::Text(_) | Cell::Millis(_))) => own,
                (_, Some(ms), _) => Cell::Millis(ms),
                (_, None, own @ (Cell::Text(_) | Cell::Millis(_))) => own,
                (_, None, Cell::Null) => {
                    return Err(format!(
                        "the change has no time: the row has no `{}` and the event no `ts_ms`",
                        f.name()
                    ));
                }
            }
        } else if deleted && !log.key.contains(&i) {
            Cell::Null
        } else {
            cell(value, is_time_type(f.data_type()))
        };
        cells.push(c);
    }
    Ok((cells, deleted))
}

fn is_time_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Timestamp(_, _) | DataType::Date32 | DataType::Date64
    )
}

/// The versions' cells as arrays of the declared types, and for each row
/// what does not fit (the first misfit of the row).
fn convert(
    path: &Path,
    columns: &SchemaRef,
    log: &ChangeLog,
    versions: &[Version],
) -> Result<(Vec<ArrayRef>, Vec<Option<String>>), IoError> {
    let mut bad: Vec<Option<String>> = vec![None; versions.len()];
    let mut arrays = Vec::with_capacity(columns.fields().len());
    let options = CastOptions {
        safe: true,
        ..CastOptions::default()
    };
    for (i, f) in columns.fields().iter().enumerate() {
        let target = f.data_type();
        let texts = StringArray::from_iter(versions.iter().map(|v| match &v.cells[i] {
            Cell::Text(s) => Some(s.as_str()),
            _ => None,
        }));
        let misfit = |e: arrow_schema::ArrowError| IoError::Parse {
            path: path.to_path_buf(),
            line: None,
            column: Some(f.name().clone()),
            message: format!("column `{}` of type {target}: {e}", f.name()),
        };
        let mut array = cast_with_options(&texts, target, &options).map_err(misfit)?;
        if is_time_type(target) {
            let millis = Int64Array::from_iter(versions.iter().map(|v| match &v.cells[i] {
                Cell::Millis(ms) => Some(*ms),
                _ => None,
            }));
            let tz = match target {
                DataType::Timestamp(_, tz) => tz.clone(),
                _ => None,
            };
            let as_ms = cast_with_options(
                &millis,
                &DataType::Timestamp(TimeUnit::Millisecond, tz),
                &options,
            )
            .map_err(misfit)?;
            let from_millis = cast_with_options(&as_ms, target, &options).map_err(misfit)?;
            let is_millis = BooleanArray::from_iter(
                versions
                    .iter()
                    .map(|v| Some(matches!(v.cells[i], Cell::Millis(_)))),
            );
            array = arrow_select::zip::zip(&is_millis, &from_millis, &array).map_err(misfit)?;
        }
        for (row, v) in versions.iter().enumerate() {
            if bad[row].is_some() || !array.is_null(row) {
                continue;
            }
            // a tombstone's non-key columns are NULL whatever their type says
            let null_allowed = f.is_nullable() || (v.deleted && !log.key.contains(&i));
            let why = match &v.cells[i] {
                Cell::Null if !null_allowed => Some(format!(
                    "column `{}` is NULL, and it is NOT NULL (a primary key column, or \
                         declared so)",
                    f.name()
                )),
                Cell::Null => None,
                Cell::Text(s) => Some(format!(
                    "value {s:?} of column `{}` is not a {target}",
                    f.name()
                )),
                Cell::Millis(ms) => Some(format!(
                    "{ms} milliseconds since the epoch, for column `{}`, do not fit a {target}",
                    f.name()
                )),
            };
            bad[row] = why;
        }
        arrays.push(array);
    }
    Ok((arrays, bad))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tests::TestDir;
    use arrow_array::cast::AsArray;

    fn columns() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("currency", DataType::Utf8View, false),
            Field::new("rate", DataType::Decimal128(32, 2), true),
            Field::new("t", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        ]))
    }

    /// `lines` as a change log file in a directory of its own, removed
    /// when the directory is dropped.
    fn write(lines: &[&str]) -> (TestDir, PathBuf) {
        let dir = TestDir::new();
        let path = dir.path("log.json");
        std::fs::write(&path, lines.join("\n")).unwrap();
        (dir, path)
    }

    fn log(ignore: bool) -> ChangeLog {
        ChangeLog {
            key: vec![0],
            time: Some(2),
            ignore_parse_errors: ignore,
        }
    }

    #[test]
    fn times_come_from_the_row_or_ts_ms() {
        let (_dir, path) = write(&[
            r#"{"op":"c","after":{"currency":"EUR","rate":1.14,"t":"2024-01-01 12:00:00"},"ts_ms":5}"#,
            r#"{"payload":{"op":"u","before":null,"after":{"currency":"EUR","rate":"1.10"},"ts_ms":1704110700000}}"#,
            r#"{"op":"d","before":{"currency":"EUR","rate":1.10,"t":1},"after":null,"ts_ms":1704111000000}"#,
        ]);
        let rows =
            read_change_log(&path, &columns(), &log(false), ChangeLogView::Versions).unwrap();
        let b = rows.batch;
        assert_eq!(b.num_rows(), 3);
        let t = b
            .column(2)
            .as_primitive::<arrow_array::types::TimestampMillisecondType>();
        assert_eq!(
            t.values().to_vec(),
            [1704110400000, 1704110700000, 1704111000000]
        );
        assert!(
            b.column(1).is_null(2),
            "a tombstone's other columns are NULL"
        );
        let deleted = b.column(3).as_boolean();
        assert_eq!(
            deleted.iter().collect::<Vec<_>>(),
            [Some(false), Some(false), Some(true)]
        );
        let current =
            read_change_log(&path, &columns(), &log(false), ChangeLogView::Current).unwrap();
        assert_eq!(
            current.batch.num_rows(),
            0,
            "the key's last event is a delete"
        );
    }

    #[test]
    fn a_bad_value_names_its_line_unless_skipped() {
        let (_dir, path) = write(&[
            r#"{"op":"c","after":{"currency":"EUR","rate":"much","t":1}}"#,
            r#"{"op":"c","after":{"currency":"USD","rate":1,"t":1}}"#,
        ]);
        let e =
            read_change_log(&path, &columns(), &log(false), ChangeLogView::Current).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("line 1") && text.contains("\"much\""),
            "{text}"
        );
        let rows = read_change_log(&path, &columns(), &log(true), ChangeLogView::Current).unwrap();
        assert_eq!((rows.batch.num_rows(), rows.skipped), (1, 1));
    }
}
