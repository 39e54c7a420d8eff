//! libFuzzer target: the input, as UTF-8 text, is a SQL statement run
//! through `tenon::Session` (planning and execution, at most 10,000 result
//! rows read) on tiny tables: the TPC-H tables at scale 0.001 cut to 5 rows
//! each and the differential test's tables `t1`, `t2`, `t3`
//! (`tests/differential/tables`), with a 64 MB `memory_limit`. A panic, an
//! abort (stack overflow, allocation failure) or a case slower than
//! libFuzzer's `-timeout` is a finding. See `fuzz/README.md`.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tenon::{Config, Session};

/// Rows per TPC-H table.
const TPCH_ROWS: usize = 5;

/// The declared types of the differential tables (as `make_cases.py`
/// writes them).
const TABLES: [(&str, &str); 3] = [
    (
        "t1",
        "id BIGINT, k BIGINT, x DOUBLE, s VARCHAR, d DATE, m DECIMAL(10, 2)",
    ),
    ("t2", "id BIGINT, k BIGINT, y DOUBLE, s VARCHAR, d DATE"),
    ("t3", "k BIGINT, g VARCHAR, n BIGINT"),
];

fn session() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let config = Config {
            threads: 2,
            batch_size: 7,
            memory_limit: Some(64 << 20),
            ..Config::default()
        };
        let mut s = Session::new(config).expect("a session");
        for (name, batches) in tenon::datasets::tpch::tpch_tables_cached(0.001) {
            let b = &batches[0];
            s.register_batch(name, b.slice(0, TPCH_ROWS.min(b.num_rows())))
                .expect("a TPC-H table");
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/differential/tables");
        for (name, columns) in TABLES {
            let ddl = format!(
                "CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', \
                 'path' = '{dir}/{name}.csv', 'format' = 'csv')"
            );
            s.execute(&ddl).expect("a differential table");
        }
        s
    })
}

fuzz_target!(
    // The tables are made before the first input, outside its timeout.
    init: {
        session();
    },
    |data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(stream) = session().sql(sql) {
        let mut rows = 0;
        for batch in stream {
            match batch {
                Ok(b) => rows += b.num_rows(),
                Err(e) => {
                    let message = e.to_string();
                    assert!(
                        !message.contains("the query thread panicked"),
                        "the query thread panicked: {sql}"
                    );
                    break;
                }
            }
            if rows >= 10_000 {
                break;
            }
        }
    }
    }
);
