//! The fuzzer's seed statements: the TPC-H queries of `tests/tpch/queries`,
//! the README's queries, and statements over the small test tables that
//! reach the rest of the SQL tenon runs (every join type, set operations,
//! subqueries, CASE, functions, views by WITH, OPTIONS hints).

use std::path::PathBuf;

/// Seed statements over `a`, `b`, `c`, `e`, `n` (`tests/sql/common`) and
/// the TPC-H tables.
const OWN: &[&str] = &[
    "SELECT /*+ BROADCAST(b) */ a.k, a.v, b.v FROM a JOIN b ON a.k = b.k AND a.v < b.v",
    "SELECT /*+ SHUFFLE_HASH(b) */ a.k, b.s FROM a LEFT JOIN b ON a.k = b.k",
    "SELECT /*+ SHUFFLE_MERGE(a) */ * FROM a RIGHT JOIN b ON a.k = b.k WHERE b.v > 10",
    "SELECT /*+ NEST_LOOP(b) */ a.k, b.k FROM a FULL OUTER JOIN b ON a.v + b.v > 40",
    "SELECT a.* FROM a LEFT SEMI JOIN b ON a.k IS NOT DISTINCT FROM b.k",
    "SELECT * FROM a LEFT ANTI JOIN c ON a.k = c.k",
    "SELECT a.k, c.k FROM a CROSS JOIN c WHERE a.k = c.k OR a.v = c.v",
    "SELECT k FROM a WHERE k NOT IN (SELECT k FROM b WHERE v > 5)",
    "SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v < a.v)",
    "SELECT k FROM a WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.k = a.k)",
    "SELECT k, (SELECT max(v) FROM b WHERE b.k = a.k) AS m FROM a",
    "SELECT k FROM a WHERE v > (SELECT avg(v) FROM b)",
    "SELECT k, count(*), sum(v), min(s), max(v), avg(v), count(DISTINCT v) FROM a GROUP BY k HAVING count(*) > 0 ORDER BY k NULLS FIRST",
    "SELECT count(*) FILTER (WHERE v > 10), sum(DISTINCT k) FROM a",
    "SELECT k FROM a UNION SELECT k FROM b EXCEPT SELECT k FROM c",
    "SELECT k FROM a UNION ALL SELECT k FROM b INTERSECT SELECT k FROM c",
    "SELECT k FROM a EXCEPT ALL SELECT k FROM b",
    "SELECT k FROM a INTERSECT ALL SELECT k FROM b",
    "SELECT DISTINCT v % 3, k IS NULL FROM a ORDER BY 1 DESC, 2 LIMIT 2 OFFSET 1",
    "SELECT CASE WHEN v > 20 THEN 'big' WHEN v IS NULL THEN NULL ELSE s END, coalesce(v, k, -1) FROM a",
    "SELECT upper(s), lower(s), length(s), substr(s, 2, 3), s || '-' || CAST(k AS VARCHAR), s LIKE 'a-%' FROM a",
    "SELECT CAST(v AS DOUBLE) / 3.0, v / 0.5, CAST(k AS DECIMAL(10, 2)) * 1.25, abs(-v), round(v / 7.0, 2) FROM a",
    "SELECT DATE '1995-03-15' + INTERVAL '3' MONTH, extract(year FROM DATE '2020-02-29'), DATE '1998-12-01' - INTERVAL '90' DAY",
    "WITH w AS (SELECT k, sum(v) AS t FROM a GROUP BY k) SELECT /*+ BROADCAST(w) */ w.k, w.t, b.v FROM w JOIN b ON w.k = b.k",
    "SELECT * FROM (SELECT k, v FROM a WHERE v BETWEEN 10 AND 40) x JOIN (SELECT k FROM b) y ON x.k = y.k",
    "SELECT a.k FROM a, b, c WHERE a.k = b.k AND b.k = c.k AND a.v IN (10, 20, 30)",
    "SELECT k FROM a /*+ OPTIONS('scan.batch-size' = '2') */ WHERE k IS NOT NULL",
    "SELECT n.k, count(a.k) FROM n LEFT JOIN a ON n.k = a.k GROUP BY n.k",
    "SELECT * FROM e FULL JOIN a ON e.k = a.k",
    "SELECT 1, 'x', NULL, true, 2.5, -0.0, CAST('NaN' AS DOUBLE)",
    "SELECT * FROM (VALUES (1, 'a'), (2, NULL), (NULL, 'c')) AS t(x, y) WHERE x <> 2",
    "SELECT /*+ BROADCAST(n) */ n.n_name, count(*) AS customers FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey GROUP BY n.n_name ORDER BY customers DESC LIMIT 5",
    "SELECT /*+ SHUFFLE_HASH(o) */ c_name, sum(o_totalprice) FROM customer JOIN orders o ON c_custkey = o_custkey WHERE o_orderdate < DATE '1996-01-01' GROUP BY c_name",
    "SELECT l_orderkey, l_linenumber FROM lineitem WHERE l_shipdate BETWEEN DATE '1994-01-01' AND DATE '1994-12-31' ORDER BY l_orderkey LIMIT 10",
    "SELECT count(*) FROM nation WHERE n_nationkey = 0 OR n_nationkey = 1 OR n_nationkey = 2 OR n_nationkey = 3",
    "SELECT r_name, (SELECT count(*) FROM nation WHERE n_regionkey = r_regionkey) FROM region",
];

/// Every seed: [`OWN`], the TPC-H queries (their `--` comment lines
/// dropped), the differential test's queries and the README's quoted
/// `SELECT` queries.
pub fn seeds() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<String> = OWN.iter().map(|s| s.to_string()).collect();
    let queries = root.join("tests/tpch/queries");
    let mut files: Vec<_> = std::fs::read_dir(&queries)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", queries.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .filter(|p| !p.to_string_lossy().contains("_view"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let body: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect();
        out.push(body.join("\n").trim().trim_end_matches(';').to_string());
    }
    for case in crate::differential_duckdb::cases() {
        out.push(case.sql);
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    for piece in readme.split('"').skip(1).step_by(2) {
        if piece.starts_with("SELECT ") && !piece.contains('<') {
            out.push(piece.to_string());
        }
    }
    out
}
