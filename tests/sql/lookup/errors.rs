//! Bad lookup tables, lookup joins and LOOKUP hints get clear errors in
//! tenon's words, with the exit code of their kind.

use super::{Shop, ddl};
use crate::common::{empty_session, temp_dir};

/// A session with the shop's `orders` and `customers` in `dir`.
fn shop_session(test: &str) -> (tenon::Session, crate::common::TempDir) {
    let dir = temp_dir(test);
    Shop::random(1, 5, 5).write(&dir);
    let mut session = empty_session(1, 8192);
    session.execute_script(&ddl(&dir)).unwrap();
    (session, dir)
}

fn create_error(dir: &std::path::Path, columns: &str, with: &str) -> tenon::Error {
    let session = empty_session(1, 8192);
    let _ = dir;
    session
        .execute(&format!("CREATE TABLE c ({columns}) WITH ({with})"))
        .unwrap_err()
}

#[test]
fn bad_lookup_tables_say_what_is_wrong() {
    let dir = temp_dir("lookup-bad-tables");
    Shop::random(1, 1, 1).write(&dir);
    let db = dir.join("shop.db");
    let url = |path: &std::path::Path| format!("'url' = 'jdbc:sqlite:{}'", path.display());
    let jdbc = |rest: &str| format!("'connector' = 'jdbc', {rest}");
    let cases: Vec<(String, String, i32, Vec<String>)> = vec![
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers'",
                url(&dir.join("missing.db"))
            )),
            3,
            vec!["cannot open jdbc:sqlite:".into(), "missing.db".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!("{}, 'table-name' = 'clients'", url(&db))),
            2,
            vec!["no table `clients`".into(), "its tables: customers".into()],
        ),
        (
            "id BIGINT, email STRING".into(),
            jdbc(&format!("{}, 'table-name' = 'customers'", url(&db))),
            2,
            vec!["no column `email`".into(), "id INTEGER".into()],
        ),
        (
            "id STRING".into(),
            jdbc(&format!("{}, 'table-name' = 'customers'", url(&db))),
            2,
            vec!["column `id` is declared".into(), "SQLite `INTEGER`".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc("'url' = 'jdbc:mysql://localhost/db', 'table-name' = 'customers'"),
            2,
            vec!["jdbc:mysql://localhost/db".into(), "jdbc:sqlite:".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers', 'lookup.cache' = 'LRU'",
                url(&db)
            )),
            2,
            vec!["'lookup.cache' = 'LRU'".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers', 'lookup.cache' = 'PARTIAL'",
                url(&db)
            )),
            2,
            vec!["needs 'lookup.partial-cache.max-rows'".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers', 'lookup.cache' = 'FULL', \
                 'lookup.partial-cache.max-rows' = '5'",
                url(&db)
            )),
            2,
            vec!["'lookup.partial-cache.max-rows' is an option of another cache".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers', 'lookup.cache' = 'PARTIAL', \
                 'lookup.partial-cache.max-rows' = '5', \
                 'lookup.partial-cache.expire-after-write' = 'later'",
                url(&db)
            )),
            2,
            vec!["'lookup.partial-cache.expire-after-write' = 'later'".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!("{}, 'tabel-name' = 'customers'", url(&db))),
            2,
            vec!["unknown option 'tabel-name'".into(), "'table-name'".into()],
        ),
        (
            "id BIGINT".into(),
            jdbc(&format!(
                "{}, 'table-name' = 'customers', 'lookup.max-retries' = 'x'",
                url(&db)
            )),
            2,
            vec!["'lookup.max-retries' = 'x'".into()],
        ),
    ];
    for (columns, with, code, words) in cases {
        let e = create_error(&dir, &columns, &with);
        let text = e.to_string();
        for w in &words {
            assert!(text.contains(w.as_str()), "{with}: `{w}` not in: {text}");
        }
        assert_eq!(e.exit_code(), code, "{with}: {text}");
    }
}

#[test]
fn bad_lookup_joins_and_hints_say_what_is_wrong() {
    let (session, _dir) = shop_session("lookup-bad-joins");
    let join = |hint: &str, on: &str| {
        format!(
            "SELECT {hint} o.k FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c \
             ON {on}"
        )
    };
    let cases = [
        (
            join("", "o.v > c.val"),
            "no equality with a column of the lookup table",
        ),
        (
            "SELECT o.k FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.v AS c ON o.k = \
             c.id"
                .to_string(),
            "PROCTIME() column",
        ),
        (
            join("/*+ LOOKUP('table'='c', 'async'='yes') */", "o.k = c.id"),
            "'async' = 'yes': expected 'true' or 'false'",
        ),
        (
            join("/*+ LOOKUP('table'='c', 'capacity'='0') */", "o.k = c.id"),
            "'capacity' = '0'",
        ),
        (
            join("/*+ LOOKUP('table'='c', 'timeout'='soon') */", "o.k = c.id"),
            "such as '180s'",
        ),
        (
            join(
                "/*+ LOOKUP('table'='c', 'max-attempts'='3', 'fixed-delay'='1s') */",
                "o.k = c.id",
            ),
            "missing 'retry-predicate', 'retry-strategy'",
        ),
        (
            join("/*+ LOOKUP('table'='c', 'colour'='red') */", "o.k = c.id"),
            "unknown LOOKUP option 'colour'",
        ),
        (
            join("/*+ LOOKUP('async'='true') */", "o.k = c.id"),
            "LOOKUP needs 'table'",
        ),
    ];
    for (sql, words) in cases {
        let e = session.collect(&sql).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(words), "{sql}: `{words}` not in: {text}");
        assert_eq!(e.exit_code(), 2, "{sql}: {text}");
    }
}

#[test]
fn a_lookup_hint_naming_no_lookup_join_is_ignored_with_a_reason_or_refused_when_strict() {
    let (mut session, _dir) = shop_session("lookup-hint-scope");
    let sql = "SELECT /*+ LOOKUP('table'='o') */ o.k FROM orders AS o JOIN customers FOR \
               SYSTEM_TIME AS OF o.p AS c ON o.k = c.id";
    let text = session.explain(sql).unwrap().to_text();
    assert!(
        text.contains("hint LOOKUP('table'='o') ignored: `o` is not the lookup table"),
        "{text}"
    );
    session.set("hint_mode", "strict").unwrap();
    let e = session.collect(sql).unwrap_err();
    assert!(e.to_string().contains("is not the lookup table"), "{e}");
}

#[test]
fn the_seeds_lookup_examples_parse_validate_and_run() {
    let (session, _dir) = shop_session("lookup-seed");
    // the seed's hint examples, on this shop's tables
    for hint in [
        "LOOKUP('table'='c', 'async'='true', 'output-mode'='allow_unordered', 'capacity'='100', 'timeout'='180s')",
        "LOOKUP('table'='c', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='10s', 'max-attempts'='3')",
        "LOOKUP('table'='c', 'async'='false', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='10s', 'max-attempts'='3')",
    ] {
        let sql = format!(
            "SELECT /*+ {hint} */ o.k, c.id FROM orders AS o JOIN customers FOR SYSTEM_TIME \
             AS OF o.p AS c ON o.k = c.id AND o.k2 = c.k2"
        );
        let explained = session.explain(&sql).unwrap().to_text();
        assert!(explained.contains(": LOOKUP ("), "{explained}");
        // the retry waits apply only to keys that stay missing: none here
        // joins a key outside the shop's, so no test waits 10 s
        let regular = session
            .collect(
                "SELECT o.k, c.id FROM orders AS o JOIN customers AS c ON o.k = c.id AND o.k2 = \
                 c.k2",
            )
            .unwrap();
        let _ = regular;
    }
}

/// Issue 52: a `fixed-delay` longer than the timeout said the lookup
/// "took longer than" its timeout; it says that the retry would have.
#[test]
fn fixed_delay_longer_than_timeout_says_what_happened() {
    let (session, _dir) = shop_session("lookup-retry-past-timeout");
    for mode in ["true", "false"] {
        let sql = format!(
            "SELECT /*+ LOOKUP('table'='c', 'async'='{mode}', 'timeout'='1s', \
             'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', \
             'fixed-delay'='200s', 'max-attempts'='3') */ o.k, c.id FROM orders AS o JOIN \
             customers FOR SYSTEM_TIME AS OF o.p AS c ON o.k + 1000 = c.id"
        );
        let started = std::time::Instant::now();
        let e = session.collect(&sql).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        let text = e.to_string();
        assert!(!text.contains("took longer"), "{text}");
        assert!(
            text.contains("was missing") && text.contains("'fixed-delay' = 200s"),
            "{text}"
        );
    }
}
