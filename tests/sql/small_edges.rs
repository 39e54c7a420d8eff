//! Small edges of issue 52: a byte order mark before a Debezium file's
//! first event, a FIFO given as a table, and a LIMIT of 2^64-1.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::cli_query::{stderr, tenon};
use crate::common::{collect, empty_session, row_strings, temp_dir};

#[test]
fn debezium_file_with_a_utf8_bom() {
    let dir = temp_dir("debezium-bom");
    let path = dir.join("rates.json");
    std::fs::write(
        &path,
        "\u{feff}{\"before\": null, \"after\": {\"currency\": \"EUR\", \"rate\": 1.5}, \
         \"op\": \"c\", \"ts_ms\": 1704110400000}\n",
    )
    .unwrap();
    let session = empty_session(1, 8192);
    session
        .execute(&format!(
            "CREATE TABLE rates (currency STRING, rate DOUBLE, PRIMARY KEY(currency) NOT \
             ENFORCED) WITH ('connector' = \
             'filesystem', 'path' = '{}', 'format' = 'debezium-json')",
            path.display()
        ))
        .unwrap();
    assert_eq!(
        row_strings(&collect(&session, "SELECT currency, rate FROM rates")),
        ["EUR|1.5"]
    );
}

#[test]
fn fifo_as_table_is_refused() {
    let dir = temp_dir("fifo-table");
    let fifo = dir.join("pipe.csv");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let started = Instant::now();
    let out = tenon(&[
        "--table",
        &format!("t={}", fifo.display()),
        "SELECT * FROM t",
    ]);
    assert!(started.elapsed() < Duration::from_secs(30));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a FIFO") && err.contains("regular files"),
        "{err}"
    );
}

#[test]
fn limit_of_u64_max() {
    let session = empty_session(1, 8192);
    let sql = "SELECT k FROM (VALUES (1), (2)) AS t(k) ORDER BY k";
    assert_eq!(
        row_strings(&collect(
            &session,
            &format!("{sql} LIMIT 18446744073709551615")
        )),
        ["1", "2"]
    );
    assert!(
        collect(
            &session,
            &format!("{sql} LIMIT 5 OFFSET 18446744073709551615")
        )
        .iter()
        .all(|b| b.num_rows() == 0)
    );
}
