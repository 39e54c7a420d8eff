//! Differential test against DuckDB: random valid queries from
//! `tests/differential/make_cases.py` (joins of every type, aggregates, set
//! operations with and without ALL, DISTINCT, CASE, COALESCE, string and
//! date functions, IN / EXISTS / NOT IN, scalar subqueries, ORDER BY ...
//! LIMIT) over the small tables of `tests/differential/tables/` (NULLs,
//! duplicates, negative numbers, -0.0 and NaN, empty strings, dates,
//! decimals), against the answers DuckDB 2.0.1 gave (checked in as
//! `tests/differential/answers.txt`; the script regenerates both).
//!
//! Each query runs under [`SETTINGS`] (threads, batch size); the first runs
//! it as written, each other one, for a query whose outer block joins
//! tables (`hint=` in its header), adds the join hint of one of the four
//! strategies after its leading SELECT naming every join input, rotating
//! the strategy by case and setting (lenient hints: one that cannot run a
//! join falls back, and the rows must not change).
//!
//! Rows compare with the TPC-H harness's cell comparison (`tpch.rs`:
//! exact decimals, floats within a tolerance, NaN equal to NaN, -0.0 to
//! 0.0): in order when the case is `ordered` (its ORDER BY sorts by every
//! output column), else as multisets (both sides sorted by a canonical form
//! of their cells first).
//!
//! [`KNOWN`] lists the cases that fail because of defects being fixed in
//! other branches (issue 14): they still run, their outcome is printed,
//! and they do not fail the test. Every other mismatch, error or panic
//! fails it, listing each case with its SQL, DuckDB's answer and tenon's.
//! The strings of `t2` are Utf8View (as every Parquet and built-in string
//! column is), those of `t1` and `t3` Utf8.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use tenon::kernels::Strategy;
use tenon::{Config, Session};

use crate::tpch::{Kind, Rows, canonical_decimal, compare, output_rows, parse_csv};

/// (threads, batch size) of each run of a query.
const SETTINGS: [(usize, usize); 3] = [(1, 1), (2, 7), (4, 8192)];

/// The strategies hinted, in docs/hints.md's order.
const STRATEGIES: [Strategy; 4] = [
    Strategy::Broadcast,
    Strategy::ShuffleHash,
    Strategy::ShuffleMerge,
    Strategy::NestLoop,
];

/// Cases that fail because of a known, still open defect: (case, defect).
/// They run and are reported, and do not fail the test; the test says when
/// one passes, so that it is removed. Empty: the defects this test found
/// (EXCEPT ALL / INTERSECT ALL copies, floats ordered totally, UNION of a
/// Utf8 with a Utf8View column, duplicate GROUP BY expressions, DISTINCT
/// over a CASE of Int32 and Int64) are fixed.
const KNOWN: &[(usize, &str)] = &[];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/differential")
}

/// The Arrow type of a table column's SQL type.
fn arrow_type(table: &str, sql: &str) -> DataType {
    match sql {
        "BIGINT" => DataType::Int64,
        "DOUBLE" => DataType::Float64,
        "VARCHAR" if table == "t2" => DataType::Utf8View,
        "VARCHAR" => DataType::Utf8,
        "DATE" => DataType::Date32,
        "DECIMAL(10,2)" => DataType::Decimal128(10, 2),
        other => panic!("{table}: unknown column type {other}"),
    }
}

/// The table `name` of `tests/differential/tables/` as one batch.
fn table(name: &str) -> RecordBatch {
    let path = dir().join("tables").join(format!("{name}.csv"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut records = parse_csv(&text).into_iter();
    let header = records.next().expect("a header");
    let rows: Vec<_> = records.collect();
    let (mut fields, mut columns) = (Vec::new(), Vec::<ArrayRef>::new());
    for (i, cell) in header.iter().enumerate() {
        let cell = cell.as_deref().expect("a column name");
        let (col, ty) = cell.split_once(':').expect("a `name:TYPE` header cell");
        let ty = arrow_type(name, ty);
        let text: StringArray = rows.iter().map(|r| r[i].as_deref()).collect();
        let array = arrow_cast::cast(&text, &ty)
            .unwrap_or_else(|e| panic!("{name}.{col}: cannot read the column as {ty}: {e}"));
        fields.push(Field::new(col, ty, true));
        columns.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("a table batch")
}

/// Registers the differential tables `t1`, `t2`, `t3` in `session`.
pub(super) fn register(session: &mut Session) {
    for name in ["t1", "t2", "t3"] {
        session.register_batch(name, table(name)).expect("a table");
    }
}

/// One query of `cases.sql`.
#[derive(Debug, Clone)]
pub(super) struct Case {
    /// Its number.
    pub id: usize,
    /// Whether its rows compare in order.
    pub ordered: bool,
    /// The outer block's join inputs (hinted), if it joins.
    pub hint: Vec<String>,
    /// The query, without its `;`.
    pub sql: String,
}

/// Every case of `tests/differential/cases.sql`.
pub(super) fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("cases.sql")).expect("cases.sql");
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(head) = lines.next() {
        let flags: Vec<&str> = (head.strip_prefix("-- case "))
            .unwrap_or_else(|| panic!("cases.sql: expected `-- case N`, found {head}"))
            .split(' ')
            .collect();
        let sql = lines.next().expect("a query after its header");
        out.push(Case {
            id: flags[0].parse().expect("a case number"),
            ordered: flags.contains(&"ordered"),
            hint: (flags.iter().find_map(|f| f.strip_prefix("hint=")))
                .map(|h| h.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            sql: sql.trim_end_matches(';').to_string(),
        });
    }
    out
}

/// DuckDB's answers: case -> (columns, rows).
fn answers() -> BTreeMap<usize, (Vec<(String, Kind)>, Rows)> {
    let text = std::fs::read_to_string(dir().join("answers.txt")).expect("answers.txt");
    let mut out = BTreeMap::new();
    for block in text.split("== case ").skip(1) {
        let (id, csv) = block.split_once('\n').expect("a case number line");
        let mut rows = parse_csv(csv).into_iter();
        let columns = (rows.next().expect("a header").into_iter())
            .map(|c| {
                let c = c.expect("a column");
                let (name, kind) = c.rsplit_once(':').expect("`name:kind`");
                (name.to_string(), Kind::parse(kind).expect("a known kind"))
            })
            .collect();
        out.insert(
            id.parse().expect("a case number"),
            (columns, rows.collect()),
        );
    }
    out
}

/// A cell's canonical text for sorting (decimals without trailing zeros,
/// floats rounded, -0.0 as 0, NULL first).
fn sort_key(cell: &Option<String>) -> String {
    let Some(s) = cell else {
        return String::new();
    };
    if let Some(d) = canonical_decimal(s) {
        return format!("n{d}");
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_nan() => "nNaN".to_string(),
        // A float pattern compares with `==`: -0.0 matches too.
        Ok(0.0) => "n0.".to_string(),
        Ok(f) => format!("n{f:.6e}"),
        Err(_) => format!("s{s}"),
    }
}

fn sorted(rows: &Rows) -> Rows {
    let mut rows = rows.clone();
    rows.sort_by_cached_key(|r| r.iter().map(sort_key).collect::<Vec<_>>());
    rows
}

/// `case`'s SQL under setting `i`: as written, or with a join hint.
fn variant(case: &Case, i: usize) -> String {
    if i == 0 || case.hint.is_empty() {
        return case.sql.clone();
    }
    let strategy = STRATEGIES[(case.id + i) % STRATEGIES.len()];
    let rest = case
        .sql
        .strip_prefix("SELECT ")
        .expect("a hinted case starts with SELECT");
    format!(
        "SELECT /*+ {}({}) */ {rest}",
        strategy.name(),
        case.hint.join(", ")
    )
}

/// Runs `sql` in `session` and compares it with `want`.
fn check(
    session: &Session,
    label: &str,
    case: &Case,
    sql: &str,
    want: &(Vec<(String, Kind)>, Rows),
) -> Result<(), String> {
    let output = catch_unwind(AssertUnwindSafe(|| session.query(sql)))
        .map_err(|_| format!("{label}: tenon panicked"))?
        .map_err(|e| format!("{label}: tenon failed: {e}"))?;
    let (types, got) = output_rows(&output);
    let (columns, rows) = want;
    let result = if case.ordered {
        compare(label, columns, rows, &types, &got)
    } else {
        compare(label, columns, &sorted(rows), &types, &sorted(&got))
    };
    result.map_err(|m| {
        let show = |rows: &Rows| {
            let lines: Vec<String> = (rows.iter().take(20))
                .map(|r| {
                    let cells: Vec<&str> =
                        r.iter().map(|c| c.as_deref().unwrap_or("NULL")).collect();
                    cells.join(" | ")
                })
                .collect();
            format!("{} rows: [{}]", rows.len(), lines.join("; "))
        };
        format!(
            "{m}\n    duckdb: {}\n    tenon:  {}",
            show(rows),
            show(&got)
        )
    })
}

#[test]
fn differential_duckdb_random_queries() {
    let answers = answers();
    let sessions: Vec<Session> = SETTINGS
        .iter()
        .map(|&(threads, batch_size)| {
            let config = Config {
                threads,
                batch_size,
                ..Config::default()
            };
            let mut s = Session::new(config).expect("a session");
            register(&mut s);
            s
        })
        .collect();
    let (mut failures, mut known, mut passed) = (Vec::new(), Vec::new(), 0);
    let all = cases();
    for case in &all {
        let want = answers.get(&case.id).expect("an answer per case");
        let mut first_error = None;
        for (i, session) in sessions.iter().enumerate() {
            let (threads, batch) = SETTINGS[i];
            let sql = variant(case, i);
            let label = format!("case {} (threads {threads}, batch size {batch})", case.id);
            if let Err(m) = check(session, &label, case, &sql, want) {
                first_error = Some(format!("{m}\n    sql: {sql}"));
                break;
            }
        }
        match (first_error, KNOWN.iter().find(|k| k.0 == case.id)) {
            (None, None) => passed += 1,
            (None, Some((id, defect))) => {
                eprintln!("known-failing case {id} ({defect}) passes now: remove it from KNOWN")
            }
            (Some(m), Some((_, defect))) => known.push(format!("[known: {defect}] {m}")),
            (Some(m), None) => failures.push(m),
        }
    }
    eprintln!(
        "differential: {} cases, {passed} agree with DuckDB, {} known-failing, {} new failures",
        all.len(),
        known.len(),
        failures.len()
    );
    for k in &known {
        eprintln!("{k}");
    }
    assert!(all.len() >= 100, "too few cases: {}", all.len());
    assert!(
        failures.is_empty(),
        "{} cases differ from DuckDB:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn differential_duckdb_tables_load_with_nan_and_negative_zero() {
    let t1 = table("t1");
    let x = t1
        .column_by_name("x")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::Float64Array>()
        .unwrap();
    assert!(x.value(3).is_nan());
    assert!(x.value(1) == 0.0 && x.value(1).is_sign_negative());
    assert_eq!(t1.num_rows(), 10);
    assert_eq!(
        table("t2").schema().field(3).data_type(),
        &DataType::Utf8View
    );
    let all = cases();
    assert_eq!(all.len(), answers().len());
    let hinted = all
        .iter()
        .find(|c| !c.hint.is_empty())
        .expect("a hinted case");
    assert!(variant(hinted, 1).starts_with("SELECT /*+ "));
}
