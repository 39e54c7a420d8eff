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

// ------------------------------------------------------------ reference

/// The join types of the reference join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefJoin {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one match (left columns only).
    Semi,
    /// Left rows without a match (left columns only).
    Anti,
}

impl RefJoin {
    /// The engine's join type for this reference join.
    pub fn join_type(self) -> JoinType {
        match self {
            RefJoin::Inner => JoinType::Inner,
            RefJoin::Left => JoinType::Left,
            RefJoin::Right => JoinType::Right,
            RefJoin::Full => JoinType::Full,
            RefJoin::Semi => JoinType::LeftSemi,
            RefJoin::Anti => JoinType::LeftAnti,
        }
    }
}

/// SQL `=`: unknown when either side is NULL.
pub fn eq(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? == b?)
}

/// SQL `<`.
pub fn lt(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? < b?)
}

/// SQL `>`.
pub fn gt(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? > b?)
}

/// SQL `IS NOT DISTINCT FROM`: never unknown, NULL equals NULL.
pub fn not_distinct(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a == b)
}

/// SQL three-valued AND.
pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// The naive nested-loop reference join: a pair matches when `on` is
/// `Some(true)`; outer joins add the unmatched rows NULL-extended.
pub fn ref_join(l: &Rel, r: &Rel, jt: RefJoin, on: impl Fn(&Row, &Row) -> Option<bool>) -> Rel {
    let mut rows = Vec::new();
    let mut right_matched = vec![false; r.rows.len()];
    for lr in &l.rows {
        let mut matched = false;
        for (j, rr) in r.rows.iter().enumerate() {
            if on(lr, rr) == Some(true) {
                matched = true;
                right_matched[j] = true;
                if matches!(
                    jt,
                    RefJoin::Inner | RefJoin::Left | RefJoin::Right | RefJoin::Full
                ) {
                    rows.push(lr.iter().chain(rr).copied().collect());
                }
            }
        }
        match jt {
            RefJoin::Left | RefJoin::Full if !matched => rows.push(
                lr.iter()
                    .copied()
                    .chain(std::iter::repeat_n(None, r.width()))
                    .collect(),
            ),
            RefJoin::Semi if matched => rows.push(lr.clone()),
            RefJoin::Anti if !matched => rows.push(lr.clone()),
            _ => {}
        }
    }
    if matches!(jt, RefJoin::Right | RefJoin::Full) {
        for (j, rr) in r.rows.iter().enumerate() {
            if !right_matched[j] {
                rows.push(
                    std::iter::repeat_n(None, l.width())
                        .chain(rr.iter().copied())
                        .collect(),
                );
            }
        }
    }
    let cols = match jt {
        RefJoin::Semi | RefJoin::Anti => l.cols.clone(),
        _ => l.cols.iter().chain(&r.cols).cloned().collect(),
    };
    Rel { cols, rows }
}

/// The reference of `l.key NOT IN (SELECT value FROM r)` with SQL's NULL
/// rules: an empty subquery keeps every row (NULL keys too); a NULL in the
/// subquery keeps none; otherwise a row is kept when its key is not NULL
/// and equals no value.
pub fn ref_not_in(l: &Rel, key: usize, values: &[Option<i64>]) -> Rel {
    let rows = if values.is_empty() {
        l.rows.clone()
    } else if values.iter().any(Option::is_none) {
        Vec::new()
    } else {
        l.rows
            .iter()
            .filter(|r| r[key].is_some_and(|k| !values.contains(&Some(k))))
            .cloned()
            .collect()
    };
    Rel {
        cols: l.cols.clone(),
        rows,
    }
}

// --------------------------------------------------------- the tables

use ColType::{I32, I64, Str};

fn r(cells: &[Option<i64>]) -> Row {
    cells.to_vec()
}

/// `a(k BIGINT, v BIGINT, s VARCHAR)`: duplicate keys (1), NULL keys, a
/// NULL value, a key with no partner in `b` (5), a NULL payload.
pub fn table_a() -> Table {
    Table::new(
        "a",
        &[("k", I64), ("v", I64), ("s", Str)],
        vec![
            r(&[Some(1), Some(10), Some(1)]),
            r(&[Some(1), Some(20), Some(2)]),
            r(&[Some(2), Some(30), Some(3)]),
            r(&[None, Some(40), Some(4)]),
            r(&[Some(3), None, Some(5)]),
            r(&[Some(5), Some(50), Some(6)]),
            r(&[None, None, Some(7)]),
            r(&[Some(2), Some(31), None]),
        ],
    )
}

/// `b(k BIGINT, v BIGINT, s VARCHAR)`: duplicate keys (1 three times, 2
/// twice: many-to-many with `a`), a NULL key, a key with no partner in `a`
/// (4), an exact duplicate of a row but for its NULL payload.
pub fn table_b() -> Table {
    Table::new(
        "b",
        &[("k", I64), ("v", I64), ("s", Str)],
        vec![
            r(&[Some(1), Some(15), Some(1)]),
            r(&[Some(1), Some(5), Some(2)]),
            r(&[Some(2), Some(30), Some(3)]),
            r(&[Some(2), Some(35), Some(4)]),
            r(&[None, Some(40), Some(5)]),
            r(&[Some(4), Some(60), Some(6)]),
            r(&[Some(3), Some(1), Some(7)]),
            r(&[Some(1), Some(15), None]),
        ],
    )
}

/// `c`: `b`'s rows with an Int32 key (`c(k INT, v BIGINT, s VARCHAR)`).
pub fn table_c() -> Table {
    let mut t = table_b().renamed("c");
    t.cols[0].1 = I32;
    t
}

/// `e`: `a`'s columns, no rows.
pub fn table_e() -> Table {
    Table::new("e", &[("k", I64), ("v", I64), ("s", Str)], Vec::new())
}

/// `n(k BIGINT)`: keys without NULLs, for `NOT IN` without NULLs.
pub fn table_n() -> Table {
    Table::new(
        "n",
        &[("k", I64)],
        vec![r(&[Some(1)]), r(&[Some(4)]), r(&[Some(1)])],
    )
}

/// The seed documents' tables `t1`, `t2`, `t3`: `(id BIGINT, name STRING,
/// age INT)` as in flink-sql-hints, plus FLIP-229's join columns `a`, `b`,
/// `c` (BIGINT).
pub fn seed_tables() -> Vec<Table> {
    let cols: &[(&str, ColType)] = &[
        ("id", I64),
        ("name", Str),
        ("age", I32),
        ("a", I64),
        ("b", I64),
        ("c", I64),
    ];
    let n = None;
    let s = Some;
    vec![
        Table::new(
            "t1",
            cols,
            vec![
                r(&[s(1), s(1), s(20), s(1), s(1), s(1)]),
                r(&[s(2), s(2), s(30), s(2), s(3), n]),
                r(&[s(2), s(3), s(40), s(3), s(2), s(2)]),
                r(&[s(3), s(4), n, n, s(4), s(3)]),
                r(&[n, s(5), s(50), s(2), n, s(4)]),
            ],
        ),
        Table::new(
            "t2",
            cols,
            vec![
                r(&[s(1), s(1), s(21), s(1), s(2), s(5)]),
                r(&[s(2), s(2), s(31), s(2), s(1), s(1)]),
                r(&[s(4), s(3), s(41), n, s(3), s(2)]),
                r(&[n, s(4), s(51), s(3), s(3), n]),
                r(&[s(2), n, s(61), s(2), s(2), s(2)]),
            ],
        ),
        Table::new(
            "t3",
            cols,
            vec![
                r(&[s(1), s(1), s(22), s(1), s(1), s(2)]),
                r(&[s(2), s(2), s(32), s(5), n, s(3)]),
                r(&[s(2), s(3), s(42), s(2), s(2), s(3)]),
                r(&[s(5), s(4), n, s(4), s(5), n]),
            ],
        ),
    ]
}

/// A generated table `name(k BIGINT, v BIGINT, s VARCHAR, t VARCHAR)` of
/// `rows` rows (deterministic for a `seed`): keys in `0..keys` with about
/// 3% NULLs and 5% of the rows on the hot key 7 (skew), values in
/// `0..1000` with about 2% NULLs, `s` the row number, `t` the string
/// `"t{k % 50}"` (NULL with the key).
pub fn generated(name: &str, rows: usize, keys: i64, seed: u64) -> Table {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let data = (0..rows)
        .map(|i| {
            let k = match next(100) {
                0..=2 => None,
                3..=7 => Some(7),
                _ => Some(next(keys as u64) as i64),
            };
            let v = if next(50) == 0 {
                None
            } else {
                Some(next(1000) as i64)
            };
            vec![k, v, Some(i as i64), k.map(|k| k % 50)]
        })
        .collect();
    Table::new(
        name,
        &[("k", I64), ("v", I64), ("s", Str), ("t", ColType::Text)],
        data,
    )
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
    let mut s = empty_session(threads, batch_size);
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
        Ok(Err(e)) => e,
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
/// `std::env::temp_dir()`.
pub fn temp_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("tenon-sql-tests-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// The hint text of `strategy` naming `table`: `/*+ BROADCAST(b) */`.
pub fn hint(strategy: Strategy, table: &str) -> String {
    format!("/*+ {}({table}) */", strategy.name())
}

// ------------------------------------------------------------------ JSON

/// A parsed JSON value (a minimal parser for the CLI's JSON output; the
/// test binary has no JSON dependency).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Parses one JSON value (surrounding white space allowed).
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_arr(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(a) => Some(a),
            _ => None,
        }
    }

    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Obj(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.i))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    let v = self.value()?;
                    m.push((k, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(m));
                        }
                        _ => return Err(format!("expected `,` or `}}` at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(a));
                }
                loop {
                    a.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(a));
                        }
                        _ => return Err(format!("expected `,` or `]` at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                t.parse()
                    .map(Json::Num)
                    .map_err(|_| format!("bad number `{t}`"))
            }
            _ => Err(format!("unexpected input at byte {}", self.i)),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(format!("expected a string at byte {}", self.i));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|e| e.to_string());
                }
                Some(b'\\') => {
                    let e = *self.s.get(self.i + 1).ok_or("bad escape")?;
                    self.i += 2;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                .map_err(|e| e.to_string())?;
                            let c = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                            self.i += 4;
                            let c = char::from_u32(c).unwrap_or('\u{fffd}');
                            let mut buf = [0; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

#[test]
fn json_parser_reads_nested_values() {
    let v = Json::parse(r#" {"a": [1, -2.5e1, "x\"y", null, true], "b": {}} "#).unwrap();
    assert_eq!(v.keys(), ["a", "b"]);
    assert_eq!(v.get("a").unwrap().as_arr().unwrap()[1], Json::Num(-25.0));
    assert_eq!(
        v.get("a").unwrap().as_arr().unwrap()[2],
        Json::Str("x\"y".into())
    );
    assert!(Json::parse("{\"a\": 1").is_err());
}

#[test]
fn reference_join_follows_sql() {
    let (a, b) = (table_a().rel(), table_b().rel());
    let (ak, bk) = (a.col("a.k"), b.col("b.k"));
    let inner = ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk]));
    // k=1: 2 x 3, k=2: 2 x 2, k=3: 1 x 1
    assert_eq!(inner.rows.len(), 11);
    let full = ref_join(&a, &b, RefJoin::Full, |x, y| eq(x[ak], y[bk]));
    // + a's NULL, NULL, 5 and b's NULL, 4
    assert_eq!(full.rows.len(), 16);
    assert!(
        full.strings()
            .contains(&"NULL|NULL|NULL|4|60|b-6".to_string())
    );
    let anti = ref_join(&a, &b, RefJoin::Anti, |x, y| eq(x[ak], y[bk]));
    assert_eq!(anti.rows.len(), 3);
    assert_eq!(ref_not_in(&a, ak, &[Some(1), None]).rows.len(), 0);
    assert_eq!(ref_not_in(&a, ak, &[]).rows.len(), 8);
    assert_eq!(ref_not_in(&a, ak, &[Some(1)]).rows.len(), 4);
}

/// Strategies of a hint sweep.
pub const STRATEGIES: [Strategy; 4] = Strategy::ALL;
