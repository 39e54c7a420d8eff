//! Bad input: syntax errors with positions, unknown tables and columns,
//! unsupported statements, and no panic on any input (proptest).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use proptest::prelude::*;
use tenon_planner::sql::{Catalog, SqlError};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for t in ["t1", "t2"] {
        c.register_table(
            t,
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new("v", DataType::Utf8, true),
            ])),
        );
    }
    c
}

#[test]
fn syntax_error_has_line_and_column() {
    let err = catalog()
        .plan("SELECT *\nFROM t1 WHERE id = = 3")
        .unwrap_err();
    let SqlError::Syntax { line, column, .. } = err else {
        panic!("expected a syntax error, got {err:?}")
    };
    assert_eq!(line, 2);
    assert!(column >= 18, "column {column}");
}

#[test]
fn unclosed_hint_comment_is_a_syntax_error_with_position() {
    let err = catalog()
        .plan("SELECT /*+ BROADCAST(t1) * FROM t1")
        .unwrap_err();
    assert!(matches!(err, SqlError::Syntax { line: 1, .. }), "{err:?}");
}

#[test]
fn unknown_table_is_named_with_the_known_ones() {
    let err = catalog()
        .plan("SELECT * FROM t1 JOIN nope ON t1.id = nope.id")
        .unwrap_err();
    assert_eq!(
        err,
        SqlError::UnknownTable {
            name: "nope".into(),
            known: vec!["t1".into(), "t2".into()]
        }
    );
    assert!(err.to_string().contains("`nope`"));
}

#[test]
fn unknown_column_is_named() {
    let err = catalog().plan("SELECT t1.missing FROM t1").unwrap_err();
    let SqlError::UnknownColumn { name, valid } = &err else {
        panic!("expected unknown column, got {err:?}")
    };
    assert_eq!(name, "t1.missing");
    assert!(valid.contains(&"t1.id".to_string()));
}

#[test]
fn unsupported_statements_are_told_apart() {
    for sql in [
        "INSERT INTO t1 VALUES (1, 'a')",
        "CREATE TABLE x (a INT)",
        "SELECT 1; SELECT 2",
        "",
        "   ",
    ] {
        let err = catalog().plan(sql).unwrap_err();
        assert!(matches!(err, SqlError::Unsupported(_)), "{sql}: {err:?}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let sql = format!("SELECT {}1{} FROM t1", "(".repeat(500), ")".repeat(500));
    assert!(catalog().plan(&sql).is_err());
}

const FRAGMENTS: &[&str] = &[
    "SELECT",
    "/*+",
    "*/",
    "/*+ BROADCAST(t1) */",
    "*",
    "FROM",
    "t1",
    "t2",
    "AS",
    "a",
    "JOIN",
    "LEFT",
    "SEMI",
    "ANTI",
    "ON",
    "USING",
    "(",
    ")",
    ",",
    "WHERE",
    "id",
    "v",
    "t1.id",
    "t2.id",
    "=",
    "<",
    "AND",
    "OR",
    "NOT",
    "IS",
    "DISTINCT",
    "IN",
    "EXISTS",
    "UNION",
    "ALL",
    "WITH",
    "GROUP",
    "BY",
    "ORDER",
    "LIMIT",
    "1",
    "'x'",
    "NULL",
    "count(*)",
    ";",
    "--",
    "\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(sql in "\\PC{0,60}") {
        let _ = catalog().plan(&sql);
    }

    #[test]
    fn random_fragments_never_panic(picks in prop::collection::vec(0..FRAGMENTS.len(), 0..24)) {
        let sql = picks.iter().map(|&i| FRAGMENTS[i]).collect::<Vec<_>>().join(" ");
        let _ = catalog().plan(&sql);
    }

    #[test]
    fn random_join_queries_plan_or_fail_cleanly(
        picks in prop::collection::vec(0..FRAGMENTS.len(), 0..10),
    ) {
        let tail = picks.iter().map(|&i| FRAGMENTS[i]).collect::<Vec<_>>().join(" ");
        let sql = format!("SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id {tail}");
        let _ = catalog().plan(&sql);
    }
}
