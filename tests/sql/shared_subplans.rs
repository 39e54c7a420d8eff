//! Shared subplans (`planner/src/exec/shared.rs`): an aggregate the query
//! computes at several places (a CTE read twice) is computed once. The
//! rows are the same with `shared_subplans` on and off, and against a
//! naive reference, over NULL keys, duplicates, an empty table, nested
//! and repeated CTEs, joins and runtime filters around the shared rows,
//! LIMIT and UNION ALL, at batch sizes 1, 2, 7 and 8192 and 1 and 4
//! threads; EXPLAIN shows where the rows are computed and read, so a
//! change that silently stops sharing fails.

use std::collections::BTreeMap;

use tenon::{Config, Session};

use crate::common::*;

/// A session holding `tables`, with shared subplans `on` or off.
fn session_shared(tables: &[Table], threads: usize, batch_size: usize, on: bool) -> Session {
    let config = Config {
        threads,
        batch_size,
        shared_subplans: on,
        ..Config::default()
    };
    session_configured(tables, config)
}

fn tables() -> Vec<Table> {
    vec![
        generated("a", 500, 40, 31),
        generated("b", 120, 60, 32),
        generated("a", 0, 1, 0).renamed("e"),
    ]
}

/// Queries that read one aggregate at several places.
const QUERIES: &[&str] = &[
    // TPC-H Q15's shape: the CTE joined, and its maximum.
    "WITH g AS (SELECT k, sum(v) AS s FROM a WHERE v < 900 GROUP BY k) \
     SELECT b.k, b.v, g.s FROM b JOIN g ON b.k = g.k WHERE g.s = (SELECT max(s) FROM g)",
    // A self-join of the CTE (NULL keys drop out of the join).
    "WITH g AS (SELECT k, count(*) AS n FROM a GROUP BY k) \
     SELECT x.k, x.n, y.n FROM g x JOIN g y ON x.k = y.k + 1",
    // Outer joins around it.
    "WITH g AS (SELECT k, max(v) AS m FROM a GROUP BY k) \
     SELECT x.k, x.m, y.m FROM g x LEFT JOIN g y ON x.k = y.k - 2 WHERE x.m > 100",
    "WITH g AS (SELECT k, min(v) AS m FROM a GROUP BY k) \
     SELECT x.k, y.k FROM g x FULL OUTER JOIN g y ON x.k = y.m",
    // Three places, one of them under UNION ALL.
    "WITH g AS (SELECT t, count(v) AS n FROM a GROUP BY t) \
     SELECT t, n FROM g UNION ALL SELECT t, n + 1 FROM g UNION ALL \
     SELECT t, n FROM g WHERE n > (SELECT avg(n) FROM g)",
    // Inside IN and EXISTS subqueries.
    "WITH g AS (SELECT k, sum(v) AS s FROM a GROUP BY k) \
     SELECT b.k, b.v FROM b WHERE b.k IN (SELECT k FROM g WHERE s > 2000) \
     AND EXISTS (SELECT 1 FROM g WHERE g.k = b.k AND g.s < 9000)",
    // A CTE reading a CTE, both read twice.
    "WITH g AS (SELECT k, sum(v) AS s FROM a GROUP BY k), \
     h AS (SELECT s % 7 AS r, count(*) AS n FROM g GROUP BY s % 7) \
     SELECT h1.r, h1.n, h2.n, (SELECT count(*) FROM g) FROM h h1 JOIN h h2 ON h1.r = h2.r",
    // The global aggregate (one row, also over no rows).
    "WITH g AS (SELECT count(*) AS n, sum(v) AS s FROM e) \
     SELECT x.n, x.s, y.n FROM g x CROSS JOIN g y",
    "WITH g AS (SELECT k, count(*) AS n FROM e GROUP BY k) \
     SELECT b.k FROM b LEFT JOIN g ON b.k = g.k WHERE g.n IS NULL AND b.k < 5 \
     UNION ALL SELECT k FROM g",
    // LIMIT above one place.
    "WITH g AS (SELECT k, sum(v) AS s FROM a GROUP BY k) \
     SELECT k, s FROM (SELECT k, s FROM g ORDER BY s DESC, k LIMIT 3) x \
     UNION ALL SELECT k, s FROM g WHERE k < 3",
    // A CTE over a join: not shared (each join is a decision of its own).
    "WITH j AS (SELECT a.k, count(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY a.k) \
     SELECT x.k, x.n FROM j x WHERE x.n = (SELECT max(n) FROM j)",
];

#[test]
fn results_are_the_same_with_and_without_shared_subplans() {
    let tables = tables();
    let mut problems = Vec::new();
    for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
        let on = session_shared(&tables, threads, batch, true);
        let off = session_shared(&tables, threads, batch, false);
        for (i, q) in QUERIES.iter().enumerate() {
            // Every query but the last shares (else on and off agree
            // trivially).
            let shares = on.explain(q).unwrap().to_text().contains("Shared");
            if shares != (i + 1 < QUERIES.len()) {
                problems.push(format!("{q}: shares={shares}"));
            }
            let (want, got) = (run(&off, q), run(&on, q));
            if want != got {
                problems.push(format!(
                    "{q} threads={threads} batch={batch}: {want:?} unshared, {got:?} shared"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Q15's shape against a reference computed row by row: the keys of `b`
/// whose group of `a` has the largest sum.
#[test]
fn q15s_shape_matches_the_reference() {
    let tables = tables();
    let (a, b) = (&tables[0], &tables[1]);
    let mut sums: BTreeMap<Option<i64>, Option<i64>> = BTreeMap::new();
    for r in &a.rows {
        if r[1].is_some_and(|v| v < 900) {
            let s = sums.entry(r[0]).or_insert(None);
            *s = Some(s.unwrap_or(0) + r[1].unwrap_or(0));
        }
    }
    let max = sums.values().flatten().max().copied();
    let mut expected: Vec<String> = b
        .rows
        .iter()
        .filter(|r| r[0].is_some() && sums.get(&r[0]).copied().flatten() == max)
        .map(|r| {
            let v = r[1].map_or("NULL".to_string(), |v| v.to_string());
            format!("{}|{v}|{}", r[0].unwrap(), max.unwrap())
        })
        .collect();
    expected.sort();
    assert!(
        !expected.is_empty(),
        "the reference finds no row: a weak test"
    );
    for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
        let s = session_shared(&tables, threads, batch, true);
        assert_eq!(
            run(&s, QUERIES[0]),
            expected,
            "threads={threads} batch={batch}"
        );
    }
}

#[test]
fn explain_shows_where_shared_rows_are_computed_and_read() {
    let tables = tables();
    let on = session_shared(&tables, 2, 8192, true);
    let text = on.explain(QUERIES[0]).unwrap().to_text();
    assert_eq!(
        text.matches("Shared: #0 (computed once").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("Shared: #0 (the rows of the first Shared #0, read again)")
            .count(),
        1,
        "{text}"
    );
    // The aggregate and its scan appear once.
    assert_eq!(text.matches("Scan: a ").count(), 1, "{text}");
    // The default choice does not count on a runtime filter reaching the
    // shared aggregate (docs/hints.md H15 rule 3).
    assert!(!text.contains("decorrelated subquery"), "{text}");

    // Three places, one computation.
    let text = on.explain(QUERIES[4]).unwrap().to_text();
    assert_eq!(text.matches("read again").count(), 3, "{text}");
    assert_eq!(text.matches("Scan: a ").count(), 1, "{text}");

    // Nested: `g` inside `h`, both shared.
    let text = on.explain(QUERIES[6]).unwrap().to_text();
    assert!(text.contains("Shared: #1"), "{text}");
    assert_eq!(text.matches("Scan: a ").count(), 1, "{text}");

    // Over a join: two copies, no sharing.
    let text = on.explain(QUERIES[10]).unwrap().to_text();
    assert!(!text.contains("Shared"), "{text}");

    // Off: the copies are computed apart.
    let off = session_shared(&tables, 2, 8192, false);
    let text = off.explain(QUERIES[0]).unwrap().to_text();
    assert!(!text.contains("Shared"), "{text}");
    assert_eq!(text.matches("Scan: a ").count(), 2, "{text}");
}

/// EXPLAIN ANALYZE: the shared aggregate ran once (its scan read the
/// table's rows once), and each place passed its rows on.
#[test]
fn analyze_counts_one_computation() {
    let tables = tables();
    let on = session_shared(&tables, 2, 7, true);
    let (explain, _) = on.explain_analyze(QUERIES[1]).unwrap();
    let text = explain.to_text();
    let scans: Vec<&str> = text.lines().filter(|l| l.contains("Scan: a ")).collect();
    assert_eq!(scans.len(), 1, "{text}");
    assert!(scans[0].contains("rows=500 "), "{text}");
    let places: Vec<&str> = text.lines().filter(|l| l.contains("Shared: #0")).collect();
    assert_eq!(places.len(), 2, "{text}");
    let groups = run(&on, "SELECT count(DISTINCT k) + 1 FROM a")[0].clone();
    for p in places {
        assert!(p.contains(&format!("rows={groups} ")), "{groups}: {p}");
    }
}
