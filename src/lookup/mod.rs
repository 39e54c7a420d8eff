//! Lookup tables: `CREATE TABLE ... WITH ('connector' = 'jdbc', 'url' =
//! ..., 'table-name' = ...)`, a table of an external database whose rows a
//! lookup join fetches by key ([`LookupSource`]) and a scan reads whole
//! ([`LookupSource::scan`]).
//!
//! | option | required | values | default |
//! |---|---|---|---|
//! | `connector` | yes | `jdbc` | |
//! | `url` | yes | `jdbc:sqlite:path/to/file.db`, `jdbc:postgresql://host:port/database` | |
//! | `table-name` | yes | the database's table | |
//! | `username`, `password` | no | PostgreSQL's credentials (none for SQLite) | |
//! | `connect-timeout` | no | a duration: how long a PostgreSQL connection may take | 5s |
//! | `lookup.max-retries` | no | retries of a failed request (not of a key found missing) | 3 |
//! | `lookup.cache` | no | `NONE`, `PARTIAL`, `FULL` | `NONE` |
//! | `lookup.partial-cache.max-rows` | PARTIAL | rows kept at most | |
//! | `lookup.partial-cache.expire-after-write` | no | a duration | none |
//! | `lookup.partial-cache.expire-after-access` | no | a duration | none |
//! | `lookup.partial-cache.cache-missing-key` | no | `true`, `false` | `true` |
//! | `lookup.full-cache.reload-strategy` | no | `PERIODIC` | `PERIODIC` |
//! | `lookup.full-cache.periodic-reload.interval` | no | a duration | never reloaded |
//!
//! The declared columns must be columns of the database's table (matched
//! without regard to case), of types that can hold their values
//! (module `values`); a `PROCTIME()` column, watermark or primary key is
//! not taken (the table is read as it is when each probe row is
//! processed).

mod pg_url;
mod postgres;
mod sqlite;
mod values;

pub(crate) use pg_url::mask_secrets;

use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};
use tenon_planner::lookup::{CacheMode, LookupCache, LookupSource, SystemClock, parse_duration};
use tenon_planner::sql::TableTime;

use crate::error::Error;

/// The `connector` value of a lookup table.
pub(crate) const JDBC: &str = "jdbc";

/// The options a `'jdbc'` table takes.
const KEYS: [&str; 14] = [
    "connector",
    "url",
    "table-name",
    "username",
    "password",
    "connect-timeout",
    "lookup.max-retries",
    "lookup.cache",
    "lookup.partial-cache.max-rows",
    "lookup.partial-cache.expire-after-write",
    "lookup.partial-cache.expire-after-access",
    "lookup.partial-cache.cache-missing-key",
    "lookup.full-cache.reload-strategy",
    "lookup.full-cache.periodic-reload.interval",
];

/// The URL schemes tenon connects to.
const SCHEMES: &str = "jdbc:sqlite:path/to/file.db and jdbc:postgresql://host:port/database";

/// A lookup table's declared columns and the database table they read.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    /// The database's table (`table-name`).
    pub(crate) table: String,
    /// The declared schema.
    pub(crate) schema: SchemaRef,
    /// Each declared column's name in the database (its spelling there).
    pub(crate) store_names: Vec<String>,
}

impl Declared {
    /// Matches the declared columns to the database's `(name, type)`
    /// columns, checking each type with `fits`.
    fn check_columns(
        &mut self,
        url: &str,
        columns: &[(String, String)],
        fits: &dyn Fn(&str, &DataType) -> bool,
        store: &str,
    ) -> Result<(), (bool, String)> {
        let mut names = Vec::with_capacity(self.schema.fields().len());
        for f in self.schema.fields() {
            let Some((name, decl)) = columns
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(f.name()))
            else {
                return Err((
                    false,
                    format!(
                        "table `{}` of {url} has no column `{}`; its columns: {}",
                        self.table,
                        f.name(),
                        columns
                            .iter()
                            .map(|(n, t)| format!("{n} {t}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            };
            if !fits(decl, f.data_type()) {
                return Err((
                    false,
                    format!(
                        "column `{}` is declared {} but is {} `{decl}` in table `{}` of {url}: \
                         declare it with a type that holds its values",
                        f.name(),
                        f.data_type(),
                        store,
                        self.table
                    ),
                ));
            }
            names.push(name.clone());
        }
        self.store_names = names;
        Ok(())
    }
}

impl Declared {
    /// Values of the table's `columns` (one list per column, as the
    /// database gave them) as a batch of the declared types, every field
    /// nullable; `where_` names the table in a misfit's message.
    pub(crate) fn batch(
        &self,
        where_: &str,
        columns: &[usize],
        values: Vec<Vec<values::SqlValue>>,
    ) -> Result<arrow_array::RecordBatch, String> {
        let schema = self.schema.as_ref();
        let rows = values.first().map_or(0, Vec::len);
        let arrays = columns
            .iter()
            .zip(&values)
            .map(|(&c, v)| {
                let f = schema.field(c);
                values::to_array(v, f.data_type(), f.name(), where_)
            })
            .collect::<Result<Vec<arrow_array::ArrayRef>, String>>()?;
        let fields: Vec<_> = columns
            .iter()
            .map(|&c| schema.field(c).clone().with_nullable(true))
            .collect();
        arrow_array::RecordBatch::try_new_with_options(
            Arc::new(arrow_schema::Schema::new(fields)),
            arrays,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| e.to_string())
    }
}

/// `name` quoted as an SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A lookup table, opened.
#[derive(Debug)]
pub(crate) struct LookupTable {
    /// Fetches rows by key, and reads the whole table.
    pub(crate) lookup: Arc<dyn LookupSource>,
    /// Its rows, if the database says.
    pub(crate) rows: Option<u64>,
    /// Where its rows come from (EXPLAIN).
    pub(crate) describe: String,
    /// Its cache, if it has one.
    pub(crate) cache: Option<Arc<LookupCache>>,
}

/// The cache the options ask for.
fn cache_mode(get: &dyn Fn(&str) -> Option<String>) -> Result<CacheMode, String> {
    let duration = |key: &str| -> Result<Option<std::time::Duration>, String> {
        get(key)
            .map(|v| parse_duration(&v).map_err(|w| format!("'{key}' = '{v}': expected {w}")))
            .transpose()
    };
    let partial_keys = [
        "lookup.partial-cache.max-rows",
        "lookup.partial-cache.expire-after-write",
        "lookup.partial-cache.expire-after-access",
        "lookup.partial-cache.cache-missing-key",
    ];
    let full_keys = [
        "lookup.full-cache.reload-strategy",
        "lookup.full-cache.periodic-reload.interval",
    ];
    let mode = get("lookup.cache").unwrap_or_else(|| "NONE".into());
    let stray = |keys: &[&str], mode: &str| {
        keys.iter()
            .find(|k| get(k).is_some())
            .map(|k| format!("'{k}' is an option of another cache than 'lookup.cache' = '{mode}'"))
    };
    match mode.to_ascii_uppercase().as_str() {
        "NONE" => match stray(&partial_keys, "NONE").or_else(|| stray(&full_keys, "NONE")) {
            Some(e) => Err(e),
            None => Ok(CacheMode::None),
        },
        "PARTIAL" => {
            if let Some(e) = stray(&full_keys, "PARTIAL") {
                return Err(e);
            }
            let max = get("lookup.partial-cache.max-rows").ok_or_else(|| {
                "'lookup.cache' = 'PARTIAL' needs 'lookup.partial-cache.max-rows' (the rows it \
                 keeps at most)"
                    .to_string()
            })?;
            let max_rows = max.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                format!(
                    "'lookup.partial-cache.max-rows' = '{max}': expected a whole number above 0"
                )
            })?;
            let cache_missing_key = match get("lookup.partial-cache.cache-missing-key") {
                None => true,
                Some(v) if v.eq_ignore_ascii_case("true") => true,
                Some(v) if v.eq_ignore_ascii_case("false") => false,
                Some(v) => {
                    return Err(format!(
                        "'lookup.partial-cache.cache-missing-key' = '{v}': expected 'true' or \
                         'false'"
                    ));
                }
            };
            Ok(CacheMode::Partial {
                max_rows,
                expire_after_write: duration("lookup.partial-cache.expire-after-write")?,
                expire_after_access: duration("lookup.partial-cache.expire-after-access")?,
                cache_missing_key,
            })
        }
        "FULL" => {
            if let Some(e) = stray(&partial_keys, "FULL") {
                return Err(e);
            }
            if let Some(v) = get("lookup.full-cache.reload-strategy")
                .filter(|v| !v.eq_ignore_ascii_case("PERIODIC"))
            {
                return Err(format!(
                    "'lookup.full-cache.reload-strategy' = '{v}': tenon reloads 'PERIODIC' only"
                ));
            }
            Ok(CacheMode::Full {
                reload_interval: duration("lookup.full-cache.periodic-reload.interval")?,
            })
        }
        other => Err(format!(
            "'lookup.cache' = '{other}': expected 'NONE', 'PARTIAL' or 'FULL'"
        )),
    }
}

/// Whether `options` name the lookup tables' connector.
pub(crate) fn is_lookup(options: &[(String, String)]) -> bool {
    options
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("connector") && v.trim().eq_ignore_ascii_case(JDBC))
}

/// Opens the lookup table `name` declared with `schema`, `time` and
/// `options` (`'connector' = 'jdbc'`).
///
/// # Errors
/// [`Error::Ddl`] for options, columns or a table that do not match
/// (exit 2); [`Error::Connector`] when the database cannot be reached.
pub(crate) fn open(
    name: &str,
    schema: &SchemaRef,
    time: &TableTime,
    options: &[(String, String)],
) -> Result<LookupTable, Error> {
    let ddl = |m: String| Error::Ddl(format!("cannot create lookup table `{name}`: {m}"));
    let get = |key: &str| {
        options
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.trim().to_string())
    };
    if let Some((k, _)) = options
        .iter()
        .find(|(k, _)| !KEYS.iter().any(|x| x.eq_ignore_ascii_case(k)))
    {
        return Err(ddl(format!(
            "unknown option '{k}' for 'connector' = 'jdbc'; the options are {}",
            KEYS.iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if time.proc_time.is_some() || time.event_time.is_some() || !time.primary_key.is_empty() {
        return Err(ddl(
            "a lookup table declares no PROCTIME() column, WATERMARK or PRIMARY KEY: it is \
             read as it is when each probe row is processed (declare those on the probe \
             table)"
                .into(),
        ));
    }
    if let Some(f) = schema
        .fields()
        .iter()
        .find(|f| !values::supported(f.data_type()))
    {
        return Err(ddl(format!(
            "column `{}` is of type {}, which a lookup table cannot read; use integers, \
             floating point, DECIMAL, BOOLEAN, STRING, DATE or TIMESTAMP",
            f.name(),
            f.data_type()
        )));
    }
    let url = get("url").ok_or_else(|| ddl(format!("'url' is required ({SCHEMES})")))?;
    let table = get("table-name")
        .ok_or_else(|| ddl("'table-name' is required: the database's table".into()))?;
    let max_retries = match get("lookup.max-retries") {
        None => 3,
        Some(v) => v.parse::<u32>().map_err(|_| {
            ddl(format!(
                "'lookup.max-retries' = '{v}': expected a whole number of retries (0 or more)"
            ))
        })?,
    };
    let cache = cache_mode(&get).map_err(ddl)?;
    let declared = Declared {
        table,
        schema: Arc::clone(schema),
        store_names: Vec::new(),
    };
    let failed = |(unreachable, m): (bool, String)| {
        if unreachable {
            Error::Connector(format!("lookup table `{name}`: {m}"))
        } else {
            ddl(m)
        }
    };
    if let Some(path) = url.strip_prefix("jdbc:sqlite:") {
        if get("username").is_some() || get("password").is_some() {
            return Err(ddl(
                "SQLite takes no 'username' or 'password' (a file has no users)".into(),
            ));
        }
        if get("connect-timeout").is_some() {
            return Err(ddl(
                "SQLite takes no 'connect-timeout' (a file is opened, not connected to)".into(),
            ));
        }
        let table =
            Arc::new(sqlite::SqliteTable::open(path, declared, max_retries).map_err(failed)?);
        return Ok(LookupTable {
            rows: table.row_count(),
            describe: table.describe(),
            lookup: table,
            cache: LookupCache::new(cache.clone(), Arc::new(SystemClock::default())),
        });
    }
    if url.starts_with("jdbc:postgresql:") {
        let connect_timeout = get("connect-timeout")
            .map(|v| {
                parse_duration(&v)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        ddl(format!(
                            "'connect-timeout' = '{v}': expected a duration above 0, such as \
                             '5s' or '500ms'"
                        ))
                    })
            })
            .transpose()?;
        let table = Arc::new(
            postgres::PostgresTable::open(
                &url,
                get("username").as_deref(),
                get("password").as_deref(),
                connect_timeout,
                declared,
                max_retries,
            )
            .map_err(failed)?,
        );
        return Ok(LookupTable {
            rows: table.row_count(),
            describe: table.describe(),
            lookup: table,
            cache: LookupCache::new(cache.clone(), Arc::new(SystemClock::default())),
        });
    }
    Err(ddl(format!(
        "'url' = '{}': tenon connects to {SCHEMES}",
        pg_url::masked(&url)
    )))
}
