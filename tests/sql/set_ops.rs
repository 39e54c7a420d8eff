//! INTERSECT and EXCEPT, with and without ALL, against a naive multiset
//! reference: a row occurring `l` times on the left and `r` times on the
//! right occurs `min(l, r)` times in `INTERSECT ALL`, `max(l - r, 0)`
//! times in `EXCEPT ALL`, once (when that count is positive) in the
//! distinct forms. NULL equals NULL; `-0.0` equals `0.0`; NaN equals NaN.
//! Every query runs with 1 and 4 threads and batches of 1 and 8192 rows.

use std::collections::HashMap;

use crate::common::*;

/// `sql`'s sorted rows, the same in every [`CONFIGS`] session.
fn rows(sql: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for &(t, b) in &CONFIGS {
        let got = run(&empty_session(t, b), sql);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{sql}: threads={t} batch={b} differs"),
        }
    }
    first.unwrap_or_default()
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

const LEFT: &str = "SELECT x FROM (VALUES (1),(1),(1),(2),(3),(NULL),(NULL)) t(x)";
const RIGHT: &str = "SELECT x FROM (VALUES (1),(1),(3),(3),(NULL)) s(x)";

#[test]
fn except_all_subtracts_copies() {
    assert_eq!(
        rows(&format!("{LEFT} EXCEPT ALL {RIGHT}")),
        sorted(&["1", "2", "NULL"])
    );
}

#[test]
fn intersect_all_keeps_the_smaller_count() {
    assert_eq!(
        rows(&format!("{LEFT} INTERSECT ALL {RIGHT}")),
        sorted(&["1", "1", "3", "NULL"])
    );
}

#[test]
fn set_operations_without_all_are_distinct() {
    assert_eq!(rows(&format!("{LEFT} EXCEPT {RIGHT}")), sorted(&["2"]));
    assert_eq!(
        rows(&format!("{LEFT} INTERSECT {RIGHT}")),
        sorted(&["1", "3", "NULL"])
    );
}

#[test]
fn set_operations_all_with_empty_sides() {
    let empty = "SELECT x FROM (VALUES (1)) e(x) WHERE x > 5";
    assert_eq!(rows(&format!("{LEFT} INTERSECT ALL {empty}")), sorted(&[]));
    assert_eq!(
        rows(&format!("{LEFT} EXCEPT ALL {empty}")),
        sorted(&["1", "1", "1", "2", "3", "NULL", "NULL"])
    );
    assert_eq!(rows(&format!("{empty} EXCEPT ALL {LEFT}")), sorted(&[]));
}

#[test]
fn set_operations_all_compare_whole_rows_with_nulls() {
    let l = "SELECT a, b FROM (VALUES (1, 'x'), (1, 'x'), (1, NULL), (1, NULL), (2, 'y')) l(a, b)";
    let r = "SELECT a, b FROM (VALUES (1, 'x'), (1, NULL), (1, 'y'), (2, 'y'), (2, 'y')) r(a, b)";
    assert_eq!(
        rows(&format!("{l} EXCEPT ALL {r}")),
        sorted(&["1|x", "1|NULL"])
    );
    assert_eq!(
        rows(&format!("{l} INTERSECT ALL {r}")),
        sorted(&["1|x", "1|NULL", "2|y"])
    );
}

#[test]
fn chained_set_operations_all() {
    // left to right: (LEFT EXCEPT ALL RIGHT) = {1, 2, NULL}, then minus {1}
    assert_eq!(
        rows(&format!("{LEFT} EXCEPT ALL {RIGHT} EXCEPT ALL SELECT 1")),
        sorted(&["2", "NULL"])
    );
    let sql = format!(
        "SELECT * FROM ({LEFT} EXCEPT ALL {RIGHT}) a \
         INTERSECT ALL SELECT x FROM (VALUES (2),(2),(2),(NULL)) u(x)"
    );
    assert_eq!(rows(&sql), sorted(&["2", "NULL"]));
}

#[test]
fn set_operations_all_of_different_integer_types() {
    let sql = "SELECT CAST(x AS INT) FROM (VALUES (1),(1),(2)) t(x) \
               EXCEPT ALL SELECT CAST(x AS BIGINT) FROM (VALUES (1)) s(x)";
    assert_eq!(rows(sql), sorted(&["1", "2"]));
}

/// A tiny deterministic generator (no dependency on the rand crate's
/// stream staying the same).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A random multiset of (int, text) rows with NULLs and duplicates.
fn random_rows(rng: &mut Lcg, max: u64) -> Vec<(Option<i64>, Option<&'static str>)> {
    let n = rng.next(max + 1);
    (0..n)
        .map(|_| {
            let a = match rng.next(4) {
                0 => None,
                v => Some(v as i64),
            };
            let b = match rng.next(3) {
                0 => None,
                1 => Some("p"),
                _ => Some("q"),
            };
            (a, b)
        })
        .collect()
}

fn render(a: Option<i64>, b: Option<&str>) -> String {
    format!(
        "{}|{}",
        a.map_or("NULL".to_string(), |v| v.to_string()),
        b.unwrap_or("NULL")
    )
}

/// The rows as a derived table; an empty one as a filter that keeps none.
fn relation(rows: &[(Option<i64>, Option<&str>)]) -> String {
    let sql = |(a, b): &(Option<i64>, Option<&str>)| {
        format!(
            "(CAST({} AS BIGINT), CAST({} AS VARCHAR))",
            a.map_or("NULL".to_string(), |v| v.to_string()),
            b.map_or("NULL".to_string(), |v| format!("'{v}'"))
        )
    };
    if rows.is_empty() {
        return "SELECT a, b FROM (VALUES (CAST(1 AS BIGINT), CAST('p' AS VARCHAR))) v(a, b) \
                WHERE a > 1"
            .to_string();
    }
    let values: Vec<String> = rows.iter().map(sql).collect();
    format!("SELECT a, b FROM (VALUES {}) v(a, b)", values.join(", "))
}

/// The naive multiset answer.
fn reference(
    left: &[(Option<i64>, Option<&str>)],
    right: &[(Option<i64>, Option<&str>)],
    op: &str,
) -> Vec<String> {
    let count = |rows: &[(Option<i64>, Option<&str>)]| {
        let mut m: HashMap<String, usize> = HashMap::new();
        for &(a, b) in rows {
            *m.entry(render(a, b)).or_default() += 1;
        }
        m
    };
    let (l, r) = (count(left), count(right));
    let mut out = Vec::new();
    for (row, &lc) in &l {
        let rc = r.get(row).copied().unwrap_or(0);
        let n = match op {
            "INTERSECT ALL" => lc.min(rc),
            "EXCEPT ALL" => lc.saturating_sub(rc),
            "INTERSECT" => usize::from(rc > 0),
            _ => usize::from(rc == 0),
        };
        out.extend(std::iter::repeat_n(row.clone(), n));
    }
    out.sort();
    out
}

#[test]
fn set_operations_match_a_naive_multiset_reference() {
    let mut rng = Lcg(14);
    for case in 0..40 {
        let left = random_rows(&mut rng, 12);
        let right = random_rows(&mut rng, 12);
        for op in ["INTERSECT ALL", "EXCEPT ALL", "INTERSECT", "EXCEPT"] {
            let sql = format!("{} {op} {}", relation(&left), relation(&right));
            assert_eq!(
                rows(&sql),
                reference(&left, &right, op),
                "case {case}: {sql}"
            );
        }
    }
}

#[test]
fn set_operations_all_over_hinted_joins() {
    for hint in [
        "BROADCAST(u)",
        "SHUFFLE_HASH(u)",
        "SHUFFLE_MERGE(u)",
        "NEST_LOOP(u)",
    ] {
        let sql = format!(
            "SELECT /*+ {hint} */ t.x FROM (VALUES (1),(1),(2),(3)) t(x) \
             JOIN (VALUES (1),(2),(3)) u(y) ON t.x = u.y \
             EXCEPT ALL \
             SELECT /*+ {hint} */ t.x FROM (VALUES (1),(3)) t(x) \
             JOIN (VALUES (1),(3),(3)) u(y) ON t.x = u.y"
        );
        // left {1, 1, 2, 3}, right {1, 3, 3}
        assert_eq!(rows(&sql), sorted(&["1", "2"]), "{sql}");
    }
}
