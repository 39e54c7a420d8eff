//! File tables read while the query runs (issue 14): a scan reads its
//! Parquet row groups as it goes, skips those whose statistics refute the
//! filter above it, stops when a LIMIT is satisfied, and holds only the
//! batches in flight against `memory_limit`.
//!
//! Pruning is an optimisation only: the differential test checks that
//! every filter of the shapes the pruner reasons about gives the same rows
//! over a lazily read file (pruning on) as over the same file held in
//! memory (no pruning), on random files with many row groups (NULLs, NaN,
//! `-0.0`, decimals, strings with truncated statistics, dates), and on a
//! file written by DuckDB, in every batch size and thread count.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use tenon::{Error, Session};

use crate::common::*;

/// The DuckDB 2.0.1 file: 12,288 rows in 6 row groups of 2,048 (see
/// `tests/data/README.md`).
fn duckdb_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/duckdb_row_groups.parquet")
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Writes `batch` to `path` in row groups of `group_rows`, string
/// statistics cut to `truncate` bytes.
fn write_parquet(path: &Path, batch: &RecordBatch, group_rows: usize, truncate: Option<usize>) {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .set_statistics_truncate_length(truncate)
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// A random table of `rows` rows: `k` the row number (so row groups cover
/// disjoint ranges of it), `n` a drifting integer with NULLs, `f` floats
/// with NULL, NaN and `-0.0`, `d` DECIMAL(10,2), `s` strings (some long,
/// for truncated statistics), `dt` dates, `i` a 32-bit integer.
fn random_batch(rng: &mut Rng, rows: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("n", DataType::Int64, true),
        Field::new("f", DataType::Float64, true),
        Field::new("d", DataType::Decimal128(10, 2), true),
        Field::new("s", DataType::Utf8, true),
        Field::new("dt", DataType::Date32, true),
        Field::new("i", DataType::Int32, true),
    ]));
    let k: Int64Array = (0..rows as i64).collect();
    let n: Int64Array = (0..rows)
        .map(|r| (!rng.chance(10)).then(|| r as i64 / 3 + rng.below(20) as i64 - 10))
        .collect();
    let f: Float64Array = (0..rows)
        .map(|r| match rng.below(20) {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(-0.0),
            3 => Some(0.0),
            _ => Some(r as f64 / 4.0 - 20.0 + rng.below(8) as f64 / 2.0),
        })
        .collect();
    let d: Decimal128Array = (0..rows)
        .map(|r| (!rng.chance(8)).then(|| (r as i128) * 25 - 500 + rng.below(100) as i128))
        .collect::<Decimal128Array>()
        .with_precision_and_scale(10, 2)
        .unwrap();
    let s: StringArray = (0..rows)
        .map(|r| {
            (!rng.chance(10)).then(|| {
                let tail = "z".repeat(rng.below(3) as usize * 20);
                format!("key{:04}{tail}", r / 2 + rng.below(5) as usize)
            })
        })
        .collect();
    let dt: Date32Array = (0..rows)
        .map(|r| (!rng.chance(5)).then(|| 9000 + r as i32 + rng.below(10) as i32))
        .collect();
    let i: Int32Array = (0..rows)
        .map(|_| (!rng.chance(5)).then(|| rng.below(100) as i32 - 50))
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(k),
        Arc::new(n),
        Arc::new(f),
        Arc::new(d),
        Arc::new(s),
        Arc::new(dt),
        Arc::new(i),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

/// One random conjunct of a shape the pruner reasons about (or, one time
/// in ten, one it does not), with literals below, at, inside and above
/// the data's range. `rows` is the table's row count.
fn random_conjunct(rng: &mut Rng, rows: i64) -> String {
    let row = |rng: &mut Rng| -> i64 {
        match rng.below(6) {
            0 => -5 - rng.below(100) as i64,
            1 => rows + rng.below(100) as i64,
            2 => 0,
            3 => rows - 1,
            _ => rng.below(rows as u64) as i64,
        }
    };
    let op = |rng: &mut Rng| ["=", "<", "<=", ">", ">="][rng.below(5) as usize];
    let r = row(rng);
    let r2 = r + rng.below(40) as i64;
    match rng.below(22) {
        0 => format!("k {} {r}", op(rng)),
        1 => format!("{r} {} k", op(rng)),
        2 => format!("k BETWEEN {r} AND {r2}"),
        3 => format!("k IN ({r}, {r2}, {})", row(rng)),
        4 => format!("n {} {}", op(rng), r / 3),
        5 => "n IS NULL".to_string(),
        6 => "n IS NOT NULL".to_string(),
        7 => format!("f {} {}", op(rng), r as f64 / 4.0 - 20.0),
        8 => format!(
            "f {} {}",
            op(rng),
            ["0.0", "-0.0", "CAST('NaN' AS DOUBLE)", "1e300", "-1e300"][rng.below(5) as usize]
        ),
        9 => format!("d {} {}.{}", op(rng), r / 4 - 5, rng.below(100)),
        10 => format!("d BETWEEN {} AND {}", r / 4 - 5, r2 / 4),
        11 => format!("d {} {}", op(rng), r / 4),
        12 => format!("s {} 'key{:04}'", op(rng), r / 2),
        13 => format!("s {} 'key{:04}zz'", op(rng), r / 2),
        14 => format!("s BETWEEN 'key{:04}' AND 'key{:04}'", r / 2, r2 / 2),
        15 => format!("s IN ('key{:04}', 'key{:04}')", r / 2, r2 / 2),
        16 => format!(
            "dt {} DATE '1994-08-23' + INTERVAL '{}' DAY",
            op(rng),
            r.max(0)
        ),
        17 => format!("i {} {}", op(rng), rng.below(120) as i64 - 60),
        18 => format!("k {} {r}.5", op(rng)),
        19 => "s IS NULL".to_string(),
        20 => format!("k <> {r}"),
        _ => format!("(k < {r} OR n > {})", r2 / 3),
    }
}

/// `SELECT k ... WHERE` the conjunction of one to three random conjuncts.
fn random_query(rng: &mut Rng, rows: i64) -> String {
    let parts: Vec<String> = (0..1 + rng.below(3))
        .map(|_| random_conjunct(rng, rows))
        .collect();
    format!("SELECT k FROM t WHERE {}", parts.join(" AND "))
}

/// The rows of `sql`, sorted, or its error text.
fn outcome(s: &Session, sql: &str) -> Result<Vec<String>, String> {
    s.collect(sql)
        .map(|b| row_strings(&b))
        .map_err(|e| e.to_string())
}

/// The `row_groups=read/total` EXPLAIN ANALYZE shows for the scan.
fn row_groups(s: &Session, sql: &str) -> (u64, u64) {
    let (explain, _) = s.explain_analyze(sql).unwrap();
    let text = explain.to_text();
    let at = text
        .find("row_groups=")
        .unwrap_or_else(|| panic!("no row_groups in\n{text}"));
    let figures: String = text[at + "row_groups=".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '/')
        .collect();
    let (read, total) = figures.split_once('/').unwrap();
    (read.parse().unwrap(), total.parse().unwrap())
}

/// Compares `queries` over `path` read lazily (pruning) and held in
/// memory (none) in every thread count and batch size; returns the row
/// groups the lazy scans left out.
fn assert_pruning_keeps_every_row(path: &Path, queries: &[String]) -> u64 {
    let mut skipped = 0;
    for threads in [1, 4] {
        for batch_size in [1, 2, 7, 8192] {
            let mut lazy = empty_session(threads, batch_size);
            lazy.register_file("t", path).unwrap();
            let mut held = empty_session(threads, batch_size);
            held.register_file_in_memory("t", path).unwrap();
            // batch size 1 is slow in debug builds: a sample of the queries
            let step = if batch_size == 1 { 4 } else { 1 };
            for sql in queries.iter().step_by(step) {
                let want = outcome(&held, sql);
                let got = outcome(&lazy, sql);
                assert_eq!(
                    got,
                    want,
                    "{sql} over {} (threads {threads}, batch size {batch_size})",
                    path.display()
                );
                if want.is_ok() && threads == 4 && batch_size == 8192 {
                    let (read, total) = row_groups(&lazy, sql);
                    skipped += total - read;
                }
            }
        }
    }
    skipped
}

#[test]
fn parquet_row_group_pruning_never_changes_a_filters_rows() {
    let dir = temp_dir("prune-differential");
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut skipped = 0;
    for file in 0..4 {
        let rows = 150 + rng.below(250) as usize;
        let group_rows = 7 + rng.below(50) as usize;
        let truncate = [None, Some(4), Some(6)][file % 3];
        let batch = random_batch(&mut rng, rows);
        let path = dir.join(format!("random{file}.parquet"));
        write_parquet(&path, &batch, group_rows, truncate);
        let queries: Vec<String> = (0..40)
            .map(|_| random_query(&mut rng, rows as i64))
            .collect();
        skipped += assert_pruning_keeps_every_row(&path, &queries);
    }
    // the test exercises pruning, not only the filter
    assert!(skipped > 0, "no row group was ever skipped");
}

#[test]
fn parquet_row_group_pruning_keeps_every_row_of_a_duckdb_file() {
    let mut rng = Rng(0x5EED_D0C4_DB00_0002);
    // the DuckDB file's `k` is its row number as well
    let queries: Vec<String> = (0..24).map(|_| random_query(&mut rng, 12_288)).collect();
    let skipped = assert_pruning_keeps_every_row(&duckdb_file(), &queries);
    assert!(skipped > 0, "no row group was ever skipped");
}

#[test]
fn parquet_scan_skips_row_groups_its_filter_cannot_match() {
    let dir = temp_dir("prune-skips");
    let mut rng = Rng(7);
    let batch = random_batch(&mut rng, 1000);
    let path = dir.join("t.parquet");
    write_parquet(&path, &batch, 100, None);
    let mut s = empty_session(4, 8192);
    s.register_file("t", &path).unwrap();
    let sql = "SELECT count(*) FROM t WHERE k < 150";
    assert_eq!(run(&s, sql), ["150"]);
    assert_eq!(row_groups(&s, sql), (2, 10));
    // several conjuncts, one of them on another column
    let sql = "SELECT count(*) FROM t WHERE k BETWEEN 420 AND 480 AND i IS NOT NULL";
    assert_eq!(row_groups(&s, sql), (1, 10));
    // nothing can match: nothing is read
    assert_eq!(row_groups(&s, "SELECT k FROM t WHERE k > 5000"), (0, 10));
    assert_eq!(
        row_groups(&s, "SELECT k FROM t WHERE k IN (5, 950)"),
        (2, 10)
    );
    // a filter the pruner cannot use reads everything, and still filters
    let sql = "SELECT count(*) FROM t WHERE k + 1 < 150";
    assert_eq!(run(&s, sql), ["149"]);
    assert_eq!(row_groups(&s, sql), (10, 10));
    // the DuckDB file: dates in order, one row group of six
    let mut s = empty_session(4, 8192);
    s.register_file("t", duckdb_file()).unwrap();
    let sql = "SELECT count(*) FROM t WHERE dt < DATE '1995-01-05'";
    assert_eq!(run(&s, sql), ["12"]);
    assert_eq!(row_groups(&s, sql), (1, 6));
}

/// `big.parquet`: 200,000 rows of `x` (Int64, 1..=200,000) and `s` (a
/// 40-byte string), in row groups of 10,000: about 1.6 MB of `x` and 8 MB
/// of `s` decoded.
fn big_parquet(dir: &Path) -> PathBuf {
    let schema = Arc::new(Schema::new(vec![
        Field::new("x", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let n = 200_000;
    let x: Int64Array = (1..=n).collect();
    let s: StringArray = (1..=n).map(|i| Some(format!("{i:0>40}"))).collect();
    let batch = RecordBatch::try_new(schema, vec![Arc::new(x), Arc::new(s)]).unwrap();
    let path = dir.join("big.parquet");
    write_parquet(&path, &batch, 10_000, None);
    path
}

#[test]
fn a_lazy_scan_held_the_whole_table_against_memory_limit() {
    let dir = temp_dir("lazy-peak");
    let path = big_parquet(&dir);
    let mut s = empty_session(2, 8192);
    // below the decoded size of either column (x: 1.6 MB, s: 8 MB)
    s.set("memory_limit", "1MB").unwrap();
    s.register_file("big", &path).unwrap();
    assert_eq!(run(&s, "SELECT count(*) FROM big WHERE x > 0"), ["200000"]);
    // half of `s` alone: the batches in flight of both columns fit
    s.set("memory_limit", "4MB").unwrap();
    assert_eq!(
        run(&s, "SELECT sum(x), count(*) FROM big WHERE s > '0'"),
        ["20000100000|200000"]
    );
    // a batch that cannot fit is the memory-limit error, exit 3
    s.set("memory_limit", "100KB").unwrap();
    let err = s.collect("SELECT max(s) FROM big").unwrap_err();
    assert!(matches!(err, Error::Resource(_)), "{err}");
    assert!(err.to_string().contains("memory limit exceeded"), "{err}");
    assert_eq!(err.exit_code(), 3);
}

#[test]
fn a_satisfied_limit_still_read_every_row_group() {
    let dir = temp_dir("lazy-limit-stops");
    let path = big_parquet(&dir);
    for threads in [1, 4] {
        let mut s = empty_session(threads, 1024);
        s.register_file("big", &path).unwrap();
        let out = s.collect("SELECT * FROM big LIMIT 1").unwrap();
        assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
        let (read, total) = row_groups(&s, "SELECT * FROM big LIMIT 1");
        assert_eq!(total, 20);
        // each worker starts at most a group or two before the stop
        assert!(
            read <= 2 * threads as u64,
            "{read} of {total} row groups read"
        );
    }
}

#[test]
fn a_file_that_turns_bad_is_an_input_error_at_the_scan() {
    let dir = temp_dir("lazy-bad-file");
    let path = big_parquet(&dir);
    let mut s = empty_session(2, 8192);
    s.register_file("big", &path).unwrap();
    std::fs::write(&path, b"not parquet any more").unwrap();
    let err = s.collect("SELECT count(*) FROM big").unwrap_err();
    assert!(matches!(err, Error::Io(_)), "{err:?}");
    assert!(err.to_string().contains("big.parquet"), "{err}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn every_format_streams_the_rows_it_holds_in_memory() {
    use tenon::io::{OutputFormat, write_to_path};
    let dir = temp_dir("lazy-formats");
    let mut rng = Rng(0x00F0_4A75);
    // no floats: CSV and JSON do not keep NaN and -0.0 apart
    let batch = random_batch(&mut rng, 300);
    let batch = batch.project(&[0, 1, 3, 4, 5, 6]).unwrap();
    let queries = [
        "SELECT k, s FROM t WHERE n > 20",
        "SELECT count(*) FROM t",
        "SELECT i, count(*), sum(k) FROM t GROUP BY i",
        "SELECT dt, d FROM t WHERE s IS NULL OR k < 10",
        "SELECT k FROM t WHERE k BETWEEN 100 AND 120 LIMIT 5",
    ];
    let formats = [
        (OutputFormat::Csv, "csv"),
        (OutputFormat::Ndjson, "ndjson"),
        (OutputFormat::Json, "json"),
        (OutputFormat::Arrow, "arrow"),
        (OutputFormat::Parquet, "parquet"),
    ];
    for (format, ext) in formats {
        let path = dir.join(format!("t.{ext}"));
        write_to_path(std::slice::from_ref(&batch), &batch.schema(), format, &path).unwrap();
        // a directory of three copies, read in parallel
        let sub = dir.join(ext);
        std::fs::create_dir_all(&sub).unwrap();
        for part in 0..3 {
            std::fs::copy(&path, sub.join(format!("part{part}.{ext}"))).unwrap();
        }
        for table in [&path, &sub] {
            for (threads, batch_size) in [(1, 1), (4, 7), (2, 8192)] {
                let mut lazy = empty_session(threads, batch_size);
                lazy.register_file("t", table).unwrap();
                let mut held = empty_session(threads, batch_size);
                held.register_file_in_memory("t", table).unwrap();
                for sql in queries {
                    let want = outcome(&held, sql);
                    let got = outcome(&lazy, sql);
                    assert!(want.is_ok(), "{sql} over {}: {want:?}", table.display());
                    if sql.contains("LIMIT") {
                        assert_eq!(got.as_ref().map(Vec::len), Ok(5), "{sql}");
                    } else {
                        assert_eq!(
                            got,
                            want,
                            "{sql} over {} ({threads}, {batch_size})",
                            table.display()
                        );
                    }
                }
            }
        }
    }
}
