//! TPC-H: the 22 queries of `tests/tpch/queries` on the built-in tables at
//! scale factor 0.01 (`Session::register_tpch`), against the answers DuckDB
//! gave on the same data (`tests/tpch/expected`, made by
//! `tests/tpch/make_expected.py`; see `tests/tpch/README.md`).
//!
//! An expected file is CSV: a header of `name:kind` cells, then the rows in
//! order, NULL as an empty unquoted field. Each test checks the number of
//! columns, the number of rows, then every cell, row by row in order (no
//! query has ties under its ORDER BY at this scale, checked when the answers
//! were made, so no query needs a multiset compare). Column names are not
//! compared (engines name unaliased expressions differently, as Q18's
//! `sum(l_quantity)`). A cell compares by the kind of the expected column:
//!
//! - `str`: a string column, exactly; `date`: a date column, as YYYY-MM-DD;
//! - `int`, `decimal`: a numeric column, exactly as decimal values
//!   (`380456.00` = `380456.0` = `380456`), unless tenon's column is a
//!   float: then, and only then, both are parsed to f64 and compared as
//!   `float`;
//! - `float` (DuckDB DOUBLE: averages, Q8's and Q14's ratios, Q17's sum
//!   over 7.0): a numeric column of any type, as f64 within
//!   `ABS_TOL + REL_TOL * max(|expected|, |got|)`.
//!
//! A mismatch panics with the query, row, column, expected and got.

use std::path::PathBuf;

use arrow_array::Array;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;
use tenon::{Config, Session};

/// The scale factor of the expected answers.
const SCALE: f64 = 0.01;
/// Relative tolerance of a float compare.
const REL_TOL: f64 = 1e-9;
/// Absolute tolerance of a float compare: half a unit of the sixth decimal,
/// what AVG of a decimal returned as a decimal with 4 more digits of scale
/// (as DataFusion types it) differs from DuckDB's double when it rounds;
/// a truncated average (Q1's `avg_disc` of `N|F` would be 0.047758 for
/// 0.0477586...) is off by more.
const ABS_TOL: f64 = 5e-7;

/// How an expected column compares (the `:kind` of its header cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Int,
    Decimal,
    Float,
    Str,
    Date,
}

/// Result or CSV rows: one `Option<String>` per cell, `None` for NULL.
pub(super) type Rows = Vec<Vec<Option<String>>>;

/// A CSV file's records, each a list of fields (`None`: an empty, unquoted
/// field, that is NULL; `""` is the empty string).
pub(super) fn parse_csv(text: &str) -> Rows {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut in_quotes) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (in_quotes, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => in_quotes = false,
            (true, c) => field.push(c),
            (false, '"') => (in_quotes, quoted) = (true, true),
            (false, ',' | '\n') => {
                let f = std::mem::take(&mut field);
                record.push((quoted || !f.is_empty()).then_some(f));
                quoted = false;
                if c == '\n' {
                    records.push(std::mem::take(&mut record));
                }
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        field.is_empty() && record.is_empty() && !in_quotes,
        "CSV does not end with a newline"
    );
    records
}

/// The expected answer of query `q` (`"q01"`): column names and kinds, rows.
pub(super) fn expected(q: &str) -> (Vec<(String, Kind)>, Rows) {
    let path = tpch_dir().join("expected").join(format!("{q}.csv"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut records = parse_csv(&text).into_iter();
    let header = records.next().expect("a header row");
    let columns: Vec<(String, Kind)> = header
        .into_iter()
        .map(|cell| {
            let cell = cell.expect("a column name");
            let (name, kind) = cell.rsplit_once(':').expect("a `name:kind` header cell");
            let kind =
                Kind::parse(kind).unwrap_or_else(|| panic!("{q}: unknown column kind {kind}"));
            (name.to_string(), kind)
        })
        .collect();
    let rows: Vec<_> = records.collect();
    if let Some(r) = rows.iter().position(|r| r.len() != columns.len()) {
        panic!(
            "{}: row {} has {} fields",
            path.display(),
            r + 1,
            rows[r].len()
        );
    }
    (columns, rows)
}

impl Kind {
    /// The kind named `name` (`int`, `decimal`, `float`, `str`, `date`).
    pub(super) fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "int" => Kind::Int,
            "decimal" => Kind::Decimal,
            "float" => Kind::Float,
            "str" => Kind::Str,
            "date" => Kind::Date,
            _ => return None,
        })
    }
}

fn tpch_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/tpch")
}

/// Query `q`'s text.
pub(super) fn query_text(q: &str) -> String {
    let path = tpch_dir().join("queries").join(format!("{q}.sql"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A session with the built-in TPC-H tables at [`SCALE`].
pub(super) fn session() -> Session {
    let mut session = Session::new(Config::default()).expect("a session");
    session.register_tpch(SCALE).expect("the TPC-H tables");
    session
}

/// Runs `sql` (query `q`) on the built-in tables: each column's type and each row's
/// cells rendered by Arrow's display (exact decimals, YYYY-MM-DD dates),
/// `None` for NULL.
fn run_query(q: &str, sql: &str) -> (Vec<DataType>, Rows) {
    let output = session()
        .query(sql)
        .unwrap_or_else(|e| panic!("{q}: tenon failed: {e}\n  ({e:?})"));
    output_rows(&output)
}

/// A query's output as column types and rows of cells (see [`run_query`]).
pub(super) fn output_rows(output: &tenon::QueryOutput) -> (Vec<DataType>, Rows) {
    let types = output.schema.fields().iter().map(|f| f.data_type().clone());
    let mut rows = Vec::new();
    for b in &output.batches {
        let options = FormatOptions::new();
        let cells: Vec<_> = (b.columns().iter())
            .map(|c| (c, ArrayFormatter::try_new(c.as_ref(), &options).unwrap()))
            .collect();
        for i in 0..b.num_rows() {
            let row = cells
                .iter()
                .map(|(c, f)| c.is_valid(i).then(|| f.value(i).to_string()));
            rows.push(row.collect());
        }
    }
    (types.collect(), rows)
}

/// An exact decimal text (`-12.50`, `7`) in a canonical form (`-12.5`,
/// `7.`), or `None` if `s` is not one.
pub(super) fn canonical_decimal(s: &str) -> Option<String> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if (int.is_empty() && frac.is_empty())
        || !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let (int, frac) = (int.trim_start_matches('0'), frac.trim_end_matches('0'));
    let zero = int.is_empty() && frac.is_empty();
    Some(format!(
        "{}{int}.{frac}",
        if neg && !zero { "-" } else { "" }
    ))
}

/// Whether `expected` and `got` are equal numbers within the tolerance
/// (NaN matches NaN, an infinity the same infinity, -0.0 matches 0.0).
fn floats_match(expected: &str, got: &str) -> bool {
    match (expected.parse::<f64>(), got.parse::<f64>()) {
        (Ok(e), Ok(g)) if e.is_nan() || g.is_nan() || e.is_infinite() || g.is_infinite() => {
            (e.is_nan() && g.is_nan()) || e == g
        }
        (Ok(e), Ok(g)) => (e - g).abs() <= ABS_TOL + REL_TOL * e.abs().max(g.abs()),
        _ => false,
    }
}

/// Whether a cell of tenon's column of type `ty` matches the expected cell
/// of kind `kind` (see the module docs).
pub(super) fn cell_matches(
    kind: Kind,
    ty: &DataType,
    expected: Option<&str>,
    got: Option<&str>,
) -> bool {
    let (Some(e), Some(g)) = (expected, got) else {
        return expected.is_none() && got.is_none();
    };
    let is_float = matches!(
        ty,
        DataType::Float16 | DataType::Float32 | DataType::Float64
    );
    let is_numeric = ty.is_numeric();
    match kind {
        Kind::Str => {
            matches!(
                ty,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ) && e == g
        }
        Kind::Date => matches!(ty, DataType::Date32 | DataType::Date64) && e == g,
        Kind::Float => is_numeric && floats_match(e, g),
        Kind::Int | Kind::Decimal if is_float => floats_match(e, g),
        Kind::Int | Kind::Decimal => {
            is_numeric
                && canonical_decimal(e).is_some()
                && canonical_decimal(e) == canonical_decimal(g)
        }
    }
}

/// Runs query `q` and compares it with its expected answer.
fn check(q: &str) {
    check_sql(q, &query_text(q));
}

/// Runs `sql` and compares it with query `q`'s expected answer.
pub(super) fn check_sql(q: &str, sql: &str) {
    let (columns, want) = expected(q);
    let (types, got) = run_query(q, sql);
    if let Err(m) = compare(q, &columns, &want, &types, &got) {
        panic!("{m}");
    }
}

/// Compares tenon's rows `got` (columns of `types`) with the expected
/// `want` (columns and kinds `columns`) in order: the column count, the
/// first differing cell, the row count; `Err` says what differs first.
pub(super) fn compare(
    q: &str,
    columns: &[(String, Kind)],
    want: &Rows,
    types: &[DataType],
    got: &Rows,
) -> Result<(), String> {
    if types.len() != columns.len() {
        return Err(format!(
            "{q}: tenon returned {} columns {types:?}, expected {} {columns:?}",
            types.len(),
            columns.len()
        ));
    }
    // The first differing cell, if any, among the rows both have.
    let mismatch = want.iter().zip(got).enumerate().find_map(|(r, (w, g))| {
        (0..columns.len()).find_map(|c| {
            let (name, kind) = &columns[c];
            let (e, v) = (w[c].as_deref(), g[c].as_deref());
            (!cell_matches(*kind, &types[c], e, v)).then(|| {
                format!(
                    "{q}: row {} column {} ({name}, {kind:?}): expected {}, got {} ({})",
                    r + 1,
                    c + 1,
                    e.unwrap_or("NULL"),
                    v.unwrap_or("NULL"),
                    types[c]
                )
            })
        })
    });
    if want.len() != got.len() {
        return Err(format!(
            "{q}: tenon returned {} rows, expected {}; {}",
            got.len(),
            want.len(),
            mismatch.unwrap_or_else(|| "the common rows agree".to_string())
        ));
    }
    mismatch.map_or(Ok(()), Err)
}

/// One test per query: `name => "qNN"`.
macro_rules! tpch_tests {
    ($($name:ident => $q:literal,)*) => {
        $(
            #[test]
            fn $name() {
                check($q);
            }
        )*
    };
}

tpch_tests! {
    q01_pricing_summary => "q01",
    q02_minimum_cost_supplier => "q02",
    q03_shipping_priority => "q03",
    q04_order_priority_checking => "q04",
    q05_local_supplier_volume => "q05",
    q06_forecasting_revenue_change => "q06",
    q07_volume_shipping => "q07",
    q08_national_market_share => "q08",
    q09_product_type_profit => "q09",
    q10_returned_item_reporting => "q10",
    q11_important_stock_identification => "q11",
    q12_shipping_modes_and_order_priority => "q12",
    q13_customer_distribution => "q13",
    q14_promotion_effect => "q14",
    q15_top_supplier => "q15",
    q16_parts_supplier_relationship => "q16",
    q17_small_quantity_order_revenue => "q17",
    q18_large_volume_customer => "q18",
    q19_discounted_revenue => "q19",
    q20_potential_part_promotion => "q20",
    q21_suppliers_who_kept_orders_waiting => "q21",
    q22_global_sales_opportunity => "q22",
}

/// The harness itself: CSV quoting and NULLs, decimal canonical forms.
#[test]
fn harness_parses_and_compares() {
    let csv = "a:str,b:int\n\"x,\"\"y\"\"\",\n\"\",7\n\n";
    let rows = parse_csv(csv);
    assert_eq!(rows[1], vec![Some("x,\"y\"".to_string()), None]);
    assert_eq!(rows[2], vec![Some(String::new()), Some("7".to_string())]);
    assert_eq!(rows[3], vec![None]);
    assert_eq!(canonical_decimal("380456.00"), canonical_decimal("380456"));
    assert_eq!(canonical_decimal("-0.00"), canonical_decimal("0"));
    assert_ne!(canonical_decimal("1.5"), canonical_decimal("15"));
    assert_eq!(canonical_decimal("1e5"), None);
    let dec = DataType::Decimal128(38, 4);
    assert!(cell_matches(
        Kind::Decimal,
        &dec,
        Some("12.50"),
        Some("12.5000")
    ));
    assert!(!cell_matches(
        Kind::Decimal,
        &dec,
        Some("12.50"),
        Some("12.5001")
    ));
    // an average rounded to scale 6 matches DuckDB's double; truncated,
    // it does not
    assert!(cell_matches(
        Kind::Float,
        &dec,
        Some("25.575154611454693"),
        Some("25.575155")
    ));
    assert!(!cell_matches(
        Kind::Float,
        &dec,
        Some("25.575154611454693"),
        Some("25.575154")
    ));
    let f64t = DataType::Float64;
    assert!(cell_matches(Kind::Float, &f64t, Some("nan"), Some("NaN")));
    assert!(cell_matches(Kind::Float, &f64t, Some("-0.0"), Some("0")));
    assert!(cell_matches(Kind::Float, &f64t, Some("inf"), Some("inf")));
    assert!(!cell_matches(Kind::Float, &f64t, Some("inf"), Some("-inf")));
    assert!(!cell_matches(Kind::Float, &f64t, Some("nan"), Some("1.0")));
    assert!(!cell_matches(
        Kind::Int,
        &DataType::Utf8,
        Some("13"),
        Some("13")
    ));
}
