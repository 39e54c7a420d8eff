//! A PostgreSQL table as a lookup table (`'url' =
//! 'jdbc:postgresql://host:port/db'`, `'username'`, `'password'`,
//! `'connect-timeout'`), through the `postgres` crate (synchronous, no
//! TLS). The URL is read by module `pg_url` and shown masked.
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
use super::{Declared, pg_url, quote_ident};

/// A PostgreSQL table, looked up by key or scanned.
pub(crate) struct PostgresTable {
    /// The URL with its password masked (for messages and EXPLAIN).
    url: String,
    config: Config,
    /// How long a connection may take.
    timeout: Duration,
    /// The table as SQL names it (`regclass`'s text: quoted as needed,
    /// with its schema when that is not on the search path).
    table_sql: String,
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

/// The connection settings of `url` (module `pg_url`), with the table's
/// `username` and `password` options (given in the URL too, they must
/// agree) and its connect timeout (the URL's `connect_timeout` when the
/// table has no `connect-timeout`).
fn config(
    url: &str,
    user: Option<&str>,
    password: Option<&str>,
    timeout: Option<Duration>,
) -> Result<(Config, Duration), String> {
    let parsed = pg_url::parse(url)?;
    let shown = pg_url::masked(url);
    let user = match (user, parsed.user.as_deref()) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!(
                "'username' = '{a}' and the user `{b}` of 'url' = '{shown}' differ: give one"
            ));
        }
        (a, b) => a.or(b),
    };
    let password = match (password, parsed.password.as_deref()) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!(
                "'password' and the password of 'url' = '{shown}' differ: give one"
            ));
        }
        (a, b) => a.or(b),
    };
    let timeout = timeout
        .or(parsed.connect_timeout)
        .unwrap_or(DEFAULT_CONNECT_TIMEOUT);
    let mut c = Config::new();
    c.host(&parsed.host)
        .port(parsed.port)
        .dbname(&parsed.dbname)
        .connect_timeout(timeout)
        .application_name(parsed.application_name.as_deref().unwrap_or("tenon"));
    if let Some(o) = &parsed.options {
        c.options(o);
    }
    if let Some(u) = user {
        c.user(u);
    }
    if let Some(p) = password {
        c.password(p);
    }
    Ok((c, timeout))
}

/// How long a connection may take to be made and answered when neither
/// the table's `connect-timeout` nor the URL's `connect_timeout` says.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection by `config`, given up after `timeout`: the client's own
/// timeout covers reaching the server only, not a server that accepts
/// and never answers, so the attempt runs on its own thread and is
/// abandoned (that thread ends when the server closes the connection).
fn connect(config: &Config, timeout: Duration, shown: &str) -> Result<Client, String> {
    let (send, receive) = std::sync::mpsc::channel();
    let config = config.clone();
    std::thread::Builder::new()
        .name("tenon-pg-connect".into())
        .spawn(move || {
            let _ = send.send(config.connect(NoTls));
        })
        .map_err(|e| format!("cannot connect to {shown}: cannot start a thread: {e}"))?;
    match receive.recv_timeout(timeout) {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(format!("cannot connect to {shown}: {}", reason(&e))),
        Err(_) => Err(format!(
            "cannot connect to {shown}: no answer within {} ('connect-timeout'; the server \
             accepted the connection but did not answer, or could not be reached)",
            show_duration(timeout)
        )),
    }
}

/// `d` as a message shows it: `5s`, `250ms`.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
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
        timeout: Option<Duration>,
        mut declared: Declared,
        max_retries: u32,
    ) -> Result<PostgresTable, (bool, String)> {
        let (config, timeout) = config(url, user, password, timeout).map_err(|m| (false, m))?;
        let url = &pg_url::masked(url);
        let mut client = connect(&config, timeout, url).map_err(|m| (true, m))?;
        let table = declared.table.clone();
        let read = |e: postgres::Error| (true, format!("cannot read {url}: {}", reason(&e)));
        // the table named exactly so (any characters, `"` too), else the
        // name as SQL reads it (`Shop.Customers` folds to lower case);
        // a name that is not SQL's syntax is then no table
        let exact: Option<u32> = client
            .query_opt(
                "SELECT c.oid FROM pg_class c WHERE c.relname = $1 \
                 AND pg_table_is_visible(c.oid) AND c.relkind IN ('r', 'v', 'm', 'f', 'p')",
                &[&table],
            )
            .map_err(read)?
            .map(|r| r.get(0));
        let oid = match exact {
            Some(oid) => Some(oid),
            None => client
                .query_one("SELECT to_regclass($1)::oid", &[&table])
                .ok()
                .and_then(|r| r.get::<_, Option<u32>>(0)),
        };
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
        // the table as SQL names it, quoted where it must be
        let table_sql: String = client
            .query_one("SELECT $1::oid::regclass::text", &[&oid])
            .map_err(read)?
            .get(0);
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
            timeout,
            table_sql,
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

    /// The table's name as SQL.
    fn table_sql(&self) -> &str {
        &self.table_sql
    }

    fn with_client<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, String> {
        let idle = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut client = match idle {
            Some(c) if !c.is_closed() => c,
            _ => connect(&self.config, self.timeout, &self.url)?,
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
                        // PostgreSQL's text cannot hold NUL: no row has
                        // such a key, so it is asked as NULL (matches none)
                        SqlValue::Text(t) if t.contains('\0') => None,
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
