//! Helpers of the SQL tests: small tables with NULLs and duplicates, a
//! session builder, result batches as sorted row strings, and a naive
//! row-at-a-time reference join (plain Rust over `Vec<Option<i64>>` rows).
//!
//! A test table holds rows of `Option<i64>` cells; a column's type says how
//! a cell becomes an Arrow value: `I64` and `I32` as integers, `Str` as the
//! string `"{table}-{n}"` (so the Utf8 payloads need no second row type).
//! Rendering a result row and a reference row the same way (`|` between
//! cells, `NULL` for a null) lets a test compare them as sorted strings.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, Field, Schema};
use tenon::kernels::{JoinType, Strategy};
use tenon::{Config, Error, Session};

/// One row of a test table or of a reference result.
pub type Row = Vec<Option<i64>>;

/// How a column's `Option<i64>` cells are stored and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    /// Int64.
    I64,
    /// Int32.
    I32,
    /// Utf8: cell `n` is the string `"{table}-{n}"`.
    Str,
    /// Utf8: cell `n` is the string `"t{n}"` in every table (for string
    /// join keys).
    Text,
}

/// A column of a relation: its qualifier and name, its type and, for
/// strings, the prefix of its values (the name of the table it comes from).
#[derive(Debug, Clone)]
pub struct Col {
    pub table: String,
    pub name: String,
    pub ty: ColType,
    pub prefix: String,
}

/// A relation of the reference: columns and rows (a registered table, or
/// the reference result of a join).
#[derive(Debug, Clone)]
pub struct Rel {
    pub cols: Vec<Col>,
    pub rows: Vec<Row>,
}

/// A test table: a name, columns and rows.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub cols: Vec<(String, ColType)>,
    pub rows: Vec<Row>,
}

impl Table {
    pub fn new(name: &str, cols: &[(&str, ColType)], rows: Vec<Row>) -> Table {
        for r in &rows {
            assert_eq!(r.len(), cols.len(), "table {name}: row {r:?}");
        }
        Table {
            name: name.to_string(),
            cols: cols.iter().map(|(c, t)| (c.to_string(), *t)).collect(),
            rows,
        }
    }

    /// The same columns and rows under another name (string payloads are
    /// named after the new table).
    pub fn renamed(&self, name: &str) -> Table {
        Table {
            name: name.to_string(),
            ..self.clone()
        }
    }

    /// The same table with every column of type `from` stored as `to`.
    pub fn retyped(&self, from: ColType, to: ColType) -> Table {
        let mut t = self.clone();
        for c in &mut t.cols {
            if c.1 == from {
                c.1 = to;
            }
        }
        t
    }

    pub fn schema(&self) -> Arc<Schema> {
        Arc::new(Schema::new(
            self.cols
                .iter()
                .map(|(n, t)| {
                    let dt = match t {
                        ColType::I64 => DataType::Int64,
                        ColType::I32 => DataType::Int32,
                        ColType::Str | ColType::Text => DataType::Utf8,
                    };
                    Field::new(n, dt, true)
                })
                .collect::<Vec<_>>(),
        ))
    }

    /// The table as one record batch.
    pub fn batch(&self) -> RecordBatch {
        let columns: Vec<ArrayRef> = self
            .cols
            .iter()
            .enumerate()
            .map(|(i, (_, t))| {
                let cells = self.rows.iter().map(|r| r[i]);
                match t {
                    ColType::I64 => Arc::new(cells.collect::<Int64Array>()) as ArrayRef,
                    ColType::I32 => Arc::new(
                        cells
                            .map(|c| c.map(|v| i32::try_from(v).unwrap()))
                            .collect::<Int32Array>(),
                    ) as ArrayRef,
                    ColType::Str => Arc::new(
                        cells
                            .map(|c| c.map(|v| format!("{}-{v}", self.name)))
                            .collect::<StringArray>(),
                    ) as ArrayRef,
                    ColType::Text => Arc::new(
                        cells
                            .map(|c| c.map(|v| format!("t{v}")))
                            .collect::<StringArray>(),
                    ) as ArrayRef,
                }
            })
            .collect();
        RecordBatch::try_new(self.schema(), columns).unwrap()
    }

    /// The table as a reference relation, its columns qualified by `alias`.
    pub fn rel_as(&self, alias: &str) -> Rel {
        Rel {
            cols: self
                .cols
                .iter()
                .map(|(n, t)| Col {
                    table: alias.to_string(),
                    name: n.clone(),
                    ty: *t,
                    prefix: self.name.clone(),
                })
                .collect(),
            rows: self.rows.clone(),
        }
    }

    /// The table as a reference relation qualified by its own name.
    pub fn rel(&self) -> Rel {
        self.rel_as(&self.name)
    }

    /// The table as CSV text (header, then rows; NULL as an empty field).
    pub fn to_csv(&self) -> String {
        let mut s = self
            .cols
            .iter()
            .map(|c| c.0.clone())
            .collect::<Vec<_>>()
            .join(",");
        s.push('\n');
        for r in &self.rows {
            let cells: Vec<String> = r
                .iter()
                .zip(&self.cols)
                .map(|(c, (_, t))| match (c, t) {
                    (None, _) => String::new(),
                    (Some(v), ColType::Str) => format!("{}-{v}", self.name),
                    (Some(v), ColType::Text) => format!("t{v}"),
                    (Some(v), _) => v.to_string(),
                })
                .collect();
            s.push_str(&cells.join(","));
            s.push('\n');
        }
        s
    }
}

impl Rel {
    /// The position of column `qualified` (`"a.k"`) or of the only column
    /// named `name`.
    pub fn col(&self, name: &str) -> usize {
        let (table, column) = match name.split_once('.') {
            Some((t, c)) => (Some(t), c),
            None => (None, name),
        };
        let found: Vec<usize> = self
            .cols
            .iter()
            .enumerate()
            .filter(|(_, c)| c.name == column && table.is_none_or(|t| c.table == t))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(found.len(), 1, "column {name} in {:?}", self.cols);
        found[0]
    }

    pub fn width(&self) -> usize {
        self.cols.len()
    }

    /// Rows whose predicate is true (SQL WHERE: NULL drops the row).
    pub fn filter(&self, pred: impl Fn(&Row) -> Option<bool>) -> Rel {
        Rel {
            cols: self.cols.clone(),
            rows: self
                .rows
                .iter()
                .filter(|r| pred(r) == Some(true))
                .cloned()
                .collect(),
        }
    }

    /// The columns at `idx`, in that order.
    pub fn project(&self, idx: &[usize]) -> Rel {
        Rel {
            cols: idx.iter().map(|&i| self.cols[i].clone()).collect(),
            rows: self
                .rows
                .iter()
                .map(|r| idx.iter().map(|&i| r[i]).collect())
                .collect(),
        }
    }

    /// The columns named (`"a.k"`), in that order.
    pub fn select(&self, names: &[&str]) -> Rel {
        let idx: Vec<usize> = names.iter().map(|n| self.col(n)).collect();
        self.project(&idx)
    }

    /// One rendered cell.
    fn cell(c: &Col, v: Option<i64>) -> String {
        match v {
            None => "NULL".to_string(),
            Some(v) if c.ty == ColType::Str => format!("{}-{v}", c.prefix),
            Some(v) if c.ty == ColType::Text => format!("t{v}"),
            Some(v) => v.to_string(),
        }
    }

    /// Every row rendered as `cell|cell|...`, sorted.
    pub fn strings(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(&self.cols)
                    .map(|(v, c)| Rel::cell(c, *v))
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        out.sort();
        out
    }
}

mod json;
mod reference;
mod tables;

pub use json::*;
pub use reference::*;
pub use tables::*;

/// A small deterministic generator (no dependency, reproducible rows).
pub struct Lcg(pub u64);

impl Lcg {
    /// A value in `0..n`.
    pub fn next(&mut self, n: i64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as i64
    }

    /// A value in `0..n`, NULL one time in `null_one_in`.
    pub fn cell(&mut self, n: i64, null_one_in: i64) -> Option<i64> {
        (self.next(null_one_in) != 0).then(|| self.next(n))
    }
}

// ------------------------------------------------------------ sessions

/// A session with `threads` workers and `batch_size` rows per batch and
/// no tables.
pub fn empty_session(threads: usize, batch_size: usize) -> Session {
    let config = Config {
        threads,
        batch_size,
        ..Config::default()
    };
    Session::new(config).expect("a session")
}

/// A session with these tables registered under their names.
pub fn session_with(tables: &[Table], threads: usize, batch_size: usize) -> Session {
    session_configured(
        tables,
        Config {
            threads,
            batch_size,
            ..Config::default()
        },
    )
}

/// A session of `config` with these tables registered under their names.
pub fn session_configured(tables: &[Table], config: Config) -> Session {
    let mut s = Session::new(config).expect("a session");
    for t in tables {
        s.register_batch(&t.name, t.batch())
            .unwrap_or_else(|e| panic!("register {}: {e}", t.name));
    }
    s
}

/// The standard tables `a`, `b`, `c`, `e`, `n`.
pub fn std_tables() -> Vec<Table> {
    vec![table_a(), table_b(), table_c(), table_e(), table_n()]
}

/// A session with the standard tables.
pub fn session(threads: usize, batch_size: usize) -> Session {
    session_with(&std_tables(), threads, batch_size)
}

/// The thread counts and batch sizes every join query runs with.
pub const CONFIGS: [(usize, usize); 4] = [(1, 1), (1, 8192), (4, 1), (4, 8192)];

/// Asserts that `sql` gives the rows `expected` (sorted row strings, as
/// [`run`] returns them) on the standard tables under every [`CONFIGS`]
/// thread count and batch size.
pub fn assert_rows_in_every_config(sql: &str, expected: &[String]) {
    for &(t, bs) in &CONFIGS {
        assert_eq!(
            run(&session(t, bs), sql),
            expected,
            "{sql} threads={t} batch={bs}"
        );
    }
}

// ------------------------------------------------------------- results

/// Every row of the batches rendered as `cell|cell|...` (NULL as `NULL`),
/// in result order.
pub fn row_strings_unsorted(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::new().with_null("NULL");
    let mut out = Vec::new();
    for b in batches {
        let formatters: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            out.push(
                formatters
                    .iter()
                    .map(|f| f.value(i).to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
    }
    out
}

/// [`row_strings_unsorted`], sorted (for queries without ORDER BY).
pub fn row_strings(batches: &[RecordBatch]) -> Vec<String> {
    let mut rows = row_strings_unsorted(batches);
    rows.sort();
    rows
}

/// Runs `sql`, panicking with the query and the error on failure.
pub fn collect(session: &Session, sql: &str) -> Vec<RecordBatch> {
    session
        .collect(sql)
        .unwrap_or_else(|e| panic!("{sql}\n  failed: {e}\n  ({e:?})"))
}

/// The sorted row strings of `sql`.
pub fn run(session: &Session, sql: &str) -> Vec<String> {
    row_strings(&collect(session, sql))
}

/// The row strings of `sql` in result order.
pub fn run_ordered(session: &Session, sql: &str) -> Vec<String> {
    row_strings_unsorted(&collect(session, sql))
}

/// `sql`'s error, panicking if it succeeds (or panics).
pub fn query_err(session: &Session, sql: &str) -> Error {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| session.collect(sql)));
    match result {
        Ok(Ok(b)) => panic!(
            "{sql}\n  expected an error, got rows {:?}",
            row_strings_unsorted(&b)
        ),
        Ok(Err(e)) => {
            // every error of every test case, in tenon's words (issue 52)
            let text = e.to_string();
            if let Some(p) = tenon_planner::words::dependency_prefix(&text) {
                panic!("{sql}\n  a dependency's `{p}` in: {text}");
            }
            e
        }
        Err(_) => panic!("{sql}\n  panicked instead of returning an error"),
    }
}

/// (strategy, build) of each join EXPLAIN reports for `sql`.
pub fn strategies(session: &Session, sql: &str) -> Vec<(Strategy, Option<String>)> {
    session
        .explain(sql)
        .unwrap_or_else(|e| panic!("EXPLAIN {sql}\n  failed: {e}"))
        .joins
        .iter()
        .map(|j| (j.strategy, j.build.clone()))
        .collect()
}

/// `(strategy, Some(build))` for comparing with [`strategies`].
pub fn sb(strategy: Strategy, build: Option<&str>) -> (Strategy, Option<String>) {
    (strategy, build.map(str::to_string))
}

/// A temporary directory of one test, removed when dropped (also when
/// the test fails).
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;

    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A unique, empty temporary directory for one test, under
/// `std::env::temp_dir()`: unique per call too, as tests that run at once
/// may ask for the same name (a helper's directory), and one's removal must
/// not take the other's files.
pub fn temp_dir(test: &str) -> TempDir {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "tenon-sql-tests-{}-{call}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// The hint text of `strategy` naming `table`: `/*+ BROADCAST(b) */`.
pub fn hint(strategy: Strategy, table: &str) -> String {
    format!("/*+ {}({table}) */", strategy.name())
}

// ------------------------------------------------------------ spilling

/// The settings (threads, batch size) the spilling tests sweep.
pub const SPILL_SETTINGS: [(usize, usize); 4] = [(1, 1), (4, 7), (1, 8192), (4, 8192)];

/// A session with the one table `t`.
pub fn session_of_t(t: &RecordBatch, threads: usize, batch_size: usize) -> Session {
    let mut s = empty_session(threads, batch_size);
    s.register_batch("t", t.clone()).unwrap();
    s
}

/// The files and directories left in `dir`.
pub fn left_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect()
}

/// Proptest cases per run: `default`, or `PROPTEST_CASES` for a deeper run.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A xorshift generator of `seed`: the same seed, the same numbers.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
