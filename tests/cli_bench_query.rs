//! `tenon bench --query` as a user runs it (docs/cli.md, "tenon bench
//! --query"): every strategy of each join and their combinations, the same
//! rows from all, the fastest hint block as SQL that `tenon query` runs,
//! `--json` then `--baseline`, a directory of queries, `--against`, and
//! the bad inputs with their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tenon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(args)
        .output()
        .expect("run tenon")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh directory with three small CSV tables and a 2-join query.
fn fixture(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tenon-bench-query-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("queries")).unwrap();
    let mut a = String::from("k,v\n");
    let mut b = String::from("k,w\n");
    for i in 0..300 {
        a.push_str(&format!("{i},a{i}\n"));
        b.push_str(&format!("{},b{i}\n", i % 50));
    }
    std::fs::write(dir.join("a.csv"), a).unwrap();
    std::fs::write(dir.join("b.csv"), b).unwrap();
    std::fs::write(dir.join("c.csv"), "k,u\n1,p\n3,q\n7,r\n").unwrap();
    std::fs::write(
        dir.join("queries/q1.sql"),
        "-- two joins\nSELECT a.k, b.w, c.u FROM a JOIN b ON a.k = b.k LEFT JOIN c ON a.k = c.k;\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("queries/q2.sql"),
        "SELECT count(*) AS n FROM a AS x JOIN b AS y ON x.k = y.k\n",
    )
    .unwrap();
    dir
}

fn tables(dir: &Path) -> Vec<String> {
    ["a", "b", "c"]
        .iter()
        .flat_map(|t| {
            [
                "--table".to_string(),
                format!("{t}={}", dir.join(format!("{t}.csv")).display()),
            ]
        })
        .collect()
}

fn bench(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "bench".to_string(),
        "--runs".into(),
        "1".into(),
        "--threads".into(),
        "2".into(),
    ];
    args.extend(tables(dir));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    tenon(&refs)
}

/// The rows of the report's table: (workload, strategy, out_rows).
fn rows(stdout: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (c.len() >= 9 && c[0].contains(".sql#") && !c[0].ends_with(':'))
                .then(|| (c[0].into(), c[1].into(), c[7].into()))
        })
        .collect()
}

#[test]
fn every_strategy_of_each_join_and_every_combination_agree_and_the_fastest_runs() {
    let dir = fixture("two-joins");
    let q1 = dir.join("queries/q1.sql");
    let out = bench(&dir, &["--query", q1.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows = rows(&stdout);
    let strategies = ["BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP"];
    // join1 (INNER): all four; join2 (a LEFT join, c the right side): all
    // four as well, BROADCAST of c being allowed
    for join in ["q1.sql#join1", "q1.sql#join2"] {
        let got: Vec<&str> = rows
            .iter()
            .filter(|r| r.0 == join)
            .map(|r| r.1.as_str())
            .collect();
        assert_eq!(got, strategies, "{join}: {stdout}");
    }
    let all: Vec<&str> = rows
        .iter()
        .filter(|r| r.0 == "q1.sql#all")
        .map(|r| r.1.as_str())
        .collect();
    assert_eq!(all.len(), 16, "{stdout}");
    assert!(all.contains(&"NEST_LOOP+SHUFFLE_MERGE"), "{stdout}");
    // the same rows under every variant: the 50 keys of a below 50, each
    // matching 6 rows of b
    assert!(rows.iter().all(|r| r.2 == "300"), "{stdout}");
    assert!(stdout.contains("q1.sql#join1: default"), "{stdout}");
    assert!(stdout.contains("regret"), "{stdout}");
    // the fastest variant as SQL, which `tenon query` runs
    let fastest = stdout
        .lines()
        .find_map(|l| l.strip_prefix("fastest: "))
        .map(str::to_string);
    if let Some(sql) = fastest {
        assert!(sql.contains("/*+ "), "{sql}");
        let mut args = vec!["query".to_string(), sql.trim_end_matches(';').to_string()];
        args.extend(tables(&dir));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = tenon(&refs);
        let (qout, qerr) = text(&run);
        assert!(run.status.success(), "{sql}: {qerr}");
        assert!(
            qout.contains("b7") && !qerr.contains("ignored"),
            "{qout}{qerr}"
        );
    } else {
        assert!(
            stdout.contains("fastest: the planner's default"),
            "{stdout}"
        );
    }
}

#[test]
fn json_then_baseline_on_the_same_file_passes() {
    let dir = fixture("baseline");
    let q = dir.join("queries/q2.sql");
    let json = dir.join("r.json");
    let out = bench(
        &dir,
        &[
            "--query",
            q.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let report = std::fs::read_to_string(&json).unwrap();
    assert!(report.contains("\"schema\": \"tenon-bench/1\""), "{report}");
    assert!(
        report.contains("\"workload\": \"q2.sql#join1\""),
        "{report}"
    );
    let out = bench(
        &dir,
        &[
            "--query",
            q.to_str().unwrap(),
            "--baseline",
            json.to_str().unwrap(),
            "--max-regression",
            "100000",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("q2.sql#join1") && stdout.contains("no regression"),
        "{stdout}"
    );
    assert!(!stdout.contains("not in the baseline"), "{stdout}");
}

#[test]
fn a_directory_of_queries_reports_each() {
    let dir = fixture("directory");
    let q = dir.join("queries");
    let out = bench(
        &dir,
        &[
            "--query",
            q.to_str().unwrap(),
            "--strategies",
            "BROADCAST,SHUFFLE_HASH",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let names: Vec<String> = rows(&stdout).into_iter().map(|r| r.0).collect();
    assert!(names.iter().any(|n| n == "q1.sql#join2"), "{stdout}");
    assert!(names.iter().any(|n| n == "q2.sql#join1"), "{stdout}");
    // q1 comes first (sorted by name); only the strategies asked for
    assert!(stdout.find("q1.sql:") < stdout.find("q2.sql:"), "{stdout}");
    assert!(
        rows(&stdout).iter().all(|r| r
            .1
            .split('+')
            .all(|s| s == "BROADCAST" || s == "SHUFFLE_HASH")),
        "{stdout}"
    );
}

#[test]
fn against_itself_compares_the_queries_workloads() {
    let dir = fixture("against");
    let q = dir.join("queries/q2.sql");
    let out = bench(
        &dir,
        &[
            "--query",
            q.to_str().unwrap(),
            "--against",
            env!("CARGO_BIN_EXE_tenon"),
            "--strategies",
            "BROADCAST",
            "--max-regression",
            "100000",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("q2.sql#join1 BROADCAST"), "{stdout}");
    assert!(stdout.contains("no regression"), "{stdout}");
}

#[test]
fn bad_inputs_are_usage_errors_that_say_what_to_do() {
    let dir = fixture("bad");
    let q1 = dir.join("queries/q1.sql");
    let q1 = q1.to_str().unwrap();
    // a table the query needs is not given
    let a = format!("a={}", dir.join("a.csv").display());
    let out = tenon(&["bench", "--query", q1, "--table", &a]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unknown table `b`") && stderr.contains("--table"),
        "{stderr}"
    );
    // a missing file
    let out = tenon(&["bench", "--query", "/nonexistent/q.sql"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/q.sql") && stderr.contains("no such file"),
        "{stderr}"
    );
    // a built-in workload with --query
    let out = bench(&dir, &["--query", q1, "--workload", "fk_small"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--workload fk_small"), "{stderr}");
    // --measure instructions says it does not apply
    let out = bench(&dir, &["--query", q1, "--measure", "instructions"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--measure instructions"), "{stderr}");
    // a query that fails when it runs: execution failure, naming the file
    let bad = dir.join("queries/bad.sql");
    std::fs::write(&bad, "SELECT CAST(a.v AS INT) FROM a JOIN b ON a.k = b.k").unwrap();
    let out = bench(&dir, &["--query", bad.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert!(matches!(out.status.code(), Some(2 | 3)), "{stderr}");
    assert!(stderr.contains("bad.sql"), "{stderr}");
    // a query without a join: said, exit 0
    let none = dir.join("queries/none.sql");
    std::fs::write(&none, "SELECT count(*) FROM a").unwrap();
    let out = bench(&dir, &["--query", none.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("no join"), "{stdout}");
    // --table without --query
    let out = tenon(&["bench", "--table", &a]);
    assert_eq!(out.status.code(), Some(2));
}
