//! Parquet page-index pruning and late materialization (issue 17): a
//! lazily read file with a page index leaves out the data pages whose
//! statistics refute the filter above the scan, and when the filter reads
//! fewer columns than the scan, decodes the other columns only for the
//! rows it keeps.
//!
//! Both are optimisations only: the differential test checks that random
//! filters (every comparison, BETWEEN, IN, IS [NOT] NULL, AND/OR, on
//! integers, floats, decimals, strings and dates, with NULLs and pages of
//! only NULLs) give the same rows over the file read lazily as over the
//! same file held in memory (read whole, no pruning), in every batch size
//! and thread count; the other tests check that pages are skipped.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use tenon::Session;

use crate::common::*;

/// Writes `batch` to `path` with a page index, in row groups of
/// `group_rows` and data pages of `page_rows`.
fn write_paged(path: &Path, batch: &RecordBatch, group_rows: usize, page_rows: usize) {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_data_page_row_count_limit(page_rows)
        .set_write_batch_size(page_rows)
        .set_dictionary_enabled(false)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// A random table of `rows` rows: `k` the row number (so pages cover
/// disjoint ranges of it), `n` a drifting integer with NULLs and runs of
/// NULL only (`blank` rows in every 64), `f` floats with NULL, NaN and
/// `-0.0`, `d` DECIMAL(10,2), `s` strings, `dt` dates, `i` a 32-bit
/// integer, `p` a payload string no filter reads.
fn random_batch(rng: &mut Lcg, rows: usize, blank: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("n", DataType::Int64, true),
        Field::new("f", DataType::Float64, true),
        Field::new("d", DataType::Decimal128(10, 2), true),
        Field::new("s", DataType::Utf8, true),
        Field::new("dt", DataType::Date32, true),
        Field::new("i", DataType::Int32, true),
        Field::new("p", DataType::Utf8, true),
    ]));
    let k: Int64Array = (0..rows as i64).collect();
    let n: Int64Array = (0..rows)
        .map(|r| (r % 64 >= blank && rng.next(10) != 0).then(|| r as i64 / 3 + rng.next(20) - 10))
        .collect();
    let f: Float64Array = (0..rows)
        .map(|r| match rng.next(20) {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(-0.0),
            _ => Some(r as f64 / 4.0 - 20.0 + rng.next(8) as f64 / 2.0),
        })
        .collect();
    let d: Decimal128Array = (0..rows)
        .map(|r| (rng.next(8) != 0).then(|| r as i128 * 25 - 500 + rng.next(100) as i128))
        .collect::<Decimal128Array>()
        .with_precision_and_scale(10, 2)
        .unwrap();
    let s: StringArray = (0..rows)
        .map(|r| (rng.next(10) != 0).then(|| format!("key{:04}", r / 2 + rng.next(5) as usize)))
        .collect();
    let dt: Date32Array = (0..rows)
        .map(|r| (rng.next(5) != 0).then(|| 9000 + r as i32 + rng.next(10) as i32))
        .collect();
    let i: Int32Array = (0..rows)
        .map(|_| (rng.next(5) != 0).then(|| rng.next(100) as i32 - 50))
        .collect();
    let p: StringArray = (0..rows)
        .map(|r| (r % 7 != 0).then(|| format!("payload-{r}")))
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(k),
        Arc::new(n),
        Arc::new(f),
        Arc::new(d),
        Arc::new(s),
        Arc::new(dt),
        Arc::new(i),
        Arc::new(p),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

/// One random condition, with literals below, at, inside and above the
/// data's range.
fn random_condition(rng: &mut Lcg, rows: i64) -> String {
    let row = |rng: &mut Lcg| -> i64 {
        match rng.next(6) {
            0 => -5 - rng.next(100),
            1 => rows + rng.next(100),
            2 => 0,
            3 => rows - 1,
            _ => rng.next(rows.max(1)),
        }
    };
    let op = |rng: &mut Lcg| ["=", "<", "<=", ">", ">=", "<>"][rng.next(6) as usize];
    let r = row(rng);
    let r2 = r + rng.next(60);
    match rng.next(20) {
        0 | 1 => format!("k {} {r}", op(rng)),
        2 => format!("k BETWEEN {r} AND {r2}"),
        3 => format!("k IN ({r}, {r2}, {})", row(rng)),
        4 => format!("n {} {}", op(rng), r / 3),
        5 => "n IS NULL".to_string(),
        6 => "n IS NOT NULL".to_string(),
        7 => format!("f {} {}", op(rng), r as f64 / 4.0 - 20.0),
        8 => format!("f {} CAST('NaN' AS DOUBLE)", op(rng)),
        9 => format!("d {} {}.{}", op(rng), r / 4 - 5, rng.next(100)),
        10 => format!("s {} 'key{:04}'", op(rng), r / 2),
        11 => format!("s BETWEEN 'key{:04}' AND 'key{:04}'", r / 2, r2 / 2),
        12 => format!(
            "dt {} DATE '1994-08-23' + INTERVAL '{}' DAY",
            op(rng),
            r.max(0)
        ),
        13 => format!("i {} {}", op(rng), rng.next(120) - 60),
        14 => "s IS NULL".to_string(),
        15 => format!("(k < {r} OR n > {})", r2 / 3),
        16 => format!("(n IS NULL OR k >= {r})"),
        17 => format!("NOT (k > {r})"),
        18 => "true".to_string(),
        _ => format!("k + 0 < {r}"),
    }
}

/// A query over `t` with one to three random conditions: the scan reads
/// more columns than the filter (late materialization) or only them.
fn random_query(rng: &mut Lcg, rows: i64) -> String {
    let parts: Vec<String> = (0..1 + rng.next(3))
        .map(|_| random_condition(rng, rows))
        .collect();
    let select = ["k, p", "k", "count(*)", "p, n, dt", "*"][rng.next(5) as usize];
    format!("SELECT {select} FROM t WHERE {}", parts.join(" AND "))
}

/// The rows of `sql`, sorted, or its error text.
fn outcome(s: &Session, sql: &str) -> Result<Vec<String>, String> {
    s.collect(sql)
        .map(|b| row_strings(&b))
        .map_err(|e| e.to_string())
}

/// The `NAME=read/total` EXPLAIN ANALYZE shows for the scan.
fn figures(s: &Session, sql: &str, name: &str) -> Option<(u64, u64)> {
    let (explain, _) = s.explain_analyze(sql).unwrap();
    let text = explain.to_text();
    let key = format!(" {name}=");
    let at = text.find(&key)?;
    let figures: String = text[at + key.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '/')
        .collect();
    let (read, total) = figures.split_once('/')?;
    Some((read.parse().ok()?, total.parse().ok()?))
}

/// Compares `queries` over `path` read lazily and held in memory in every
/// thread count and batch size; returns the pages the lazy scans left out.
fn assert_same_rows(path: &Path, queries: &[String]) -> u64 {
    let mut skipped = 0;
    for threads in [1, 4] {
        for batch_size in [1, 2, 7, 8192] {
            let mut lazy = empty_session(threads, batch_size);
            lazy.register_file("t", path).unwrap();
            let mut held = empty_session(threads, batch_size);
            held.register_file_in_memory("t", path).unwrap();
            // batch size 1 is slow in debug builds: a sample of the queries
            let step = if batch_size <= 2 { 5 } else { 1 };
            for sql in queries.iter().step_by(step) {
                let want = outcome(&held, sql);
                let got = outcome(&lazy, sql);
                assert_eq!(
                    got, want,
                    "{sql} (threads {threads}, batch size {batch_size})"
                );
                if want.is_ok()
                    && threads == 4
                    && batch_size == 8192
                    && let Some((read, total)) = figures(&lazy, sql, "pages")
                {
                    skipped += total - read;
                }
            }
        }
    }
    skipped
}

#[test]
fn page_pruning_and_late_materialization_never_change_a_filters_rows() {
    let dir = temp_dir("page-prune-differential");
    let mut rng = Lcg(0x5EED_9A6E_0017);
    let mut skipped = 0;
    for file in 0..3 {
        let rows = 300 + rng.next(500) as usize;
        let group_rows = [rows, 128 + rng.next(200) as usize, 97][file];
        let page_rows = 5 + rng.next(30) as usize;
        let batch = random_batch(&mut rng, rows, [0, 20, 40][file]);
        let path = dir.join(format!("paged{file}.parquet"));
        write_paged(&path, &batch, group_rows, page_rows);
        let queries: Vec<String> = (0..40)
            .map(|_| random_query(&mut rng, rows as i64))
            .collect();
        skipped += assert_same_rows(&path, &queries);
    }
    // the test exercises page pruning, not only the filter
    assert!(skipped > 0, "no page was ever skipped");
}

#[test]
fn filters_matching_nothing_or_everything_and_empty_files() {
    let dir = temp_dir("page-prune-edges");
    let mut rng = Lcg(17);
    let batch = random_batch(&mut rng, 500, 10);
    let path = dir.join("t.parquet");
    write_paged(&path, &batch, 500, 10);
    let empty = dir.join("empty.parquet");
    write_paged(&empty, &batch.slice(0, 0), 500, 10);
    let queries: Vec<String> = [
        "SELECT k, p FROM t WHERE k > 100000",
        "SELECT k, p FROM t WHERE k >= 0",
        "SELECT count(*), max(p) FROM t WHERE k < 0 OR k > 499",
        "SELECT k, p FROM t WHERE n IS NULL",
        "SELECT p FROM t WHERE n IS NOT NULL AND k < 50",
        "SELECT p FROM t WHERE NULL",
    ]
    .map(String::from)
    .to_vec();
    assert_same_rows(&path, &queries);
    assert_same_rows(&empty, &queries);
    let mut s = empty_session(4, 8192);
    s.register_file("t", &path).unwrap();
    // nothing can match: no page is read
    assert_eq!(
        figures(&s, "SELECT k, p FROM t WHERE k > 100000", "row_groups"),
        Some((0, 1))
    );
    assert_eq!(
        figures(&s, "SELECT k, p FROM t WHERE k > 100000", "pages"),
        Some((0, 100))
    );
    let mut s = empty_session(4, 8192);
    s.register_file("t", &empty).unwrap();
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k > 3"), ["0"]);
}

#[test]
fn a_sorted_column_filter_reads_only_its_pages() {
    let dir = temp_dir("page-prune-skips");
    let mut rng = Lcg(7);
    let batch = random_batch(&mut rng, 1000, 0);
    let path = dir.join("t.parquet");
    // one row group of ten pages a column
    write_paged(&path, &batch, 1000, 100);
    let mut s = empty_session(4, 8192);
    s.register_file("t", &path).unwrap();
    let sql = "SELECT count(*), min(p), max(p) FROM t WHERE k >= 250 AND k < 330";
    assert_eq!(run(&s, sql), ["80|payload-250|payload-328"]);
    assert_eq!(figures(&s, sql, "row_groups"), Some((1, 1)));
    // k and p: two columns of ten pages, pages 2 and 3 of each read
    assert_eq!(figures(&s, sql, "pages"), Some((4, 20)));
    // a filter the page index cannot refute reads every page
    let sql = "SELECT count(*) FROM t WHERE k + 0 >= 250 AND p IS NOT NULL";
    assert_eq!(figures(&s, sql, "pages"), Some((20, 20)));
    // no filter: no page index read, no figure
    assert_eq!(figures(&s, "SELECT count(*) FROM t", "pages"), None);
    // OR is not refuted by page statistics, but still filters exactly
    let sql = "SELECT count(*) FROM t WHERE k < 10 OR k > 989";
    assert_eq!(run(&s, sql), ["20"]);
}

#[test]
fn late_materialization_names_the_file_row_of_a_bad_value() {
    // A declared NOT NULL column holding a NULL: the error names its row
    // of the file, whether the filter or the output decoded it.
    let dir = temp_dir("late-bad-row");
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("v", DataType::Int64, true),
    ]));
    let k: Int64Array = (0..400).collect();
    let v: Int64Array = (0..400).map(|r| (r != 333).then_some(r)).collect();
    let batch = RecordBatch::try_new(schema, vec![Arc::new(k), Arc::new(v)]).unwrap();
    let path = dir.join("t.parquet");
    write_paged(&path, &batch, 400, 20);
    let ddl = format!(
        "CREATE TABLE t (k BIGINT NOT NULL, v BIGINT NOT NULL) WITH ('connector' = \
         'filesystem', 'path' = '{}', 'format' = 'parquet')",
        path.display()
    );
    for sql in [
        // the output column holds the NULL, rows before it pruned by pages
        "SELECT v FROM t WHERE k > 290",
        // the filter column holds it
        "SELECT k FROM t WHERE v > 300",
    ] {
        let s = empty_session(2, 8192);
        s.execute(&ddl).unwrap();
        let err = s.collect(sql).unwrap_err().to_string();
        assert!(err.contains("row 334"), "{sql}: {err}");
    }
}

#[test]
fn late_materialization_stops_when_the_filter_keeps_most_rows() {
    let dir = temp_dir("late-adaptive");
    let mut rng = Lcg(11);
    let batch = random_batch(&mut rng, 1000, 0);
    let path = dir.join("t.parquet");
    // ten row groups of 100 rows, one page each
    write_paged(&path, &batch, 100, 100);
    let mut s = empty_session(1, 8192);
    s.register_file("t", &path).unwrap();
    // `i` keeps about 4 rows in 10 of each group: every group decoded late
    let sql = "SELECT count(p) FROM t WHERE i < -10";
    let (kept, evaluated) = figures(&s, sql, "late_rows").unwrap();
    assert_eq!(evaluated, 1000);
    assert!(kept * 2 <= evaluated, "{kept}/{evaluated}");
    assert_eq!(
        run(&s, "SELECT count(*) FROM t WHERE i < -10"),
        [kept.to_string()]
    );
    // every row passes: after the first group, the groups are read whole
    let sql = "SELECT count(p) FROM t WHERE k + 0 >= 0";
    assert_eq!(figures(&s, sql, "late_rows"), Some((100, 100)));
    // the filter reads every column the scan reads: nothing decoded late
    let sql = "SELECT count(*) FROM t WHERE i < -10";
    assert_eq!(figures(&s, sql, "late_rows"), None);
}
