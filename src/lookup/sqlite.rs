//! A SQLite table as a lookup table (`'url' = 'jdbc:sqlite:path/to/file.db'`),
//! through rusqlite on the system's libsqlite3 (on the machine image; no
//! second copy of SQLite is compiled).
//!
//! The file is opened read-only and must exist. Connections are pooled:
//! each request takes one (opening another when all are busy) and gives it
//! back, so requests from several workers run at once. A request's keys go
//! in `WHERE k IN (?, ...)` (or `(k1, k2) IN (VALUES (?, ?), ...)`) in
//! chunks the statement's parameters allow; each chunk's key count is
//! rounded up to a power of two by repeating its last key, so a handful of
//! prepared statements serve every request (rusqlite's statement cache).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use tenon_planner::exec::{ExecError, ScanRequest, Sink};
use tenon_planner::lookup::{LookupDone, LookupError, LookupRequest, LookupSource};

use super::values::{SqlValue, key_value};
use super::{Declared, quote_ident};

/// The most parameters one statement binds (SQLite's default limit is
/// 32766).
const MAX_PARAMETERS: usize = 30_000;

/// A SQLite table, looked up by key or scanned.
#[derive(Debug)]
pub(crate) struct SqliteTable {
    path: String,
    declared: Declared,
    /// Idle connections.
    pool: Mutex<Vec<Connection>>,
    /// Retries of a request that failed (`lookup.max-retries`).
    max_retries: u32,
    /// Whether this SQLite has `json_each` (built in since 3.38).
    json_each: bool,
}

/// One key column's keys as a JSON array, sorted (SQLite's `BINARY` order
/// for text is byte order, as Rust's), when they are all integers or all
/// text; `None` otherwise.
fn json_keys(keys: &arrow_array::ArrayRef, n: usize) -> Option<String> {
    use std::fmt::Write;
    let values: Vec<SqlValue> = (0..n).map(|row| key_value(keys, row)).collect();
    let mut json = String::with_capacity(n * 8 + 2);
    if values.iter().all(|v| matches!(v, SqlValue::Int(_))) {
        let mut ints: Vec<i64> = values
            .iter()
            .filter_map(|v| match v {
                SqlValue::Int(i) => Some(*i),
                _ => None,
            })
            .collect();
        ints.sort_unstable();
        json.push('[');
        for (i, k) in ints.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            let _ = write!(json, "{k}");
        }
        json.push(']');
        return Some(json);
    }
    let mut texts: Vec<&str> = Vec::with_capacity(n);
    for v in &values {
        match v {
            SqlValue::Text(t) => texts.push(t),
            _ => return None,
        }
    }
    texts.sort_unstable();
    serde_json::to_string(&texts).ok()
}

/// The SQLite affinity of a declared column type (SQLite's own rules,
/// section 3.1 of its datatype documentation).
fn affinity(decl: &str) -> &'static str {
    let d = decl.to_ascii_uppercase();
    if d.contains("INT") {
        "INTEGER"
    } else if d.contains("CHAR") || d.contains("CLOB") || d.contains("TEXT") {
        "TEXT"
    } else if d.contains("BLOB") || d.is_empty() {
        "BLOB"
    } else if d.contains("REAL") || d.contains("FLOA") || d.contains("DOUB") {
        "REAL"
    } else {
        "NUMERIC"
    }
}

/// Whether a column of SQLite affinity `aff` can hold values of `t`.
fn fits(aff: &str, t: &DataType) -> bool {
    use DataType::*;
    match aff {
        "BLOB" => true, // no declared type: any value
        "INTEGER" => !matches!(t, Utf8 | LargeUtf8 | Utf8View),
        "REAL" => matches!(t, Float32 | Float64 | Decimal128(..)),
        "TEXT" => matches!(
            t,
            Utf8 | LargeUtf8 | Utf8View | Date32 | Date64 | Timestamp(..) | Decimal128(..)
        ),
        _ => !matches!(t, Utf8 | LargeUtf8 | Utf8View),
    }
}

impl SqliteTable {
    /// Opens `path`'s table `declared.table` and checks the declared
    /// columns against it.
    ///
    /// # Errors
    /// `Err((unreachable, message))`: `unreachable` when the file cannot
    /// be opened (exit 3), else a definition that does not match (a table
    /// or column missing, a type that cannot hold the column's values).
    pub(crate) fn open(
        path: &str,
        mut declared: Declared,
        max_retries: u32,
    ) -> Result<SqliteTable, (bool, String)> {
        let url = format!("jdbc:sqlite:{path}");
        let conn = connect(path).map_err(|e| (true, format!("cannot open {url}: {e}")))?;
        let table = &declared.table;
        let mut stmt = conn
            .prepare(&format!("PRAGMA table_info({})", quote_ident(table)))
            .map_err(|e| (true, format!("cannot read {url}: {e}")))?;
        let columns: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| (true, format!("cannot read {url}: {e}")))?;
        drop(stmt);
        if columns.is_empty() {
            let tables: Vec<String> = conn
                .prepare(
                    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name",
                )
                .and_then(|mut s| s.query_map([], |r| r.get::<_, String>(0))?.collect())
                .unwrap_or_default();
            return Err((
                false,
                format!(
                    "{url} has no table `{table}` ('table-name'); its tables: {}",
                    if tables.is_empty() {
                        "none".to_string()
                    } else {
                        tables.join(", ")
                    }
                ),
            ));
        }
        declared.check_columns(&url, &columns, &|decl, t| fits(affinity(decl), t), "SQLite")?;
        let json_each = conn.prepare("SELECT value FROM json_each('[1]')").is_ok();
        Ok(SqliteTable {
            path: path.to_string(),
            declared,
            pool: Mutex::new(vec![conn]),
            max_retries,
            json_each,
        })
    }

    /// The table's row count.
    pub(crate) fn row_count(&self) -> Option<u64> {
        self.with_connection(|c| {
            c.query_row(
                &format!("SELECT count(*) FROM {}", quote_ident(&self.declared.table)),
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| e.to_string())
        })
        .ok()
        .map(|n| n.max(0) as u64)
    }

    fn with_connection<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, String>,
    ) -> Result<T, String> {
        let idle = self.pool.lock().ok().and_then(|mut p| p.pop());
        let conn = match idle {
            Some(c) => c,
            None => connect(&self.path)
                .map_err(|e| format!("cannot open jdbc:sqlite:{}: {e}", self.path))?,
        };
        let result = f(&conn);
        if let Ok(mut p) = self.pool.lock() {
            p.push(conn);
        }
        result
    }

    /// The rows of `sql` (binding `params`) as `columns` of the table.
    fn rows(
        conn: &Connection,
        sql: &str,
        params: &[SqlValue],
        width: usize,
        out: &mut [Vec<SqlValue>],
    ) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached(sql)?;
        let params = rusqlite::params_from_iter(params.iter().map(|v| match v {
            SqlValue::Int(i) => rusqlite::types::Value::Integer(*i),
            SqlValue::Real(r) => rusqlite::types::Value::Real(*r),
            SqlValue::Text(t) => rusqlite::types::Value::Text(t.clone()),
            SqlValue::Null | SqlValue::Blob => rusqlite::types::Value::Null,
        }));
        let mut rows = stmt.query(params)?;
        while let Some(row) = rows.next()? {
            for (c, column) in out.iter_mut().enumerate().take(width) {
                column.push(match row.get_ref(c)? {
                    ValueRef::Null => SqlValue::Null,
                    ValueRef::Integer(i) => SqlValue::Int(i),
                    ValueRef::Real(r) => SqlValue::Real(r),
                    ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(_) => SqlValue::Blob,
                });
            }
        }
        Ok(())
    }

    /// Where values come from, for a misfit's message.
    fn describe_short(&self) -> String {
        format!("jdbc:sqlite:{} table {}", self.path, self.declared.table)
    }

    fn select(&self, columns: &[usize]) -> String {
        let names: Vec<String> = columns
            .iter()
            .map(|&c| quote_ident(&self.declared.store_names[c]))
            .collect();
        format!(
            "SELECT {} FROM {}",
            names.join(", "),
            quote_ident(&self.declared.table)
        )
    }

    fn lookup_once(&self, request: &LookupRequest) -> Result<RecordBatch, String> {
        let width = request.columns.len();
        let mut values: Vec<Vec<SqlValue>> = vec![Vec::new(); width];
        let keys = request.key_columns.len().max(1);
        let per_chunk = (MAX_PARAMETERS / keys).max(1);
        let select = self.select(&request.columns);
        let key_names: Vec<String> = request
            .key_columns
            .iter()
            .map(|&c| quote_ident(&self.declared.store_names[c]))
            .collect();
        let json = match &request.key_columns[..] {
            [_] if self.json_each => json_keys(&request.keys[0], request.len()),
            _ => None,
        };
        if let Some(json) = json {
            let columns: Vec<String> = request
                .columns
                .iter()
                .map(|&c| format!("t.{}", quote_ident(&self.declared.store_names[c])))
                .collect();
            let sql = format!(
                "SELECT {} FROM json_each(?1) AS k CROSS JOIN {} AS t ON t.{} = k.value",
                columns.join(", "),
                quote_ident(&self.declared.table),
                key_names[0]
            );
            self.with_connection(|conn| {
                Self::rows(conn, &sql, &[SqlValue::Text(json)], width, &mut values)
                    .map_err(|e| format!("query on jdbc:sqlite:{} failed: {e}", self.path))
            })?;
            return self
                .declared
                .batch(&self.describe_short(), &request.columns, values);
        }
        self.with_connection(|conn| {
            let n = request.len();
            let mut at = 0;
            while at < n {
                let end = (at + per_chunk).min(n);
                // the chunk's key count rounded up to a power of two
                let slots = (end - at).next_power_of_two().clamp(8, per_chunk.max(8));
                let mut params = Vec::with_capacity(slots * keys);
                for i in 0..slots {
                    let row = (at + i).min(end - 1);
                    params.extend(request.keys.iter().map(|k| key_value(k, row)));
                }
                let sql = if keys == 1 {
                    format!(
                        "{select} WHERE {} IN ({})",
                        key_names[0],
                        vec!["?"; slots].join(", ")
                    )
                } else {
                    let tuple = format!("({})", vec!["?"; keys].join(", "));
                    format!(
                        "{select} WHERE ({}) IN (VALUES {})",
                        key_names.join(", "),
                        vec![tuple.as_str(); slots].join(", ")
                    )
                };
                Self::rows(conn, &sql, &params, width, &mut values)
                    .map_err(|e| format!("query on jdbc:sqlite:{} failed: {e}", self.path))?;
                at = end;
            }
            Ok(())
        })?;
        self.declared
            .batch(&self.describe_short(), &request.columns, values)
    }
}

fn connect(path: &str) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(64);
    // Lookups seek all over the file: map it (no read call and copy per
    // page) and keep more of it cached than SQLite's 2 MB default.
    conn.pragma_update(None, "mmap_size", 1i64 << 30)?;
    conn.pragma_update(None, "cache_size", -65536i64)?;
    Ok(conn)
}

impl LookupSource for SqliteTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.declared.schema)
    }

    fn describe(&self) -> String {
        format!("SQLite file {}, table {}", self.path, self.declared.table)
    }

    fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
        let mut attempt = 0;
        loop {
            match self.lookup_once(request) {
                Ok(b) => return Ok(b),
                Err(e) if attempt >= self.max_retries => return Err(e.into()),
                Err(_) => attempt += 1,
            }
        }
    }

    /// SQLite runs inside the process, on the CPU: an async request runs
    /// on the worker that sends it, as a sync one does (a thread of its
    /// own would only contend with the workers for the cores; requests of
    /// different workers still run at once, on connections of their own).
    fn lookup_async(self: Arc<Self>, request: LookupRequest, done: LookupDone) {
        done(self.lookup(&request));
    }

    fn can_scan(&self) -> bool {
        true
    }

    fn scan(&self, request: &ScanRequest<'_>, sink: &Sink<'_>) -> tenon_planner::exec::Result<()> {
        self.scan_all(request, sink)
    }
}

impl SqliteTable {
    fn scan_all(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
    ) -> tenon_planner::exec::Result<()> {
        let columns = request.columns;
        let select = self.select(columns);
        let size = request.batch_size.max(1);
        let failed = |e: String| ExecError::Source(e.into());
        let mut pending: Result<(), ExecError> = Ok(());
        self.with_connection(|conn| {
            let mut stmt = conn
                .prepare(&select)
                .map_err(|e| format!("query on jdbc:sqlite:{} failed: {e}", self.path))?;
            let mut rows = stmt
                .query([])
                .map_err(|e| format!("query on jdbc:sqlite:{} failed: {e}", self.path))?;
            let mut values: Vec<Vec<SqlValue>> = vec![Vec::new(); columns.len()];
            loop {
                let row = rows
                    .next()
                    .map_err(|e| format!("reading jdbc:sqlite:{} failed: {e}", self.path))?;
                let done = row.is_none();
                if let Some(row) = row {
                    for (c, column) in values.iter_mut().enumerate() {
                        column.push(match row.get_ref(c).map_err(|e| e.to_string())? {
                            ValueRef::Null => SqlValue::Null,
                            ValueRef::Integer(i) => SqlValue::Int(i),
                            ValueRef::Real(r) => SqlValue::Real(r),
                            ValueRef::Text(t) => {
                                SqlValue::Text(String::from_utf8_lossy(t).into_owned())
                            }
                            ValueRef::Blob(_) => SqlValue::Blob,
                        });
                    }
                }
                let full = values.first().map_or(0, Vec::len);
                if full >= size || (done && full > 0) {
                    let chunk = std::mem::replace(&mut values, vec![Vec::new(); columns.len()]);
                    let batch = self
                        .declared
                        .batch(&self.describe_short(), columns, chunk)?;
                    if let Err(e) = sink(batch) {
                        pending = Err(e);
                        return Ok(());
                    }
                }
                if done {
                    return Ok(());
                }
            }
        })
        .map_err(failed)?;
        pending
    }
}
