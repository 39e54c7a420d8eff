//! `tenon bench` as a user runs it: output, and errors with exit code 2.

use std::process::Command;

fn tenon(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(args)
        .output()
        .expect("run tenon")
}

#[test]
fn bench_prints_one_line_per_workload_and_strategy() {
    let out = tenon(&[
        "bench",
        "--workload",
        "fk_small",
        "--workload",
        "m2n",
        "--workload",
        "nlj",
        "--scale",
        "0.0005",
        "--runs",
        "1",
        "--threads",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert!(lines[0].starts_with("workload"));
    let expected = [
        ("fk_small", "BROADCAST"),
        ("fk_small", "SHUFFLE_HASH"),
        ("fk_small", "SHUFFLE_MERGE"),
        ("m2n", "BROADCAST"),
        ("m2n", "SHUFFLE_HASH"),
        ("m2n", "SHUFFLE_MERGE"),
        ("nlj", "NEST_LOOP"),
    ];
    for (line, (w, s)) in lines[1..].iter().zip(expected) {
        let mut cells = line.split_whitespace();
        assert_eq!((cells.next(), cells.next()), (Some(w), Some(s)), "{line}");
    }
    // fk_small: every probe row matches once; the strategies agree.
    let rows: Vec<&str> = lines[1..4]
        .iter()
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(rows, ["5000"; 3]);
}

#[test]
fn strategies_that_cannot_run_a_workload_are_skipped_with_a_note() {
    let out = tenon(&[
        "bench",
        "--workload",
        "nlj",
        "--workload",
        "fk_small",
        "--strategies",
        "broadcast,NEST_LOOP",
        "--scale",
        "0.0005",
        "--runs",
        "1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<(&str, &str)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut c = l.split_whitespace();
            (c.next().unwrap(), c.next().unwrap())
        })
        .collect();
    assert_eq!(
        names,
        [
            ("nlj", "NEST_LOOP"),
            ("fk_small", "BROADCAST"),
            ("fk_small", "NEST_LOOP")
        ]
    );
}

#[test]
fn unknown_workload_is_a_usage_error_listing_valid_names() {
    let out = tenon(&["bench", "--workload", "fk_huge"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("fk_huge") && err.contains("fk_small"), "{err}");
}

#[test]
fn unknown_strategy_is_a_usage_error() {
    let out = tenon(&["bench", "--strategies", "MAGIC", "--scale", "0.0001"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("MAGIC") && err.contains("SHUFFLE_HASH"),
        "{err}"
    );
}

#[test]
fn bad_numbers_are_usage_errors() {
    for args in [
        &["bench", "--runs", "0"][..],
        &["bench", "--scale", "-1"][..],
        &["bench", "--threads", "0"][..],
        &["bench", "--batch-size", "0"][..],
        &["bench", "--runs", "many"][..],
    ] {
        let out = tenon(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
