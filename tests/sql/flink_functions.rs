//! Flink's functions in tenon (issue 52), against Flink's own answers.
//!
//! `tests/flink/function_answers.txt` holds Flink 2.3's answers to the
//! cases below, made by `tests/flink/make_function_answers.py` (Flink's
//! Table API in batch mode, `pip install apache-flink`, time zone UTC) and
//! checked in: CI does not run Flink. Each case is
//! `SELECT id, CAST((expr) AS STRING) FROM <rows> ORDER BY id` over the
//! same three rows (the answers file's `@rows` line), so the comparison
//! also covers how a value becomes text. A case Flink refuses (`!ERROR`)
//! must be refused by tenon too, except the few in [`TENON_DIFFERS`],
//! where tenon deliberately goes further (each says why).
//!
//! The functions whose answer changes from run to run (`RAND`, `UUID`,
//! `NOW`, ...) have property tests instead: range, one value per query,
//! a value per row.

use arrow_array::RecordBatch;
use tenon::Session;
use tenon::io::{OutputFormat, write_batches};

use crate::common::*;

const ANSWERS: &str = include_str!("../flink/function_answers.txt");

/// Cases where tenon's answer deliberately differs from Flink's, and why.
const TENON_DIFFERS: &[(&str, &str)] = &[(
    "ifnull_timestamp_text",
    "Flink refuses IFNULL(TIMESTAMP, STRING); tenon converts the text to the first \
     argument's type, as issue 52 asks (`ifnull(ts, '2099-01-01')`)",
)];

struct Case {
    name: String,
    expr: String,
    aggregate: bool,
    expected: Vec<String>,
}

fn cases() -> (String, Vec<Case>) {
    let mut rows = None;
    let mut out = Vec::new();
    for line in ANSWERS.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(name), Some(expr)) = (fields.next(), fields.next()) else {
            panic!("a malformed answer line: {line}");
        };
        if name == "@rows" {
            rows = Some(expr.to_string());
            continue;
        }
        let (name, aggregate) = match name.strip_suffix(":agg") {
            Some(n) => (n, true),
            None => (name, false),
        };
        out.push(Case {
            name: name.to_string(),
            expr: expr.to_string(),
            aggregate,
            expected: fields.map(str::to_string).collect(),
        });
    }
    (rows.expect("the answers name their rows"), out)
}

fn query(rows: &str, c: &Case) -> String {
    if c.aggregate {
        format!("SELECT 0, CAST(({}) AS STRING) FROM {rows}", c.expr)
    } else {
        format!(
            "SELECT id, CAST(({}) AS STRING) FROM {rows} ORDER BY id",
            c.expr
        )
    }
}

/// The value column of a result, NULL as `NULL`.
fn values(batches: &[RecordBatch]) -> Vec<String> {
    row_strings_unsorted(batches)
        .into_iter()
        .map(|r| match r.split_once('|') {
            Some((_, v)) => v.to_string(),
            None => r,
        })
        .collect()
}

#[test]
fn flink_functions_give_flinks_answers() {
    let (rows, cases) = cases();
    assert!(cases.len() >= 60, "the answers file lost cases");
    let mut wrong = Vec::new();
    for threads in [1, 4] {
        let s = empty_session(threads, 1);
        for c in &cases {
            let sql = query(&rows, c);
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.collect(&sql)));
            let differs = TENON_DIFFERS.iter().any(|(n, _)| *n == c.name);
            match got {
                Err(_) => wrong.push(format!("{}: tenon panicked", c.name)),
                Ok(Ok(b)) if c.expected == ["!ERROR"] && !differs => wrong.push(format!(
                    "{} ({}): Flink refuses it, tenon answers {:?}",
                    c.name,
                    c.expr,
                    values(&b)
                )),
                Ok(Ok(b)) => {
                    let got = values(&b);
                    if got != c.expected && !differs {
                        wrong.push(format!(
                            "{} ({}): Flink {:?}, tenon {got:?}",
                            c.name, c.expr, c.expected
                        ));
                    }
                }
                Ok(Err(e)) if c.expected != ["!ERROR"] || differs => {
                    wrong.push(format!("{} ({}): tenon fails: {e}", c.name, c.expr))
                }
                Ok(Err(_)) => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn tenon_differs_from_flink_only_where_it_says_why() {
    let (rows, cases) = cases();
    let s = empty_session(1, 8192);
    for (name, why) in TENON_DIFFERS {
        let c = cases
            .iter()
            .find(|c| c.name == *name)
            .unwrap_or_else(|| panic!("{name} is not a case"));
        let got = values(&collect(&s, &query(&rows, c)));
        assert_eq!(
            got,
            [
                "2024-01-15 09:05:07.123",
                "2023-12-31 23:59:59.000",
                "2099-01-01 00:00:00.000"
            ],
            "{why}"
        );
    }
}

#[test]
fn date_format_with_a_pattern_tenon_cannot_read_is_an_error_not_literal_text() {
    let s = empty_session(1, 8192);
    for pattern in ["yyyy-MM-dd QQ", "%Y-%m-%d", "yyyy 'open"] {
        let quoted = pattern.replace('\'', "''");
        let sql = format!("SELECT DATE_FORMAT(TIMESTAMP '2024-01-15 09:05:07', '{quoted}')");
        let e = query_err(&s, &sql).to_string();
        assert!(e.contains("date pattern"), "{pattern}: {e}");
        assert!(!e.contains("Error during planning"), "{e}");
    }
    // the seed's lookup condition: a pattern of Java letters matches
    let got = run(
        &s,
        "SELECT DATE_FORMAT(TIMESTAMP '2024-01-15 09:05:07', 'yyyy-MM-dd HH:mm') = '2024-01-15 09:05'",
    );
    assert_eq!(got, ["true"]);
}

#[test]
fn timestamps_print_with_a_space_and_their_precision_in_every_text_format() {
    let s = empty_session(1, 8192);
    let sql = "SELECT CAST('2024-01-15 09:05:07.120' AS TIMESTAMP(3)) AS t, \
               CAST('2024-01-15 09:05:07' AS TIMESTAMP(0)) AS t0, \
               CAST(CAST('2024-01-15 09:05:07.1' AS TIMESTAMP(3)) AS STRING) AS c";
    let batches = collect(&s, sql);
    let schema = batches[0].schema();
    for format in [
        OutputFormat::Csv,
        OutputFormat::Json,
        OutputFormat::Ndjson,
        OutputFormat::Table,
    ] {
        let mut out = Vec::new();
        write_batches(&batches, &schema, format, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("2024-01-15 09:05:07.120"),
            "{format:?}: {text}"
        );
        assert!(
            text.contains("2024-01-15 09:05:07.100"),
            "{format:?}: {text}"
        );
        assert!(!text.contains("2024-01-15T"), "{format:?}: {text}");
        assert!(text.contains("2024-01-15 09:05:07"), "{format:?}: {text}");
    }
}

/// The one row of `sql`'s first column as text.
fn one(s: &Session, sql: &str) -> Vec<String> {
    run_ordered(s, sql)
}

#[test]
fn clock_functions_are_fixed_once_per_query() {
    let s = empty_session(4, 1);
    let sql = "SELECT CAST(NOW() AS STRING) || '|' || CAST(CURRENT_TIMESTAMP AS STRING) || '|' || \
               CAST(LOCALTIMESTAMP AS STRING) || '|' || CAST(CURRENT_DATE AS STRING) || '|' || \
               CAST(PROCTIME() AS STRING) || '|' || CAST(UNIX_TIMESTAMP() AS STRING) \
               FROM (VALUES (1), (2), (3), (4), (5)) AS t(x)";
    let rows = one(&s, sql);
    assert_eq!(rows.len(), 5);
    assert!(
        rows.iter().all(|r| *r == rows[0]),
        "one value per query: {rows:?}"
    );
    let parts: Vec<&str> = rows[0].split('|').collect();
    // LOCALTIMESTAMP and PROCTIME() are TIMESTAMP(3): three fraction digits
    assert_eq!(parts[2].len(), "2024-01-15 09:05:07.123".len(), "{parts:?}");
    assert_eq!(&parts[2][..10], parts[3], "today's date: {parts:?}");
    let unix: i64 = parts[5].parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((now - unix).abs() < 600, "{unix} vs {now}");
}

#[test]
fn rand_and_uuid_give_each_row_its_own_value() {
    let s = empty_session(1, 8192);
    let rows = "(VALUES (1), (2), (3), (4), (5), (6), (7), (8)) AS t(x)";
    let r = one(&s, &format!("SELECT RAND() FROM {rows}"));
    let numbers: Vec<f64> = r.iter().map(|v| v.parse().unwrap()).collect();
    assert!(
        numbers.iter().all(|v| (0.0..1.0).contains(v)),
        "{numbers:?}"
    );
    let mut distinct = numbers.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert!(distinct.len() > 1, "a value per row: {numbers:?}");

    let ints = one(&s, &format!("SELECT RAND_INTEGER(10) FROM {rows}"));
    assert!(
        ints.iter()
            .all(|v| (0..10).contains(&v.parse::<i32>().unwrap())),
        "{ints:?}"
    );

    // a seed repeats its numbers
    let a = one(
        &s,
        &format!("SELECT RAND(42), RAND_INTEGER(7, 100) FROM {rows}"),
    );
    let b = one(
        &s,
        &format!("SELECT RAND(42), RAND_INTEGER(7, 100) FROM {rows}"),
    );
    assert_eq!(a, b);
    assert!(
        a.iter().any(|r| *r != a[0]),
        "a seeded value per row: {a:?}"
    );

    let u = one(&s, &format!("SELECT UUID() FROM {rows}"));
    let mut distinct = u.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), u.len(), "{u:?}");
    assert!(u.iter().all(|v| v.len() == 36), "{u:?}");

    let e = query_err(&s, "SELECT RAND_INTEGER(0)").to_string();
    assert!(e.contains("bound"), "{e}");
}

#[test]
fn flink_function_mistakes_are_errors_in_tenons_words() {
    let s = empty_session(1, 8192);
    for (sql, words) in [
        (
            "SELECT TIMESTAMPADD(FORTNIGHT, 1, TIMESTAMP '2024-01-01 00:00:00')",
            "SECOND, MINUTE",
        ),
        ("SELECT REGEXP_EXTRACT('abc', '(', 0)", "regular expression"),
        ("SELECT JSON_VALUE('{}', 'a.b')", "JSON path"),
        ("SELECT IF(true, 1)", "IF takes three arguments"),
        ("SELECT SPLIT_INDEX('a')", "SPLIT_INDEX takes 3 arguments"),
    ] {
        let e = query_err(&s, sql).to_string();
        assert!(e.contains(words), "{sql}: {e}");
        for leaked in ["Error during planning", "Execution error", "bug report"] {
            assert!(!e.contains(leaked), "{sql}: {e}");
        }
    }
}

#[test]
fn arrow_cast_casts_or_fails_in_tenons_words() {
    let s = empty_session(1, 8192);
    let got = run(
        &s,
        "SELECT arrow_cast(k, 'Int64') + 1 FROM (VALUES (1), (2)) AS t(k)",
    );
    assert_eq!(got, ["2", "3"]);
    for (sql, words) in [
        ("SELECT arrow_cast(1, 'NoSuchType')", "NoSuchType"),
        (
            "SELECT arrow_cast(1, k) FROM (VALUES ('Int64')) AS t(k)",
            "arrow_cast",
        ),
    ] {
        let e = query_err(&s, sql);
        let text = e.to_string();
        assert!(text.contains(words), "{sql}: {text}");
        assert!(!text.contains("bug report"), "{sql}: {text}");
        assert_ne!(e.exit_code(), 3, "{sql}: {text}");
    }
}
