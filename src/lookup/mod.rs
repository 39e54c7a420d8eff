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
//! | `lookup.max-retries` | no | retries of a failed request (not of a key found missing) | 3 |
//! | `lookup.cache` | no | `NONE` | `NONE` |
//!
//! The declared columns must be columns of the database's table (matched
//! without regard to case), of types that can hold their values
//! (module `values`); a `PROCTIME()` column, watermark or primary key is
//! not taken (the table is read as it is when each probe row is
//! processed).

mod postgres;
mod sqlite;
mod values;

use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};
use tenon_planner::lookup::LookupSource;
use tenon_planner::sql::TableTime;

use crate::error::Error;

/// The `connector` value of a lookup table.
pub(crate) const JDBC: &str = "jdbc";

/// The options a `'jdbc'` table takes.
const KEYS: [&str; 7] = [
    "connector",
    "url",
    "table-name",
    "username",
    "password",
    "lookup.max-retries",
    "lookup.cache",
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
    if let Some(cache) = get("lookup.cache").filter(|c| !c.eq_ignore_ascii_case("NONE")) {
        return Err(ddl(format!(
            "'lookup.cache' = '{cache}': tenon does not cache lookups yet; only 'NONE' is \
             accepted"
        )));
    }
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
        let table =
            Arc::new(sqlite::SqliteTable::open(path, declared, max_retries).map_err(failed)?);
        return Ok(LookupTable {
            rows: table.row_count(),
            describe: table.describe(),
            lookup: table,
        });
    }
    if url.starts_with("jdbc:postgresql:") {
        let table = Arc::new(
            postgres::PostgresTable::open(
                &url,
                get("username").as_deref(),
                get("password").as_deref(),
                declared,
                max_retries,
            )
            .map_err(failed)?,
        );
        return Ok(LookupTable {
            rows: table.row_count(),
            describe: table.describe(),
            lookup: table,
        });
    }
    Err(ddl(format!("'url' = '{url}': tenon connects to {SCHEMES}")))
}
