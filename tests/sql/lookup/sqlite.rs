//! Lookup joins against a real SQLite file equal the same query as a
//! regular join (the table scanned and hash joined) and a naive reference,
//! for INNER and LEFT joins, NULL and duplicate keys, a composite key, a
//! constant in the key and a residual condition, over batch sizes 1, 2, 7
//! and 8192, threads 1 and 4, sync and async (ordered and unordered).

use proptest::prelude::*;

use super::{Customer, Shop, ddl};
use crate::common::{collect, empty_session, row_strings, temp_dir};

type Order = [Option<i64>; 3];

/// An ON condition as SQL and as a naive predicate (SQL's three values:
/// `None` is unknown, which does not join).
struct Condition {
    sql: &'static str,
    holds: fn(&Order, &Customer) -> Option<bool>,
}

fn eq(a: Option<i64>, b: Option<i64>) -> Option<bool> {
    Some(a? == b?)
}

fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

const CONDITIONS: [Condition; 4] = [
    Condition {
        sql: "o.k = c.id",
        holds: |o, c| eq(o[0], c.0),
    },
    Condition {
        sql: "o.k = c.id AND c.cc = 'US'",
        holds: |o, c| and(eq(o[0], c.0), c.2.map(|cc| cc == "US")),
    },
    Condition {
        sql: "o.k = c.id AND o.k2 = c.k2",
        holds: |o, c| and(eq(o[0], c.0), eq(o[1], c.1)),
    },
    Condition {
        sql: "o.k = c.id AND c.val > o.v",
        holds: |o, c| and(eq(o[0], c.0), Some(c.3? > o[2]?)),
    },
];

/// The rows of `SELECT o.k, o.v, c.id, c.cc, c.val` by a nested loop.
fn reference(shop: &Shop, cond: &Condition, left: bool) -> Vec<String> {
    let cell = |v: Option<i64>| v.map_or("NULL".to_string(), |v| v.to_string());
    let mut out = Vec::new();
    for o in &shop.orders {
        let mut matched = false;
        for c in &shop.customers {
            if (cond.holds)(o, c) == Some(true) {
                matched = true;
                out.push(format!(
                    "{}|{}|{}|{}|{}",
                    cell(o[0]),
                    cell(o[2]),
                    cell(c.0),
                    c.2.unwrap_or("NULL"),
                    cell(c.3)
                ));
            }
        }
        if left && !matched {
            out.push(format!("{}|{}|NULL|NULL|NULL", cell(o[0]), cell(o[2])));
        }
    }
    out.sort();
    out
}

/// The hints the lookup join runs under: sync, async ordered with room
/// for two requests, async unordered with room for one.
const HINTS: [&str; 4] = [
    "",
    "/*+ LOOKUP('table'='c') */",
    "/*+ LOOKUP('table'='c', 'async'='true', 'capacity'='2') */",
    "/*+ LOOKUP('table'='c', 'async'='true', 'capacity'='1', 'output-mode'='allow_unordered') */",
];

fn check(shop: &Shop, test: &str) {
    let dir = temp_dir(test);
    shop.write(&dir);
    // the same SQLite table with a PARTIAL and a FULL cache
    let cached = |name: &str, cache: &str| {
        format!(
            "CREATE TABLE {name} (id BIGINT, k2 INT, cc STRING, val BIGINT) WITH ('connector' = \
             'jdbc', 'url' = 'jdbc:sqlite:{}', 'table-name' = 'customers', {cache});",
            dir.join("shop.db").display()
        )
    };
    let script = format!(
        "{}\n{}\n{}",
        ddl(&dir),
        cached(
            "customers_p",
            "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '7'"
        ),
        cached("customers_f", "'lookup.cache' = 'FULL'")
    );
    check_with(shop, &script, &["customers", "customers_p", "customers_f"]);
}

/// The checks of [`check`] with `orders` and the lookup tables `lookups`
/// made by `ddl` (holding `shop`'s rows; the first one is also joined
/// regularly).
pub(super) fn check_with(shop: &Shop, ddl: &str, lookups: &[&str]) {
    for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
        let mut session = empty_session(threads, batch);
        session.execute_script(ddl).unwrap();
        for cond in &CONDITIONS {
            for (kind, left) in [("JOIN", false), ("LEFT JOIN", true)] {
                let expected = reference(shop, cond, left);
                let regular = format!(
                    "SELECT o.k, o.v, c.id, c.cc, c.val FROM orders AS o {kind} customers AS c \
                     ON {}",
                    cond.sql
                );
                assert_eq!(
                    row_strings(&collect(&session, &regular)),
                    expected,
                    "{regular}"
                );
                for (hint, table) in HINTS
                    .iter()
                    .flat_map(|h| lookups.iter().map(move |t| (h, t)))
                {
                    let lookup = format!(
                        "SELECT {hint} o.k, o.v, c.id, c.cc, c.val FROM orders AS o {kind} \
                         {table} FOR SYSTEM_TIME AS OF o.p AS c ON {}",
                        cond.sql
                    );
                    assert_eq!(
                        row_strings(&collect(&session, &lookup)),
                        expected,
                        "{lookup} (threads {threads}, batch size {batch})"
                    );
                }
            }
        }
    }
}

#[test]
fn lookup_joins_equal_the_regular_join_on_a_fixed_shop() {
    check(&Shop::random(7, 30, 20), "lookup-fixed");
}

#[test]
fn lookup_joins_of_empty_inputs() {
    check(&Shop::random(3, 0, 10), "lookup-no-orders");
    check(&Shop::random(4, 12, 0), "lookup-no-customers");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn lookup_joins_equal_the_regular_join_and_a_nested_loop(
        seed in any::<u64>(),
        orders in 0usize..40,
        customers in 0usize..25,
    ) {
        check(&Shop::random(seed, orders, customers), "lookup-prop");
    }
}

/// EXPLAIN says which ran: a lookup join for `FOR SYSTEM_TIME AS OF`, a
/// scan and a hash join for a regular join; EXPLAIN ANALYZE counts one
/// request per probe batch with its distinct keys.
#[test]
fn explain_says_which_join_ran_and_analyze_counts_requests() {
    let dir = temp_dir("lookup-explain");
    let shop = Shop {
        orders: vec![
            [Some(1), Some(0), Some(5)],
            [Some(1), Some(0), Some(6)],
            [Some(2), Some(0), Some(7)],
            [None, Some(0), Some(8)],
        ],
        customers: vec![(Some(1), Some(0), Some("US"), Some(9))],
    };
    shop.write(&dir);
    let mut session = empty_session(1, 8192);
    session.execute_script(&ddl(&dir)).unwrap();
    let lookup = "SELECT /*+ LOOKUP('table' = 'c') */ o.k, c.cc FROM orders AS o JOIN customers \
                  FOR SYSTEM_TIME AS OF o.p AS c ON o.k = c.id";
    let text = session.explain(lookup).unwrap().to_text();
    assert!(text.contains(": LOOKUP (sync, timeout 180s)"), "{text}");
    assert!(
        text.contains("LookupJoin: INNER customers from SQLite file"),
        "{text}"
    );
    let (analyzed, out) = session.explain_analyze(lookup).unwrap();
    assert_eq!(out.num_rows(), 2);
    let text = analyzed.to_text();
    // the two distinct non-NULL keys of the one probe batch, in one request
    assert!(
        text.contains("requests=1 keys=2 fetched_rows=1 retries=0"),
        "{text}"
    );
    let regular = "SELECT o.k, c.cc FROM orders AS o JOIN customers AS c ON o.k = c.id";
    let text = session.explain(regular).unwrap().to_text();
    assert!(
        !text.contains("LOOKUP") && text.contains("Scan: customers"),
        "{text}"
    );
}

/// With no LOOKUP hint, the planner looks up few probe keys and reads the
/// lookup table whole for many (EXPLAIN says why); a cached table stays a
/// lookup; both give the regular join's rows.
#[test]
fn the_default_looks_up_few_keys_and_scans_for_many() {
    let query = "SELECT o.k, o.v, c.id, c.cc, c.val FROM orders AS o JOIN customers \
                 FOR SYSTEM_TIME AS OF o.p AS c ON o.k = c.id";
    let regular = "SELECT o.k, o.v, c.id, c.cc, c.val FROM orders AS o JOIN customers AS c \
                   ON o.k = c.id";
    let cases = [
        ("lookup-default-few", Shop::random(5, 2, 400), true),
        ("lookup-default-many", Shop::random(6, 400, 3), false),
    ];
    for (test, shop, looks_up) in cases {
        let dir = temp_dir(test);
        shop.write(&dir);
        let mut session = empty_session(2, 8192);
        session.execute_script(&ddl(&dir)).unwrap();
        let text = session.explain(query).unwrap().to_text();
        if looks_up {
            assert!(
                text.contains("so LOOKUP the probe keys") && text.contains("LookupJoin"),
                "{text}"
            );
        } else {
            assert!(
                text.contains("so read the lookup table whole (a scan) and join it")
                    && !text.contains("LookupJoin")
                    && text.contains("Scan: customers"),
                "{text}"
            );
        }
        assert_eq!(
            row_strings(&collect(&session, query)),
            row_strings(&collect(&session, regular)),
            "{test}"
        );
        // with a cache the table stays a lookup, whatever the sizes
        session
            .execute(&format!(
                "CREATE TABLE cached (id BIGINT, k2 INT, cc STRING, val BIGINT) WITH \
                 ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:{}', 'table-name' = 'customers', \
                 'lookup.cache' = 'FULL')",
                dir.join("shop.db").display()
            ))
            .unwrap();
        let cached = query.replace("JOIN customers", "JOIN cached");
        let text = session.explain(&cached).unwrap().to_text();
        assert!(
            text.contains("the lookup table has a cache") && text.contains("LookupJoin"),
            "{text}"
        );
        assert_eq!(
            row_strings(&collect(&session, &cached)),
            row_strings(&collect(&session, regular)),
            "{test}"
        );
    }
}

/// Text keys (sent to SQLite as a sorted JSON array) with quotes,
/// backslashes, non-ASCII letters, duplicates in the store, keys the store
/// lacks and NULL: the lookup join equals the regular join, for INNER and
/// LEFT joins, batch sizes 1, 7 and 8192 and threads 1 and 4.
#[test]
fn text_keys_equal_the_regular_join() {
    let dir = temp_dir("lookup-text-keys");
    let db = dir.join("names.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE names (name TEXT, n INTEGER);")
        .unwrap();
    let stored = [
        "a\"b",
        "back\\slash",
        "ünïcödé",
        "x y",
        "plain",
        "plain",
        "[1]",
        "0",
    ];
    for (i, name) in stored.iter().enumerate() {
        conn.execute(
            "INSERT INTO names VALUES (?1, ?2)",
            rusqlite::params![name, i as i64],
        )
        .unwrap();
    }
    drop(conn);
    let probe = [
        "\"a\"\"b\"",
        "back\\slash",
        "ünïcödé",
        "x y",
        "plain",
        "",
        "missing",
        "0",
        "[1]",
        "PLAIN",
    ];
    let mut csv = String::from("id,name\n");
    for round in 0..30 {
        for (i, p) in probe.iter().enumerate() {
            csv.push_str(&format!("{},{p}\n", round * 100 + i));
        }
    }
    std::fs::write(dir.join("probe.csv"), csv).unwrap();
    let ddl = format!(
        "CREATE TABLE probe (id INT, name STRING, p AS PROCTIME()) WITH ('connector' = \
         'filesystem', 'path' = '{}', 'format' = 'csv');\n\
         CREATE TABLE names (name STRING, n BIGINT) WITH ('connector' = 'jdbc', \
         'url' = 'jdbc:sqlite:{}', 'table-name' = 'names');",
        dir.join("probe.csv").display(),
        db.display()
    );
    for (threads, batch) in [(1, 1), (4, 7), (1, 8192), (4, 8192)] {
        let mut session = empty_session(threads, batch);
        session.execute_script(&ddl).unwrap();
        for kind in ["JOIN", "LEFT JOIN"] {
            let regular = format!(
                "SELECT o.id, o.name, c.name, c.n FROM probe AS o {kind} names AS c ON o.name = c.name"
            );
            let lookup = format!(
                "SELECT /*+ LOOKUP('table' = 'c') */ o.id, o.name, c.name, c.n FROM probe AS o \
                 {kind} names FOR SYSTEM_TIME AS OF o.p AS c ON o.name = c.name"
            );
            let want = row_strings(&collect(&session, &regular));
            assert!(want.iter().any(|r| r.contains("ünïcödé")), "{want:?}");
            assert_eq!(
                row_strings(&collect(&session, &lookup)),
                want,
                "{kind}, threads {threads}, batch size {batch}"
            );
        }
    }
}
