//! Views in the front end (docs/hints.md H30, H31): each reference to a view is
//! planned from the view's text as its own query blocks, with the view's
//! hint comments; the block order puts a view's blocks before the block
//! that reads it; statements of scripts and DDL are parsed.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use tenon_planner::sql::{
    Catalog, InputKind, PlannedQuery, SqlError, SqlStatement, ViewDef, parse_statement,
    split_statements,
};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for t in ["t1", "t2", "t3"] {
        c.register_table(
            t,
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new("v", DataType::Int64, true),
            ])),
        );
    }
    c
}

fn view(name: &str, sql: &str) -> ViewDef {
    ViewDef {
        name: name.into(),
        sql: sql.into(),
        columns: Vec::new(),
    }
}

fn plan(c: &Catalog, sql: &str) -> PlannedQuery {
    c.plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn h31_a_view_is_its_own_block_with_its_own_hints() {
    let mut c = catalog();
    c.register_view(view(
        "v12",
        "SELECT /*+ BROADCAST(t2) */ t1.id FROM t1 JOIN t2 ON t1.id = t2.id",
    ));
    let p = plan(
        &c,
        "SELECT /*+ SHUFFLE_HASH(v12) */ * FROM v12 JOIN t3 ON v12.id = t3.id",
    );
    assert_eq!(p.blocks.len(), 2);
    let (outer, inner) = (&p.blocks[0], &p.blocks[1]);
    assert_eq!(
        (outer.view.as_deref(), inner.view.as_deref()),
        (None, Some("v12"))
    );
    assert_eq!(outer.hints[0].text.trim(), "SHUFFLE_HASH(v12)");
    assert_eq!(inner.hints[0].text.trim(), "BROADCAST(t2)");
    // the hint's position is in the view's text
    assert_eq!((inner.hints[0].line, inner.hints[0].col), (1, 8));
    assert_eq!(outer.joins[0].left.name.as_deref(), Some("v12"));
    assert_eq!(outer.joins[0].left.kind, InputKind::Derived);
    assert_eq!(inner.joins[0].right.name.as_deref(), Some("t2"));
    // the view's block comes before the block that reads it
    assert_eq!(p.block_order, [1, 0]);
}

#[test]
fn views_reading_views_and_a_view_read_twice() {
    let mut c = catalog();
    c.register_view(view("a1", "SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id"));
    c.register_view(view("a2", "SELECT a1.id FROM a1 JOIN t3 ON a1.id = t3.id"));
    let p = plan(&c, "SELECT x.id FROM a2 x JOIN a1 y ON x.id = y.id");
    let views: Vec<Option<&str>> = p.blocks.iter().map(|b| b.view.as_deref()).collect();
    assert_eq!(views, [None, Some("a2"), Some("a1"), Some("a1")]);
    // each view's blocks before its reader's: a1 (in a2), a2, a1, outer
    let order: Vec<Option<&str>> = p
        .block_order
        .iter()
        .map(|&b| p.blocks[b].view.as_deref())
        .collect();
    assert_eq!(order, [Some("a1"), Some("a2"), Some("a1"), None]);
    assert_eq!(p.joins().count(), 4);
}

#[test]
fn a_cte_shadows_a_view_and_leaves_no_block() {
    let mut c = catalog();
    c.register_view(view("w", "SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id"));
    let p = plan(&c, "WITH w AS (SELECT id FROM t3) SELECT * FROM w");
    assert_eq!(p.blocks.len(), 2);
    assert!(
        p.blocks
            .iter()
            .all(|b| b.view.is_none() && b.joins.is_empty())
    );
}

#[test]
fn view_errors_name_the_view_and_cycles_are_errors() {
    let mut c = catalog();
    c.register_view(view("broken", "SELECT * FROM gone"));
    let e = c.plan("SELECT * FROM broken").unwrap_err();
    match &e {
        SqlError::InView { view, error } => {
            assert_eq!(view, "broken");
            assert!(matches!(**error, SqlError::UnknownTable { .. }), "{e}");
        }
        other => panic!("{other:?}"),
    }
    c.register_view(view("c1", "SELECT id FROM c2"));
    c.register_view(view("c2", "SELECT id FROM c1"));
    let e = c.plan("SELECT * FROM c1").unwrap_err();
    assert!(e.to_string().contains("c1 -> c2 -> c1"), "{e}");
}

#[test]
fn scripts_split_at_semicolons_outside_strings_and_comments() {
    let script = "CREATE VIEW v AS SELECT 'a;b' AS s; -- ; in a comment\n\
                  /* ; */ SELECT * FROM v;;\n  SELECT 2";
    let s = split_statements(script).unwrap();
    assert_eq!(s.len(), 3);
    assert_eq!(s[0].first_line(), "CREATE VIEW v AS SELECT 'a;b' AS s");
    assert_eq!((s[1].number, s[1].line), (2, 2));
    assert_eq!((s[2].number, s[2].line), (3, 3));
    // positions in a statement are the script's
    assert!(s[2].text.starts_with("\n\n  SELECT 2"), "{:?}", s[2].text);
    assert!(split_statements("SELECT 'open").is_err());
}

#[test]
fn ddl_statements_parse() {
    let SqlStatement::CreateView(v) =
        parse_statement("CREATE OR REPLACE TEMPORARY VIEW V (a, \"B\") AS\n  SELECT 1, 2").unwrap()
    else {
        panic!()
    };
    assert_eq!((v.view.name.as_str(), v.or_replace), ("v", true));
    assert_eq!(v.view.columns, ["a", "B"]);
    assert_eq!(v.view.sql.trim(), "SELECT 1, 2");
    assert_eq!(
        v.view.sql.lines().nth(1),
        Some("  SELECT 1, 2"),
        "the body stays on line 2"
    );
    let SqlStatement::DropView(d) = parse_statement("DROP VIEW IF EXISTS a, b").unwrap() else {
        panic!()
    };
    assert_eq!((d.names.len(), d.if_exists), (2, true));
    let SqlStatement::CreateTable(t) = parse_statement(
        "CREATE TEMPORARY TABLE IF NOT EXISTS t (id INT NOT NULL, name STRING, amount DECIMAL(10, 2), \
         d DATE, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'x.csv', \
         'format' = 'csv', 'csv.has-header' = 'false')",
    )
    .unwrap() else {
        panic!()
    };
    assert!(t.if_not_exists);
    let types: Vec<String> = t
        .schema
        .fields()
        .iter()
        .map(|f| f.data_type().to_string())
        .collect();
    assert_eq!(types[0], "Int32");
    assert_eq!(types[2], "Decimal128(10, 2)");
    assert_eq!(types[3], "Date32");
    assert!(!t.schema.field(0).is_nullable() && t.schema.field(1).is_nullable());
    assert_eq!(t.options.len(), 4);
    for bad in [
        "CREATE TABLE db.t (id INT) WITH ('a' = 'b')",
        "CREATE MATERIALIZED VIEW m AS SELECT 1",
        "DROP INDEX i",
        "CREATE TABLE t (id INT) WITH ('k' = 1 + 2)",
    ] {
        assert!(
            matches!(
                parse_statement(bad),
                Err(SqlError::Unsupported(_) | SqlError::Syntax { .. })
            ),
            "{bad}: {:?}",
            parse_statement(bad)
        );
    }
    assert_eq!(
        parse_statement("  -- c\nWITH x AS (SELECT 1) SELECT * FROM x").unwrap(),
        SqlStatement::Query
    );
}
