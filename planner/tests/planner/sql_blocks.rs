//! Query blocks (docs/hints.md H30–H32), hint comments (H01, H04, H06) and the
//! naming of join inputs (H12): SQL in, blocks / joins / hint text out.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use datafusion_expr::{JoinType, LogicalPlan};
use tenon_planner::sql::{Catalog, InputKind, JoinInput, PlannedQuery, SqlError, node_at};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for t in ["t1", "t2", "t3", "t4"] {
        c.register_table(
            t,
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new("k", DataType::Int64, true),
                Field::new("v", DataType::Int64, true),
            ])),
        );
    }
    c
}

fn plan(sql: &str) -> PlannedQuery {
    catalog().plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn names(input: &JoinInput) -> Option<&str> {
    input.name.as_deref()
}

/// Join names per block: `[(left, right)]` for each block.
fn join_names(p: &PlannedQuery) -> Vec<Vec<(Option<&str>, Option<&str>)>> {
    p.blocks
        .iter()
        .map(|b| {
            b.joins
                .iter()
                .map(|j| (names(&j.left), names(&j.right)))
                .collect()
        })
        .collect()
}

fn hint_texts(p: &PlannedQuery) -> Vec<Vec<String>> {
    p.blocks
        .iter()
        .map(|b| b.hints.iter().map(|h| h.text.trim().to_string()).collect())
        .collect()
}

#[test]
fn h01_hint_block_after_select_with_position() {
    let p =
        plan("SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t2) */ *\nFROM t1 JOIN t2 ON t1.id = t2.id");
    assert_eq!(p.blocks.len(), 1);
    let hint = &p.blocks[0].hints[0];
    assert_eq!(hint.text, " BROADCAST(t1) SHUFFLE_HASH(t2) ");
    assert_eq!((hint.line, hint.col), (1, 8));
    assert_eq!(join_names(&p), vec![vec![(Some("t1"), Some("t2"))]]);
    let join = &p.blocks[0].joins[0];
    let node = node_at(&p.plan, &join.path).expect("path leads to a node");
    let LogicalPlan::Join(j) = node else {
        panic!("path does not lead to a join: {node}")
    };
    assert_eq!(j.on.len(), 1);
    assert!(j.filter.is_none());
    assert!(p.unattached_hints.is_empty());
}

#[test]
fn plain_comment_is_not_a_hint_h07() {
    let p = plan("SELECT /* BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert!(p.blocks[0].hints.is_empty());
    assert!(p.unattached_hints.is_empty());
}

#[test]
fn h04_two_hint_blocks_are_a_syntax_error_at_the_second() {
    let err = catalog()
        .plan("SELECT /*+ BROADCAST(t1) */\n  /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id")
        .unwrap_err();
    match err {
        SqlError::Syntax {
            line,
            column,
            message,
        } => {
            assert_eq!((line, column), (2, 3));
            assert!(message.contains("H04"), "{message}");
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn h30_subquery_in_from_is_its_own_block() {
    let p = plan(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN \
           (SELECT /*+ SHUFFLE_HASH(t2) */ t2.id FROM t2 JOIN t3 ON t2.id = t3.id) s \
         ON t1.id = s.id",
    );
    assert_eq!(
        hint_texts(&p),
        vec![vec!["BROADCAST(t1)"], vec!["SHUFFLE_HASH(t2)"]]
    );
    assert_eq!(
        join_names(&p),
        vec![
            vec![(Some("t1"), Some("s"))],
            vec![(Some("t2"), Some("t3"))]
        ]
    );
    assert_eq!(p.blocks[0].joins[0].right.kind, InputKind::Derived);
    let outer: Vec<_> = p.blocks[0].relations.iter().map(names).collect();
    assert_eq!(outer, vec![Some("t1"), Some("s")]);
}

#[test]
fn h30_subquery_in_where_is_its_own_block() {
    let p = plan(
        "SELECT /*+ BROADCAST(t2) */ * FROM t1 \
         WHERE t1.id IN (SELECT /*+ NEST_LOOP(t3) */ t2.id FROM t2 JOIN t3 ON t2.k < t3.k) \
           AND EXISTS (SELECT 1 FROM t4 JOIN t3 ON t4.id = t3.id WHERE t4.v = t1.v)",
    );
    assert_eq!(p.blocks.len(), 3);
    // the uncorrelated IN became a semi join of the outer block, on the
    // subquery under a generated alias; so did the correlated EXISTS
    // (decorrelated, its join under the next alias, on top of the first)
    assert_eq!(
        join_names(&p),
        vec![
            vec![(Some("t1"), Some("__sq_1")), (None, Some("__sq_2"))],
            vec![(Some("t2"), Some("t3"))],
            vec![(Some("t4"), Some("t3"))]
        ]
    );
    assert_eq!(p.blocks[0].joins[1].join_type, JoinType::LeftSemi);
    assert_eq!(p.blocks[0].joins[0].join_type, JoinType::LeftSemi);
    assert_eq!(p.blocks[0].joins[0].right.kind, InputKind::Derived);
    assert_eq!(hint_texts(&p)[1], vec!["NEST_LOOP(t3)"]);
    // the non-equi join of block 1 keeps its condition as residual
    let LogicalPlan::Join(j) = node_at(&p.plan, &p.blocks[1].joins[0].path).unwrap() else {
        panic!("not a join")
    };
    assert!(j.on.is_empty());
    assert!(j.filter.is_some());
    let text = p.plan.display_indent().to_string();
    assert!(!text.contains("EXISTS"), "{text}");
}

#[test]
fn not_in_becomes_a_null_aware_anti_join() {
    let p = plan("SELECT * FROM t1 WHERE t1.v > 0 AND t1.id NOT IN (SELECT t2.k FROM t2)");
    let join = &p.blocks[0].joins[0];
    assert_eq!(join.join_type, JoinType::LeftAnti);
    let LogicalPlan::Join(j) = node_at(&p.plan, &join.path).unwrap() else {
        panic!("not a join")
    };
    assert!(j.null_aware);
    assert_eq!(j.on.len(), 1);
    let text = p.plan.display_indent().to_string();
    assert!(text.contains("Filter: t1.v > Int64(0)"), "{text}");
}

#[test]
fn h30_union_branches_are_separate_blocks() {
    let p = plan(
        "SELECT /*+ BROADCAST(t1) */ t1.id FROM t1 JOIN t2 ON t1.id = t2.id \
         UNION ALL \
         SELECT /*+ BROADCAST(t3) */ t3.id FROM t3 JOIN t2 ON t3.id = t2.id",
    );
    assert_eq!(
        hint_texts(&p),
        vec![vec!["BROADCAST(t1)"], vec!["BROADCAST(t3)"]]
    );
    assert_eq!(
        join_names(&p),
        vec![
            vec![(Some("t1"), Some("t2"))],
            vec![(Some("t3"), Some("t2"))]
        ]
    );
}

#[test]
fn h30_nested_blocks_three_deep() {
    let p = plan(
        "SELECT /*+ A(x) */ * FROM t1 JOIN ( \
            SELECT /*+ B(y) */ t2.id FROM t2 JOIN ( \
                SELECT /*+ C(t3) */ t3.id FROM t3 JOIN t4 ON t3.id = t4.id \
            ) y ON t2.id = y.id \
         ) x ON t1.id = x.id",
    );
    assert_eq!(
        hint_texts(&p),
        vec![vec!["A(x)"], vec!["B(y)"], vec!["C(t3)"]]
    );
    assert_eq!(
        join_names(&p),
        vec![
            vec![(Some("t1"), Some("x"))],
            vec![(Some("t2"), Some("y"))],
            vec![(Some("t3"), Some("t4"))]
        ]
    );
    // every recorded path leads to a join, and all paths differ
    let mut paths: Vec<_> = p.joins().map(|(_, j)| j.path.clone()).collect();
    for path in &paths {
        assert!(matches!(node_at(&p.plan, path), Some(LogicalPlan::Join(_))));
        assert!(p.join_ref(path).is_some());
    }
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), 3);
}

#[test]
fn cte_used_twice_has_its_joins_twice_in_its_block() {
    let p = plan(
        "WITH c AS (SELECT /*+ BROADCAST(t2) */ t2.id FROM t2 JOIN t3 ON t2.id = t3.id) \
         SELECT * FROM c JOIN c AS d ON c.id = d.id",
    );
    // block 0 is the CTE body (visited first), block 1 the outer SELECT
    assert_eq!(hint_texts(&p)[0], vec!["BROADCAST(t2)"]);
    assert_eq!(join_names(&p)[0].len(), 2);
    assert_eq!(join_names(&p)[1], vec![(Some("c"), Some("d"))]);
}

#[test]
fn h12_join_subtree_has_no_name() {
    let p = plan("SELECT * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t2.k = t3.k");
    let joins = &p.blocks[0].joins;
    assert_eq!(joins.len(), 2);
    // post-order: the inner join first
    assert_eq!(
        (names(&joins[0].left), names(&joins[0].right)),
        (Some("t1"), Some("t2"))
    );
    assert_eq!(joins[1].left.kind, InputKind::Join);
    assert_eq!(names(&joins[1].left), None);
    assert_eq!(names(&joins[1].right), Some("t3"));
    let relations: Vec<_> = p.blocks[0].relations.iter().map(names).collect();
    assert_eq!(relations, vec![Some("t1"), Some("t2"), Some("t3")]);
}

#[test]
fn h12_parenthesized_join_with_alias_is_named() {
    let p = plan("SELECT * FROM (t1 JOIN t2 ON t1.id = t2.id) AS p JOIN t3 ON p.k = t3.k");
    let joins = &p.blocks[0].joins;
    assert_eq!(joins.len(), 2, "both joins belong to the one SELECT");
    assert_eq!(names(&joins[1].left), Some("p"));
}

#[test]
fn h32_aliases_name_the_inputs_and_keep_the_table() {
    let p = plan("SELECT * FROM t1 AS a JOIN t2 b ON a.id = b.id");
    let j = &p.blocks[0].joins[0];
    assert_eq!(
        (names(&j.left), j.left.table.as_deref()),
        (Some("a"), Some("t1"))
    );
    assert_eq!(
        (names(&j.right), j.right.table.as_deref()),
        (Some("b"), Some("t2"))
    );
    assert_eq!(j.left.kind, InputKind::Alias);
}

#[test]
fn h06_table_hints_attach_to_their_scan() {
    let p = plan(
        "SELECT * FROM t1 /*+ OPTIONS('scan.batch-size'='10') */ AS x \
         JOIN t1 /*+ OPTIONS('scan.batch-size'='20') */ y ON x.id = y.id \
         JOIN t2 ON y.id = t2.id",
    );
    let block = &p.blocks[0];
    assert_eq!(block.table_hints.len(), 2);
    assert_eq!(block.table_hints[0].alias.as_deref(), Some("x"));
    let scans: Vec<_> = block
        .scans
        .iter()
        .map(|s| {
            (
                s.table.as_str(),
                s.alias.as_deref(),
                s.hints
                    .iter()
                    .map(|h| h.text.trim().to_string())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        scans,
        vec![
            (
                "t1",
                Some("x"),
                vec!["OPTIONS('scan.batch-size'='10')".to_string()]
            ),
            (
                "t1",
                Some("y"),
                vec!["OPTIONS('scan.batch-size'='20')".to_string()]
            ),
            ("t2", None, vec![]),
        ]
    );
    for scan in &block.scans {
        assert!(matches!(
            node_at(&p.plan, &scan.path),
            Some(LogicalPlan::TableScan(_))
        ));
    }
    assert!(p.unattached_hints.is_empty());
}

#[test]
fn table_hint_in_a_subquery_belongs_to_the_subquery_block() {
    let p =
        plan("SELECT * FROM t1 JOIN (SELECT * FROM t2 /*+ OPTIONS('a'='b') */) s ON t1.id = s.id");
    assert!(p.blocks[0].table_hints.is_empty());
    assert_eq!(p.blocks[1].scans[0].hints.len(), 1);
}

#[test]
fn misplaced_hint_is_reported_unattached() {
    let p = plan("SELECT * FROM t1 WHERE /*+ BROADCAST(t1) */ t1.id = 1");
    assert_eq!(p.unattached_hints.len(), 1);
    assert_eq!(p.unattached_hints[0].text.trim(), "BROADCAST(t1)");
    assert_eq!(p.unattached_hints[0].col, 24);
}

#[test]
fn quoted_identifiers_keep_case_unquoted_fold() {
    let mut c = catalog();
    c.register_table(
        "Big",
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)])),
    );
    let p = c
        .plan("SELECT * FROM \"Big\" /*+ OPTIONS('a'='b') */ JOIN T1 ON \"Big\".id = t1.id")
        .unwrap();
    let j = &p.blocks[0].joins[0];
    assert_eq!((names(&j.left), names(&j.right)), (Some("Big"), Some("t1")));
    assert_eq!(p.blocks[0].table_hints[0].table, "Big");
    assert_eq!(p.blocks[0].scans[0].hints.len(), 1);
}

#[test]
fn markers_leave_no_trace_in_the_plan() {
    let p = plan("SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id");
    let text = p.plan.display_indent().to_string();
    assert!(!text.contains("__tenon"), "{text}");
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("Filter")),
        "{text}"
    );
    let p = plan("SELECT t1.id FROM t1 WHERE t1.v > 1");
    let text = p.plan.display_indent().to_string();
    assert!(!text.contains("__tenon"), "{text}");
    assert!(text.contains("Filter: t1.v > Int64(1)"), "{text}");
}
