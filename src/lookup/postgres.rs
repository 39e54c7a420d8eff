//! A PostgreSQL table as a lookup table (`'url' =
//! 'jdbc:postgresql://host:port/db'`, `'username'`, `'password'`), through
//! the `postgres` crate (synchronous, no TLS).
//!
//! Connections are pooled as SQLite's are. A request binds each key column
//! as one text array, cast to the column's type: `WHERE k = ANY($1::text[]
//! ::integer[])`, or for several key columns `WHERE (k1, k2) IN (SELECT *
//! FROM unnest($1::text[]::t1[], $2::text[]::t2[]))`: one statement, one
//! round trip per request, whatever its key count. Values come back as
//! text (`col::text`) and are read by the declared types (module
//! `values`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};
use tenon_planner::exec::{ExecError, ScanRequest, Sink};
use tenon_planner::lookup::{LookupError, LookupRequest, LookupSource};

use super::values::{SqlValue, key_value};
use super::{Declared, quote_ident};

/// A PostgreSQL table, looked up by key or scanned.
pub(crate) struct PostgresTable {
    /// The URL as written (for messages; no password in it).
    url: String,
    config: Config,
    declared: Declared,
    /// Each declared column's PostgreSQL type, as `format_type` writes it.
    types: Vec<String>,
    pool: Mutex<Vec<Client>>,
    max_retries: u32,
}

impl std::fmt::Debug for PostgresTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresTable")
            .field("url", &self.url)
            .field("table", &self.declared.table)
            .finish()
    }
}

/// The connection settings of `url` (`jdbc:postgresql://host[:port]/db`).
fn config(url: &str, user: Option<&str>, password: Option<&str>) -> Result<Config, String> {
    let rest = url
        .strip_prefix("jdbc:postgresql://")
        .ok_or_else(|| format!("'{url}' is not jdbc:postgresql://host:port/database"))?;
    let rest = rest.split('?').next().unwrap_or(rest);
    let (address, db) = rest.split_once('/').ok_or_else(|| {
        format!("'{url}' names no database: jdbc:postgresql://host:port/database")
    })?;
    let (host, port) = match address.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse::<u16>()
                .map_err(|_| format!("'{url}': port `{p}` is not a number from 1 to 65535"))?,
        ),
        None => (address, 5432),
    };
    if host.is_empty() || db.is_empty() {
        return Err(format!(
            "'{url}' is not jdbc:postgresql://host:port/database"
        ));
    }
    let mut c = Config::new();
    c.host(host)
        .port(port)
        .dbname(db)
        .connect_timeout(Duration::from_secs(10))
        .application_name("tenon");
    if let Some(u) = user {
        c.user(u);
    }
    if let Some(p) = password {
        c.password(p);
    }
    Ok(c)
}

/// Whether a column of PostgreSQL type `pg` can hold values of `t`.
fn fits(pg: &str, t: &DataType) -> bool {
    use DataType::*;
    let pg = pg.to_ascii_lowercase();
    let is = |p: &str| pg.starts_with(p);
    match t {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => {
            is("smallint") || is("integer") || is("bigint")
        }
        Float32 | Float64 => {
            is("real")
                || is("double")
                || is("numeric")
                || is("smallint")
                || is("integer")
                || is("bigint")
        }
        Decimal128(..) => is("numeric") || is("integer") || is("bigint") || is("smallint"),
        Boolean => is("boolean"),
        Utf8 | LargeUtf8 | Utf8View => is("text") || is("character") || is("uuid") || is("name"),
        Date32 | Date64 => is("date"),
        Timestamp(_, None) => is("timestamp without"),
        Timestamp(_, Some(_)) => is("timestamp with "),
        _ => false,
    }
}

impl PostgresTable {
    /// Connects and checks the declared columns against the table.
    ///
    /// # Errors
    /// As [`super::sqlite::SqliteTable::open`]: `(true, _)` when the
    /// server cannot be reached or refuses the credentials.
    pub(crate) fn open(
        url: &str,
        user: Option<&str>,
        password: Option<&str>,
        mut declared: Declared,
        max_retries: u32,
    ) -> Result<PostgresTable, (bool, String)> {
        let config = config(url, user, password).map_err(|m| (false, m))?;
        let mut client = config
            .connect(NoTls)
            .map_err(|e| (true, format!("cannot connect to {url}: {}", reason(&e))))?;
        let table = declared.table.clone();
        let read = |e: postgres::Error| (true, format!("cannot read {url}: {}", reason(&e)));
        let oid: Option<u32> = client
            .query_one("SELECT to_regclass($1)::oid", &[&table])
            .map_err(read)?
            .get(0);
        let Some(oid) = oid else {
            let tables: Vec<String> = client
                .query(
                    "SELECT table_schema || '.' || table_name FROM information_schema.tables \
                     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
                    &[],
                )
                .map_err(read)?
                .iter()
                .map(|r| r.get(0))
                .collect();
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
        };
        let columns: Vec<(String, String)> = client
            .query(
                "SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute \
                 WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                &[&oid],
            )
            .map_err(read)?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        declared.check_columns(url, &columns, &fits, "PostgreSQL")?;
        let types = declared
            .store_names
            .iter()
            .map(|n| {
                columns
                    .iter()
                    .find(|(c, _)| c == n)
                    .map_or_else(|| "text".to_string(), |(_, t)| t.clone())
            })
            .collect();
        Ok(PostgresTable {
            url: url.to_string(),
            config,
            declared,
            types,
            pool: Mutex::new(vec![client]),
            max_retries,
        })
    }

    /// The table's row count.
    pub(crate) fn row_count(&self) -> Option<u64> {
        let sql = format!("SELECT count(*) FROM {}", self.table_sql());
        self.with_client(|c| c.query_one(&sql, &[]).map(|r| r.get::<_, i64>(0)))
            .ok()
            .map(|n| n.max(0) as u64)
    }

    /// The table's name as SQL: `schema.table` parts quoted.
    fn table_sql(&self) -> String {
        self.declared
            .table
            .split('.')
            .map(quote_ident)
            .collect::<Vec<_>>()
            .join(".")
    }

    fn with_client<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, String> {
        let idle = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut client = match idle {
            Some(c) if !c.is_closed() => c,
            _ => self
                .config
                .connect(NoTls)
                .map_err(|e| format!("cannot connect to {}: {}", self.url, reason(&e)))?,
        };
        let result =
            f(&mut client).map_err(|e| format!("query on {} failed: {}", self.url, reason(&e)));
        if result.is_ok()
            && let Ok(mut p) = self.pool.lock()
        {
            p.push(client);
        }
        result
    }

    /// Where values come from, for a misfit's message.
    fn describe_short(&self) -> String {
        format!("{} table {}", self.url, self.declared.table)
    }

    fn select(&self, columns: &[usize]) -> String {
        let names: Vec<String> = columns
            .iter()
            .map(|&c| format!("{}::text", quote_ident(&self.declared.store_names[c])))
            .collect();
        format!("SELECT {} FROM {}", names.join(", "), self.table_sql())
    }

    fn lookup_once(&self, request: &LookupRequest) -> Result<RecordBatch, String> {
        let arrays: Vec<Vec<Option<String>>> = request
            .keys
            .iter()
            .map(|k| {
                (0..k.len())
                    .map(|r| match key_value(k, r) {
                        SqlValue::Null | SqlValue::Blob => None,
                        SqlValue::Int(i) => Some(i.to_string()),
                        SqlValue::Real(x) => Some(x.to_string()),
                        SqlValue::Text(t) => Some(t),
                    })
                    .collect()
            })
            .collect();
        let cast = |i: usize, c: usize| format!("${}::text[]::{}[]", i + 1, self.types[c]);
        let select = self.select(&request.columns);
        let sql = match request.key_columns.as_slice() {
            [one] => format!(
                "{select} WHERE {} = ANY({})",
                quote_ident(&self.declared.store_names[*one]),
                cast(0, *one)
            ),
            many => format!(
                "{select} WHERE ({}) IN (SELECT * FROM unnest({}))",
                many.iter()
                    .map(|&c| quote_ident(&self.declared.store_names[c]))
                    .collect::<Vec<_>>()
                    .join(", "),
                many.iter()
                    .enumerate()
                    .map(|(i, &c)| cast(i, c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = arrays
            .iter()
            .map(|a| a as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let width = request.columns.len();
        let rows = self.with_client(|c| {
            let stmt = c.prepare(&sql)?;
            c.query(&stmt, &params)
        })?;
        let mut values: Vec<Vec<SqlValue>> = vec![Vec::with_capacity(rows.len()); width];
        for row in &rows {
            for (i, column) in values.iter_mut().enumerate() {
                column.push(
                    row.get::<_, Option<String>>(i)
                        .map_or(SqlValue::Null, SqlValue::Text),
                );
            }
        }
        self.declared
            .batch(&self.describe_short(), &request.columns, values)
    }

    fn scan_all(
        &self,
        request: &ScanRequest<'_>,
        sink: &Sink<'_>,
    ) -> tenon_planner::exec::Result<()> {
        let columns = request.columns;
        let select = self.select(columns);
        let size = request.batch_size.max(1);
        let mut pending: Result<(), ExecError> = Ok(());
        let mut failed: Option<String> = None;
        self.with_client(|c| {
            let none: [&(dyn postgres::types::ToSql + Sync); 0] = [];
            let mut rows = c.query_raw(select.as_str(), none)?;
            let mut values: Vec<Vec<SqlValue>> = vec![Vec::new(); columns.len()];
            loop {
                let row = rows.next()?;
                let done = row.is_none();
                if let Some(row) = row {
                    for (i, column) in values.iter_mut().enumerate() {
                        column.push(
                            row.get::<_, Option<String>>(i)
                                .map_or(SqlValue::Null, SqlValue::Text),
                        );
                    }
                }
                let full = values.first().map_or(0, Vec::len);
                if full >= size || (done && full > 0) {
                    let chunk = std::mem::replace(&mut values, vec![Vec::new(); columns.len()]);
                    match self.declared.batch(&self.describe_short(), columns, chunk) {
                        Ok(batch) => {
                            if let Err(e) = sink(batch) {
                                pending = Err(e);
                                return Ok(());
                            }
                        }
                        Err(m) => {
                            failed = Some(m);
                            return Ok(());
                        }
                    }
                }
                if done {
                    return Ok(());
                }
            }
        })
        .map_err(|e| ExecError::Source(e.into()))?;
        if let Some(m) = failed {
            return Err(ExecError::Source(m.into()));
        }
        pending
    }
}

/// A client error with its server's message (the crate's `Display` says
/// only "db error").
fn reason(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            text
        }
    }
}

impl LookupSource for PostgresTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.declared.schema)
    }

    fn describe(&self) -> String {
        format!("PostgreSQL {}, table {}", self.url, self.declared.table)
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

    fn can_scan(&self) -> bool {
        true
    }

    fn scan(&self, request: &ScanRequest<'_>, sink: &Sink<'_>) -> tenon_planner::exec::Result<()> {
        self.scan_all(request, sink)
    }
}
