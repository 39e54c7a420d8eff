//! Nested values end to end (docs/nested.md N01–N05): Parquet written by
//! pyarrow read and expanded, tenon's Parquet output checked against the
//! file pyarrow read back (tests/data/nested: the files and `make.py`, so
//! no Python is needed here), nested values as group keys, sort keys, join
//! payload and in comparisons, COLLECT and ARRAY_AGG.

use std::path::PathBuf;

use tenon::io::{OutputFormat, write_to_path};

use crate::common::Json;
use crate::common::{collect, empty_session, row_strings, run, run_ordered, temp_dir};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nested")
        .join(name)
}

fn session_with_pyarrow_file(threads: usize, batch_size: usize) -> tenon::Session {
    let mut s = empty_session(threads, batch_size);
    s.register_file("t", fixture("pyarrow.parquet")).unwrap();
    s
}

#[test]
fn parquet_written_by_pyarrow_is_read_and_unnested() {
    for (threads, batch_size) in [(1, 1), (4, 2), (1, 8192)] {
        let s = session_with_pyarrow_file(threads, batch_size);
        assert_eq!(
            run_ordered(&s, "SELECT * FROM t ORDER BY id"),
            vec![
                "1|[x, y]|[1]|[1, 2]|{shirt: 2, hat: 1}|{a: 1, b: p}|[{a: 1, b: p}, {a: 2, b: q}]",
                "2|[]|[2, 3]|[3, 4]|{}|NULL|[]",
                "3|NULL|NULL|NULL|NULL|{a: NULL, b: q}|NULL",
                "4|[z, NULL]|[]|[5, NULL]|{a: NULL}|{a: 4, b: NULL}|[NULL, {a: 3, b: NULL}]",
                "5|[w]|[4, 5, 6]|[7, 8]|{b: 3}|{a: 5, b: s}|[{a: 9, b: z}]",
            ]
        );
        // List, LargeList and FixedSizeList zipped, LEFT with ordinality
        assert_eq!(
            run(
                &s,
                "SELECT id, x, y, z, pos FROM t LEFT JOIN UNNEST(t.tags, t.big, t.pair) \
                 WITH ORDINALITY AS u(x, y, z, pos) ON TRUE"
            ),
            vec![
                "1|x|1|1|1",
                "1|y|NULL|2|2",
                "2|NULL|2|3|1",
                "2|NULL|3|4|2",
                "3|NULL|NULL|NULL|NULL",
                "4|NULL|NULL|NULL|2",
                "4|z|NULL|5|1",
                "5|NULL|5|8|2",
                "5|NULL|6|NULL|3",
                "5|w|4|7|1",
            ]
        );
        // a map with a NULL value and an array of rows (a NULL row: NULL fields)
        assert_eq!(
            run(
                &s,
                "SELECT id, k, v, a, b FROM t, UNNEST(t.m, t.rows) AS u(k, v, a, b)"
            ),
            vec![
                "1|hat|1|2|q",
                "1|shirt|2|1|p",
                "4|NULL|NULL|3|NULL",
                "4|a|NULL|NULL|NULL",
                "5|b|3|9|z",
            ]
        );
    }
}

#[test]
fn tenons_parquet_output_is_the_file_pyarrow_read_back() {
    let s = session_with_pyarrow_file(2, 8192);
    let sql = std::fs::read_to_string(fixture("tenon.sql")).unwrap();
    let batches = collect(&s, sql.trim());
    let dir = temp_dir("nested-parquet-out");
    let out = dir.join("out.parquet");
    write_to_path(&batches, &batches[0].schema(), OutputFormat::Parquet, &out).unwrap();
    // what tenon writes today reads back as the checked-in file does
    let mut both = empty_session(1, 8192);
    both.register_file("today", &out).unwrap();
    both.register_file("checked_in", fixture("tenon.parquet"))
        .unwrap();
    let today = collect(&both, "SELECT * FROM today ORDER BY id");
    let checked_in = collect(&both, "SELECT * FROM checked_in ORDER BY id");
    assert_eq!(today[0].schema(), checked_in[0].schema());
    assert_eq!(row_strings(&today), row_strings(&checked_in));
    // and pyarrow read the checked-in file as tenon reads it
    let text = std::fs::read_to_string(fixture("tenon.pyarrow.json")).unwrap();
    let json = Json::parse(&text).unwrap();
    let rows = json.get("rows").and_then(Json::as_arr).unwrap();
    assert_eq!(rows.len(), 5);
    let schema: Vec<&str> = json
        .get("schema")
        .and_then(Json::as_arr)
        .unwrap()
        .iter()
        .filter_map(Json::as_str)
        .collect();
    for column in [
        "tags: list<element: string>",
        "big: large_list<element: int64>",
        "pair: fixed_size_list<element: int32>[2]",
        "r: struct<a: int64, b: string>",
        "rows: list<element: struct<a: int64, b: string>>",
        "made: list<item: int64>",
    ] {
        assert!(schema.contains(&column), "{column} not in {schema:?}");
    }
}

#[test]
fn nested_values_group_sort_join_and_compare() {
    let s = session_with_pyarrow_file(4, 2);
    assert_eq!(
        run(&s, "SELECT tags, count(*) FROM t GROUP BY tags"),
        vec!["NULL|1", "[]|1", "[w]|1", "[x, y]|1", "[z, NULL]|1"]
    );
    assert_eq!(
        run_ordered(&s, "SELECT id FROM t ORDER BY big NULLS LAST, id"),
        vec!["4", "1", "2", "5", "3"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT a.id, b.rows FROM t a JOIN t b ON a.id = b.id + 3"
        ),
        vec!["4|[{a: 1, b: p}, {a: 2, b: q}]", "5|[]"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT id, tags = ARRAY['x', 'y'], r IS NOT DISTINCT FROM named_struct('a', 4, 'b', \
             CAST(NULL AS VARCHAR)) FROM t"
        ),
        vec![
            "1|true|false",
            "2|false|false",
            "3|NULL|false",
            "4|false|true",
            "5|false|false"
        ]
    );
}

#[test]
fn collect_and_array_agg_are_the_same_for_every_setting() {
    for &(threads, batch_size) in &crate::common::CONFIGS {
        let s = session_with_pyarrow_file(threads, batch_size);
        assert_eq!(
            run(
                &s,
                "SELECT id % 2, collect(x), cardinality(collect(x)), cardinality(array_agg(x)) \
                 FROM t CROSS JOIN UNNEST(t.big) AS u(x) GROUP BY id % 2"
            ),
            vec!["0|{2: 1, 3: 1}|2|2", "1|{1: 1, 4: 1, 5: 1, 6: 1}|4|4"],
            "threads={threads} batch={batch_size}"
        );
        // NULLs are not elements of a multiset; ELEMENT of a one-element one
        assert_eq!(
            run(
                &s,
                "SELECT collect(t2), element(collect(CASE WHEN id = 4 THEN t2 END)) \
                 FROM t, UNNEST(t.tags) AS u(t2) WHERE id = 1 OR id = 4"
            ),
            vec!["{x: 1, y: 1, z: 1}|z"]
        );
    }
}
