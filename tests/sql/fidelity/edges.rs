//! Small edges a black-box probe found, each against what docs/ promise.

use crate::common::*;

fn rows(sql: &str) -> Vec<String> {
    run_ordered(&empty_session(2, 8192), sql)
}

#[test]
fn array_index_beyond_i32_is_null() {
    // docs/nested.md N04: an index past either end gives NULL.
    assert_eq!(rows("SELECT [1, 2, 3][2147483648]"), ["NULL"]);
    assert_eq!(rows("SELECT [1, 2, 3][9223372036854775807]"), ["NULL"]);
    assert_eq!(
        rows(
            "SELECT [1, 2, 3][i] FROM (VALUES (CAST(2 AS BIGINT)), (2147483648), (4294967298)) \
             v(i) ORDER BY i"
        ),
        ["2", "NULL", "NULL"]
    );
}

#[test]
fn many_statements_on_one_line_cost_linear_text() {
    // 20,000 statements on one line: each statement's text was padded
    // with spaces up to its column (2 GB in all, and as much to tokenize).
    let script = "SELECT 1;".repeat(20_000);
    let statements = tenon::planner::sql::split_statements(&script).unwrap();
    assert_eq!(statements.len(), 20_000);
    let total: usize = statements.iter().map(|s| s.text.len()).sum();
    assert!(
        total < 4 * script.len() + 20_000 * 4200,
        "{total} bytes of statement text"
    );
    assert_eq!(statements[19_999].text.trim(), "SELECT 1");
    // Near the start of a line a statement keeps its column in the
    // script, so that positions in its errors are the script's.
    assert_eq!(statements[1].text, format!("{}SELECT 1", " ".repeat(9)));
    // And a script of them runs.
    let mut s = empty_session(1, 8192);
    let last = s.execute_script(&"SELECT 1 AS one;".repeat(2_000)).unwrap();
    assert!(last.is_some());
}

#[test]
fn parentheses_kept_when_an_expression_is_printed_in_an_error() {
    let s = empty_session(1, 8192);
    let e = query_err(
        &s,
        "SELECT sum((k - 1) / 0) FROM (VALUES (CAST(2 AS BIGINT))) v(k)",
    );
    assert!(e.to_string().contains("(v.k - 1) / 0"), "{e}");
    let e = query_err(
        &s,
        "SELECT k - (k - 2) / 0 FROM (VALUES (CAST(2 AS BIGINT))) v(k)",
    );
    // (the division is the operation that fails)
    assert!(e.to_string().contains("`(v.k - 2) / 0`"), "{e}");
}

#[test]
fn qualified_star_over_a_wide_join_input_is_expanded_by_tenon() {
    // `probe.*` over 3,000 columns: planned by tenon's own expansion
    // (DataFusion's compares every item with every other: 56 s at 20,000
    // columns).
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use arrow_schema::{Field, Schema};
    let n = 3_000;
    let schema = Arc::new(Schema::new(
        (0..n)
            .map(|i| Field::new(format!("c{i}"), arrow_schema::DataType::Int64, true))
            .collect::<Vec<_>>(),
    ));
    let columns: Vec<ArrayRef> = (0..n)
        .map(|i| Arc::new(Int64Array::from(vec![i as i64, 7])) as ArrayRef)
        .collect();
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    let mut s = empty_session(2, 8192);
    s.register_batch("probe", batch.clone()).unwrap();
    s.register_batch("build", batch).unwrap();
    for sql in [
        "SELECT probe.* FROM probe JOIN build USING (c0)",
        "SELECT probe.* FROM probe JOIN build ON probe.c0 = build.c0",
    ] {
        let out = collect(&s, sql);
        let schema = out[0].schema();
        assert_eq!(schema.fields().len(), n, "{sql}");
        assert_eq!(schema.field(n - 1).name(), &format!("c{}", n - 1), "{sql}");
        let rows: usize = out.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 2, "{sql}");
    }
}
