//! Ties in as-of joins (several right rows with one key and time) are
//! broken by the right input's order, which is the table's order for every
//! thread count and batch size (docs/time.md), also when the table is a
//! Parquet file of several row groups read in parallel. The references are
//! the naive joins of `time_asof` and `time_temporal` (right rows scanned
//! in table order; the later of two versions at one time wins).

use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use tenon::{Config, Session};

use crate::common::*;
use crate::time_asof::{Op, query, reference, tables_of_keys};
use crate::time_temporal::{Data, data_of_keys, reference as temporal_reference, write};

/// Writes `table` to `path` in row groups of `group_rows` rows.
fn write_parquet(path: &std::path::Path, table: &Table, group_rows: usize) {
    let batch = table.batch();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn asof_ties_over_multi_row_group_parquet_do_not_depend_on_threads_or_batch_size() {
    let dir = temp_dir("asof-ties");
    let (trades, quotes) = tables_of_keys(7, 60, 200, 3);
    let (tp, qp) = (dir.join("trades.parquet"), dir.join("quotes.parquet"));
    write_parquet(&tp, &trades, 9);
    write_parquet(&qp, &quotes, 5);
    let mut failures = Vec::new();
    for threads in 1..=4 {
        for batch in [1, 2, 7, 8192] {
            let config = Config {
                threads,
                batch_size: batch,
                ..Config::default()
            };
            let mut s = Session::new(config).unwrap();
            s.register_file("trades", &tp).unwrap();
            s.register_file("quotes", &qp).unwrap();
            for op in [Op::Ge, Op::Gt, Op::Le, Op::Lt] {
                for keyed in [true, false] {
                    let expected = reference(&trades, &quotes, op, keyed, None);
                    for hint in ["", "/*+ SHUFFLE_MERGE(q) */"] {
                        let sql = query(op, keyed, None, hint);
                        let got = run(&s, &sql);
                        if got != expected {
                            failures.push(format!("threads {threads} batch {batch}: {sql}"));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes the versions of `data` to `rates.parquet` in `dir` (k, v, t as
/// a millisecond timestamp of its minute), in row groups of `group_rows`.
fn write_rates_parquet(dir: &std::path::Path, data: &Data, group_rows: usize) {
    use std::sync::Arc;

    use arrow_array::{Int64Array, RecordBatch, TimestampMillisecondArray};
    let minute_ms = |m: Option<i64>| m.map(|m| 1_704_067_200_000 + m * 60_000);
    let batch = RecordBatch::try_from_iter([
        (
            "k",
            Arc::new(Int64Array::from_iter(data.rates.iter().map(|r| r[0]))) as _,
        ),
        (
            "v",
            Arc::new(Int64Array::from_iter(data.rates.iter().map(|r| r[1]))) as _,
        ),
        (
            "t",
            Arc::new(TimestampMillisecondArray::from_iter(
                data.rates.iter().map(|r| minute_ms(r[2])),
            )) as _,
        ),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let file = std::fs::File::create(dir.join("rates.parquet")).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn temporal_join_ties_over_multi_row_group_parquet_take_the_later_version() {
    let dir = temp_dir("temporal-ties");
    // 3 keys and 40 minutes over 120 versions: many (key, time) ties.
    let d = data_of_keys(11, 50, 120, 3);
    write(dir.as_ref(), &d);
    write_rates_parquet(dir.as_ref(), &d, 7);
    let expected = temporal_reference(&d, false, false, false);
    let mut failures = Vec::new();
    for threads in 1..=4 {
        for batch in [1, 2, 7, 8192] {
            let s = empty_session(threads, batch);
            for sql in [
                format!(
                    "CREATE TABLE orders (id BIGINT, k BIGINT, t TIMESTAMP(3), WATERMARK FOR t \
                     AS t) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv')",
                    dir.join("orders.csv").display()
                ),
                format!(
                    "CREATE TABLE rates (k BIGINT, v BIGINT, t TIMESTAMP(3), PRIMARY KEY (k) \
                     NOT ENFORCED, WATERMARK FOR t AS t) WITH ('connector' = 'filesystem', \
                     'path' = '{}', 'format' = 'parquet')",
                    dir.join("rates.parquet").display()
                ),
            ] {
                s.execute(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
            let got = run(
                &s,
                "SELECT o.id, r.v FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.t AS r \
                 ON o.k = r.k",
            );
            if got != expected {
                failures.push(format!("threads {threads} batch {batch}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
