//! Runtime join filters (`planner/src/exec/runtime_filter.rs`): results
//! are the same with them on and off, and against the naive reference
//! join, over every join type, NULL keys, duplicates, an empty build side,
//! string and composite keys, chains of joins, aggregates, UNION ALL and
//! subqueries, under every build side (hints), batch sizes 1, 2, 7 and
//! 8192 and 1 and 4 threads; and EXPLAIN / EXPLAIN ANALYZE show that they
//! are applied and drop rows (TPC-H Q3's shape, and the decorrelated
//! scalar subquery's `LEFT JOIN (outer, Aggregate(GROUP BY k))` built on
//! its outer side), so a change that silently stops applying them fails.

use tenon::{Config, Session};

use crate::common::*;

/// A session holding `tables`, with runtime filters `on` or off.
fn session_rf(tables: &[Table], threads: usize, batch_size: usize, on: bool) -> Session {
    let config = Config {
        threads,
        batch_size,
        runtime_filters: on,
        ..Config::default()
    };
    session_configured(tables, config)
}

/// Queries over `a`, `b`, `c` (generated: NULL keys, a hot key,
/// duplicates) and `e` (no rows); `{h}` is where a hint goes.
const QUERIES: &[&str] = &[
    "SELECT {h} a.k, a.v, b.v FROM a JOIN b ON a.k = b.k WHERE b.v < 300",
    "SELECT {h} a.k, a.v, b.v FROM a LEFT JOIN b ON a.k = b.k WHERE a.v < 700",
    "SELECT {h} a.k, b.k, b.v FROM a RIGHT JOIN b ON a.k = b.k AND a.v < 400",
    "SELECT {h} a.k, b.k FROM a FULL OUTER JOIN b ON a.k = b.k WHERE a.v IS NULL OR b.v < 500",
    "SELECT {h} a.k, a.v FROM a LEFT SEMI JOIN b ON a.k = b.k AND b.v < 200",
    "SELECT {h} a.k, a.v FROM a LEFT ANTI JOIN b ON a.k = b.k AND b.v < 200",
    "SELECT a.k, a.v FROM a WHERE a.k IN (SELECT k FROM b WHERE v < 100)",
    "SELECT a.k, a.v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v < 300)",
    "SELECT a.k FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE v < 100)",
    "SELECT a.k FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE v < 100 AND k IS NOT NULL)",
    "SELECT {h} a.t, b.v FROM a JOIN b ON a.t = b.t WHERE b.v < 30",
    "SELECT {h} a.k, b.v FROM a JOIN b ON a.k = b.k AND a.t = b.t WHERE b.v < 400",
    "SELECT {h} a.k, b.v, c.v FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k WHERE c.v < 100",
    "SELECT {h} a.v, c.v FROM a JOIN b ON a.k = b.k LEFT JOIN c ON b.v = c.v WHERE c.k < 50",
    "SELECT {h} x.k, x.n, b.v FROM (SELECT k, count(*) AS n FROM a GROUP BY k) x \
     JOIN b ON x.k = b.k WHERE b.v < 100",
    "SELECT {h} x.k, x.m, b.v FROM b LEFT JOIN (SELECT k, max(v) AS m FROM a GROUP BY k) x \
     ON x.k = b.k WHERE b.v < 100",
    "SELECT a.k, a.v FROM a WHERE a.v < (SELECT avg(b.v) FROM b WHERE b.k = a.k)",
    "SELECT {h} u.k, b.v FROM (SELECT k FROM a UNION ALL SELECT k FROM c) u \
     JOIN b ON u.k = b.k WHERE b.v < 200",
    "SELECT {h} a.k, a.v FROM a JOIN e ON a.k = e.k",
    "SELECT {h} a.k, e.v FROM a LEFT JOIN e ON a.k = e.k WHERE a.v < 100",
    "SELECT {h} count(*) FROM a JOIN b ON a.k + 1 = b.k WHERE b.v < 100",
    "SELECT {h} a.k, b.v FROM a JOIN (SELECT k, v FROM b ORDER BY v, k LIMIT 20) b ON a.k = b.k",
];

/// The hints each query runs under (`{h}`): the default, then each
/// strategy building each side (lenient: an invalid one is ignored).
const HINTS: &[&str] = &[
    "",
    "/*+ BROADCAST(a) */",
    "/*+ BROADCAST(b) */",
    "/*+ SHUFFLE_HASH(a) */",
    "/*+ SHUFFLE_HASH(b) */",
    "/*+ SHUFFLE_HASH(c) */",
    "/*+ SHUFFLE_MERGE(a) */",
];

/// Every query under every hint gives the same rows with runtime filters
/// on and off, in every configuration.
fn same_with_and_without(tables: &[Table], configs: &[(usize, usize)]) {
    let mut problems = Vec::new();
    for &(threads, batch) in configs {
        let on = session_rf(tables, threads, batch, true);
        let off = session_rf(tables, threads, batch, false);
        for q in QUERIES {
            let hints: &[&str] = if q.contains("{h}") { HINTS } else { &[""] };
            // A hint naming a table the query does not read is an error.
            let names = |h: &str| match (h.find('('), h.find(')')) {
                (Some(a), Some(b)) => {
                    let t = &h[a + 1..b];
                    q.contains(&format!("JOIN {t} ")) || q.contains(&format!("FROM {t} "))
                }
                _ => true,
            };
            for h in hints.iter().filter(|h| names(h)) {
                let sql = q.replace("{h}", h);
                // A hint that is an error (a table of another query block)
                // is the same error either way.
                let outcome = |s: &Session| match s.collect(&sql) {
                    Ok(b) => Ok(row_strings(&b)),
                    Err(e) => Err(e.to_string()),
                };
                let (want, got) = match (outcome(&off), outcome(&on)) {
                    (Err(a), Err(b)) if a == b => continue,
                    (Ok(a), Ok(b)) => (a, b),
                    (a, b) => {
                        problems.push(format!("{sql}: {a:?} without, {b:?} with"));
                        continue;
                    }
                };
                if want != got {
                    problems.push(format!(
                        "{sql} threads={threads} batch={batch}: {} rows without runtime \
                         filters, {} with",
                        want.len(),
                        got.len()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Small tables: `a` large against `b` and `c` (a filter is made only
/// from a build side of at most 1/8 of the rows it filters), or `a` small.
fn small_tables(a_large: bool) -> Vec<Table> {
    let (a, bc) = if a_large { (400, 45) } else { (40, 400) };
    vec![
        generated("a", a, 25, 11),
        generated("b", bc, 40, 12),
        generated("c", bc - 3, 30, 13),
        generated("a", 0, 1, 0).renamed("e"),
    ]
}

#[test]
fn results_are_the_same_with_and_without_runtime_filters() {
    for a_large in [true, false] {
        same_with_and_without(&small_tables(a_large), &[(1, 1), (4, 2), (1, 7), (4, 8192)]);
    }
}

/// Tables large enough that the filters' pass-rate sampling decides (it
/// measures the first few thousand rows), with selective and unselective
/// build sides.
#[test]
fn results_are_the_same_on_larger_tables() {
    let tables = vec![
        generated("a", 12_000, 3_000, 21),
        generated("b", 900, 3_000, 22),
        generated("c", 3_000, 200, 23),
        generated("a", 0, 1, 0).renamed("e"),
    ];
    same_with_and_without(&tables, &[(4, 7), (1, 8192), (4, 8192)]);
}

/// The same joins against the naive reference (with runtime filters on).
#[test]
fn runtime_filtered_joins_match_the_reference() {
    let tables = small_tables(true);
    let (a, b) = (tables[0].rel(), tables[1].rel());
    let (ak, bk, bv) = (a.col("a.k"), b.col("b.k"), b.col("b.v"));
    let on = |x: &Row, y: &Row| and(eq(x[ak], y[bk]), lt(y[bv], Some(300)));
    for (kw, rj) in [
        ("JOIN", RefJoin::Inner),
        ("LEFT JOIN", RefJoin::Left),
        ("RIGHT JOIN", RefJoin::Right),
        ("FULL OUTER JOIN", RefJoin::Full),
        ("LEFT SEMI JOIN", RefJoin::Semi),
        ("LEFT ANTI JOIN", RefJoin::Anti),
    ] {
        let semi = matches!(rj, RefJoin::Semi | RefJoin::Anti);
        let (list, cols): (&str, &[&str]) = if semi {
            ("a.s", &["a.s"])
        } else {
            ("a.s, b.s", &["a.s", "b.s"])
        };
        let expected = ref_join(&a, &b, rj, on).select(cols).strings();
        for h in HINTS.iter().filter(|h| !h.contains("(c)")) {
            let sql = format!("SELECT {h} {list} FROM a {kw} b ON a.k = b.k AND b.v < 300");
            for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
                let got = run(&session_rf(&tables, threads, batch, true), &sql);
                assert_eq!(got, expected, "{sql} threads={threads} batch={batch}");
            }
        }
    }
}

/// TPC-H at scale 0.01 in a session with runtime filters `on` or off.
fn tpch(on: bool) -> Session {
    let config = Config {
        threads: 2,
        runtime_filters: on,
        ..Config::default()
    };
    let mut s = Session::new(config).expect("a session");
    s.register_tpch(0.01).expect("TPC-H tables");
    s
}

/// The `rows=` figure of the first EXPLAIN ANALYZE line containing `what`.
fn rows_of(tree: &str, what: &str) -> u64 {
    let line = tree
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what} in\n{tree}"));
    let rows = line.split("rows=").nth(1).expect("rows=");
    rows.split(' ').next().unwrap().parse().unwrap()
}

/// The `runtime_filtered=` figure of the first line containing `what`.
fn dropped_of(tree: &str, what: &str) -> u64 {
    let line = tree.lines().find(|l| l.contains(what)).unwrap();
    let n = line
        .split("runtime_filtered=")
        .nth(1)
        .unwrap_or_else(|| panic!("no runtime_filtered= in {line}"));
    n.split(' ').next().unwrap().trim().parse().unwrap()
}

const Q3: &str = "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, \
     o_orderdate, o_shippriority FROM customer, orders, lineitem \
     WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey \
     AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15' \
     GROUP BY l_orderkey, o_orderdate, o_shippriority \
     ORDER BY revenue DESC, o_orderdate LIMIT 10";

#[test]
fn explain_shows_q3s_runtime_filters_and_analyze_counts_the_rows_they_drop() {
    let (on, off) = (tpch(true), tpch(false));
    let text = on.explain(Q3).unwrap().to_text();
    assert!(
        text.contains("runtime_filters=[rf1 on l_orderkey at Scan lineitem]"),
        "{text}"
    );
    let scan = text.lines().find(|l| l.contains("Scan: lineitem")).unwrap();
    assert!(
        scan.contains("[runtime filter from join on [orders.o_orderkey = lineitem.l_orderkey]: rf1 on l_orderkey]"),
        "{scan}"
    );
    let orders = text.lines().find(|l| l.contains("Scan: orders")).unwrap();
    assert!(
        orders.contains("runtime filter from join on [customer.c_custkey"),
        "{orders}"
    );
    assert!(
        !off.explain(Q3)
            .unwrap()
            .to_text()
            .contains("runtime filter")
    );

    // JSON: the same filters.
    let x = on.explain(Q3).unwrap();
    let report = x.report();
    assert_eq!(
        report.runtime_filters.len(),
        2,
        "{:?}",
        report.runtime_filters
    );
    let rf1 = &report.runtime_filters[0];
    assert_eq!(rf1.name, "rf1");
    assert_eq!(rf1.column, "l_orderkey");
    assert_eq!(rf1.applied_at, ["Scan lineitem"]);
    assert!(
        x.to_json()
            .contains(r#""runtime_filters": [{"name": "rf1""#),
        "{}",
        x.to_json()
    );
    assert!(
        off.explain(Q3)
            .unwrap()
            .to_json()
            .contains(r#""runtime_filters": []"#)
    );

    // ANALYZE: the filter drops most lineitem rows before the date filter
    // runs, so that filter sees fewer rows; the results are the same.
    let (x_on, out_on) = on.explain_analyze(Q3).unwrap();
    let (x_off, out_off) = off.explain_analyze(Q3).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let (t_on, t_off) = (x_on.tree().to_string(), x_off.tree().to_string());
    let dropped = dropped_of(&t_on, "Scan: lineitem");
    let scanned = rows_of(&t_on, "Scan: lineitem");
    assert!(dropped > scanned / 2, "{dropped} of {scanned}\n{t_on}");
    let filter_on = rows_of(&t_on, "Filter: lineitem.l_shipdate");
    let filter_off = rows_of(&t_off, "Filter: lineitem.l_shipdate");
    assert!(
        filter_on < filter_off / 2,
        "{filter_on} vs {filter_off}\n{t_on}"
    );
    assert!(t_on.contains("runtime_filters: rf1 "), "{t_on}");
}

/// The decorrelated scalar subquery's shape, built on its outer side: the
/// filter flows through the aggregate into its input's scan, which then
/// aggregates only the keys the outer side looks up.
#[test]
fn a_runtime_filter_flows_into_an_aggregate_grouped_by_the_key() {
    let sql = "SELECT /*+ SHUFFLE_HASH(p) */ p.p_partkey, s.a \
        FROM (SELECT p_partkey FROM part WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX') p \
        LEFT JOIN (SELECT l_partkey, avg(l_quantity) AS a FROM lineitem GROUP BY l_partkey) s \
        ON p.p_partkey = s.l_partkey";
    let (on, off) = (tpch(true), tpch(false));
    let text = on.explain(sql).unwrap().to_text();
    let scan = text.lines().find(|l| l.contains("Scan: lineitem")).unwrap();
    assert!(scan.contains("runtime filter from join on ["), "{text}");
    let (x_on, out_on) = on.explain_analyze(sql).unwrap();
    let (x_off, out_off) = off.explain_analyze(sql).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let (t_on, t_off) = (x_on.tree().to_string(), x_off.tree().to_string());
    let groups_on = rows_of(&t_on, "Aggregate: group=[lineitem.l_partkey]");
    let groups_off = rows_of(&t_off, "Aggregate: group=[lineitem.l_partkey]");
    assert!(
        groups_on * 10 < groups_off,
        "{groups_on} vs {groups_off}\n{t_on}"
    );
}

/// The same shape written as a correlated subquery (TPC-H Q17), without a
/// hint: the default builds the outer side of the decorrelated join
/// (docs/hints.md H15), so its keys reach the subquery's scan and the
/// aggregate computes only the groups the outer rows ask for. With runtime
/// filters off the rule does not apply and every group is computed.
#[test]
fn a_correlated_subquery_aggregates_only_the_outer_keys_by_default() {
    let sql = "SELECT sum(l_extendedprice) / 7.0 AS avg_yearly FROM lineitem, part \
        WHERE p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container = 'MED BOX' \
        AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)";
    let (on, off) = (tpch(true), tpch(false));
    let text = on.explain(sql).unwrap().to_text();
    assert!(text.contains("grouped by the join keys"), "{text}");
    let off_text = off.explain(sql).unwrap().to_text();
    assert!(!off_text.contains("grouped by the join keys"), "{off_text}");
    let (x_on, out_on) = on.explain_analyze(sql).unwrap();
    let (x_off, out_off) = off.explain_analyze(sql).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let (t_on, t_off) = (x_on.tree().to_string(), x_off.tree().to_string());
    let groups_on = rows_of(&t_on, "Aggregate: group=[__sq_key0]");
    let groups_off = rows_of(&t_off, "Aggregate: group=[__sq_key0]");
    assert!(
        groups_on * 10 < groups_off,
        "{groups_on} vs {groups_off}\n{t_on}"
    );
}

/// An empty build side: nothing can match, and the probe side is not run.
/// (Rows, not a count: a count over the join is fused into it
/// (`JoinAggregate`), which does not skip its probe side yet.)
#[test]
fn an_empty_build_side_skips_the_probe_side() {
    let sql = "SELECT /*+ BROADCAST(o) */ l_orderkey FROM lineitem JOIN \
        (SELECT o_orderkey FROM orders WHERE o_orderkey < 0) o ON l_orderkey = o.o_orderkey";
    let (x, out) = tpch(true).explain_analyze(sql).unwrap();
    assert!(row_strings(&out.batches).is_empty());
    assert_eq!(rows_of(x.tree(), "Scan: lineitem"), 0, "{}", x.tree());
    let (x, _) = tpch(false).explain_analyze(sql).unwrap();
    assert!(rows_of(x.tree(), "Scan: lineitem") > 0);
}

/// A SHUFFLE_HASH join whose probe input is a bare scan: with a build side
/// large enough to be partitioned (over 131,072 rows), the kernel would
/// collect and scatter every probe row, so the join's filter is tested on
/// that scan and drops the rows without a match first; with a small build
/// side the probe tests each row as it comes, and the filter is made only
/// when its test is cheaper than the probe (here its exact key bits over
/// a range of 20M are megabytes: not made).
/// The rows are the same either way, and with runtime filters off.
#[test]
fn a_partitioned_shuffle_hash_join_filters_its_probe_scan() {
    let tables = vec![
        generated("a", 1_200_000, 20_000_000, 31),
        generated("b", 140_000, 20_000_000, 32),
    ];
    let (on, off) = (
        session_rf(&tables, 2, 8192, true),
        session_rf(&tables, 2, 8192, false),
    );
    let large = "SELECT /*+ SHUFFLE_HASH(b) */ a.k, a.v FROM a LEFT SEMI JOIN b ON a.k = b.k";
    let text = on.explain(large).unwrap().to_text();
    assert!(
        text.contains("runtime_filters=[rf1 on k at Scan a]"),
        "{text}"
    );
    let (x_on, out_on) = on.explain_analyze(large).unwrap();
    let (_, out_off) = off.explain_analyze(large).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let tree = x_on.tree().to_string();
    // About 94% of a's rows have no match (5% hold the hot key 7).
    assert!(dropped_of(&tree, "Scan: a") > 1_000_000, "{tree}");
    let small = "SELECT /*+ SHUFFLE_HASH(b) */ a.k, a.v FROM a LEFT SEMI JOIN \
        (SELECT k FROM b WHERE v < 10) b ON a.k = b.k";
    let (x_on, out_on) = on.explain_analyze(small).unwrap();
    let (_, out_off) = off.explain_analyze(small).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let tree = x_on.tree().to_string();
    assert!(
        tree.contains("rf1 not made (a test that costs about what the join's probe does)"),
        "{tree}"
    );
}

/// A build side too small to be partitioned, whose exact key bits are
/// beyond the L2 cache (100,000 keys over a range of 4M: 500 KiB) but
/// smaller than the join's own table of those keys (4 MiB): the bit test
/// is the cheaper one, so the join's filter is made on its probe scan
/// (TPC-H Q21's semi join of lineitem; not made before 2026-12-04). The
/// rows are the same as with runtime filters off.
#[test]
fn exact_bits_smaller_than_the_join_table_filter_the_probe_scan() {
    let tables = vec![
        generated("a", 600_000, 4_000_000, 41),
        generated("b", 100_000, 4_000_000, 42),
    ];
    let (on, off) = (
        session_rf(&tables, 2, 8192, true),
        session_rf(&tables, 2, 8192, false),
    );
    let sql = "SELECT /*+ SHUFFLE_HASH(b) */ a.k, a.v FROM a LEFT SEMI JOIN b ON a.k = b.k";
    let (x_on, out_on) = on.explain_analyze(sql).unwrap();
    let (_, out_off) = off.explain_analyze(sql).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let tree = x_on.tree().to_string();
    // About 90% of a's rows have no match.
    assert!(dropped_of(&tree, "Scan: a") > 400_000, "{tree}");
}

/// A BROADCAST join whose probe input is a bare scan of a held table: a
/// build side whose keys fill little of their range (one nation's
/// suppliers) makes a filter of exact key bits that the scan tests before
/// the join's probe (TPC-H Q11's shape), and the scan widens the columns
/// it does not test only for the rows that pass; a build side that fills
/// its range does not make one. Same rows with runtime filters off.
#[test]
fn a_sparse_build_side_filters_its_joins_own_probe_scan() {
    let sparse = "SELECT /*+ BROADCAST(s) */ ps_partkey, sum(ps_availqty * ps_supplycost) AS v \
        FROM partsupp JOIN (SELECT s_suppkey FROM supplier WHERE s_nationkey = 7) s \
        ON ps_suppkey = s.s_suppkey GROUP BY ps_partkey ORDER BY ps_partkey";
    let (x_on, out_on) = tpch(true).explain_analyze(sparse).unwrap();
    let (_, out_off) = tpch(false).explain_analyze(sparse).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    assert!(!out_on.batches.is_empty());
    let tree = x_on.tree().to_string();
    assert!(
        tree.contains("runtime_filters=[rf1 on ps_suppkey at Scan partsupp]"),
        "{tree}"
    );
    // 4 of 100 suppliers: about 96% of partsupp's 8,000 rows are dropped.
    assert!(dropped_of(&tree, "Scan: partsupp") > 7_000, "{tree}");
    let dense = "SELECT /*+ BROADCAST(s) */ ps_partkey, sum(ps_availqty) AS v \
        FROM partsupp JOIN supplier s ON ps_suppkey = s.s_suppkey \
        GROUP BY ps_partkey ORDER BY ps_partkey";
    let (x_on, out_on) = tpch(true).explain_analyze(dense).unwrap();
    let (_, out_off) = tpch(false).explain_analyze(dense).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let tree = x_on.tree().to_string();
    assert!(
        tree.contains("rf1 not made (keys that fill most of their range)"),
        "{tree}"
    );
}

/// The `tested N` figure of the runtime filter a join on `on` reports.
fn tested_of(tree: &str, on: &str) -> u64 {
    let line = tree
        .lines()
        .find(|l| l.contains("Join: ") && l.contains(on))
        .unwrap_or_else(|| panic!("no join on {on} in\n{tree}"));
    let n = line
        .split(" tested ")
        .nth(1)
        .unwrap_or_else(|| panic!("no tested figure in {line}"));
    n.split(' ').next().unwrap().parse().unwrap()
}

const Q8: &str = "SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) \
     / sum(volume) AS mkt_share FROM (SELECT extract(year FROM o_orderdate) AS o_year, \
     l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation \
     FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region \
     WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey \
     AND o_custkey = c_custkey AND c_nationkey = n1.n_nationkey \
     AND n1.n_regionkey = r_regionkey AND r_name = 'AMERICA' \
     AND s_nationkey = n2.n_nationkey \
     AND o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31' \
     AND p_type = 'ECONOMY ANODIZED STEEL') AS all_nations \
     GROUP BY o_year ORDER BY o_year";

/// Q8's lineitem scan tests the orders filter of a join above; the part
/// join right above the scan (a broadcast join, which would probe each row
/// as it comes) then tests its own filter there too, and the more
/// selective part filter goes first, so the orders filter is tested on
/// the few rows it lets through (fails on 4f5ee6f: every row tested).
#[test]
fn a_scan_tests_its_most_selective_runtime_filter_first() {
    let (on, off) = (tpch(true), tpch(false));
    let text = on.explain(Q8).unwrap().to_text();
    let part_join = text
        .lines()
        .find(|l| l.contains("Join: ") && l.contains("on=[part.p_partkey = lineitem.l_partkey]"))
        .unwrap_or_else(|| panic!("no part join in\n{text}"));
    assert!(
        part_join.contains("on l_partkey at Scan lineitem]"),
        "{part_join}"
    );
    let (x_on, out_on) = on.explain_analyze(Q8).unwrap();
    let (_, out_off) = off.explain_analyze(Q8).unwrap();
    assert_eq!(row_strings(&out_on.batches), row_strings(&out_off.batches));
    let tree = x_on.tree().to_string();
    let scanned = rows_of(&tree, "Scan: lineitem");
    let orders_tested = tested_of(&tree, "on=[lineitem.l_orderkey = orders.o_orderkey]");
    assert!(
        orders_tested < scanned / 4,
        "{orders_tested} of {scanned}\n{tree}"
    );
}
