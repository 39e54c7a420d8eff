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

/// The strategies of `rows` for `workload`, in report order.
fn strategies_of<'a>(rows: &'a [(String, String, String)], workload: &str) -> Vec<&'a str> {
    rows.iter()
        .filter(|r| r.0 == workload)
        .map(|r| r.1.as_str())
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
        assert_eq!(strategies_of(&rows, join), strategies, "{join}: {stdout}");
    }
    let all = strategies_of(&rows, "q1.sql#all");
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
    // --scale is the built-in TPC-H tables' only; --data the workloads'
    let out = bench(&dir, &["--query", q1, "--scale", "0.1"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--scale") && stderr.contains("TPC-H"),
        "{stderr}"
    );
    let out = bench(&dir, &["--query", q1, "--data", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    // a file of two queries: which file, which statements
    let two = dir.join("queries/two.sql");
    std::fs::write(&two, "SELECT 1;\nSELECT count(*) FROM a;\n").unwrap();
    let out = bench(&dir, &["--query", two.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two.sql")
            && stderr.contains("holds 2 queries")
            && stderr.contains("line 2"),
        "{stderr}"
    );
    // a file of DDL only
    std::fs::write(&two, "CREATE VIEW v AS SELECT k FROM a;\n").unwrap();
    let out = bench(&dir, &["--query", two.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("two.sql: holds no query"), "{stderr}");
    // a file may not drop what it did not create
    std::fs::write(
        &two,
        "SELECT count(*) FROM a JOIN b ON a.k = b.k;\nDROP TABLE b;\n",
    )
    .unwrap();
    let out = bench(&dir, &["--query", two.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two.sql")
            && stderr.contains("`DROP TABLE b`")
            && stderr.contains("did not create"),
        "{stderr}"
    );
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

/// A variant that returns other rows than the default is a bug: exit 1,
/// naming the variant (its workload, row and hint block) and the first
/// differing row. The fault is injected with TENON_BENCH_INJECT_WRONG_ROWS
/// (the variants hinted SHUFFLE_MERGE lose their first row).
#[test]
fn a_variant_that_disagrees_exits_1_naming_it_and_the_row() {
    let dir = fixture("disagree");
    let q = dir.join("queries/q1.sql");
    let mut args = vec!["bench", "--runs", "1", "--query", q.to_str().unwrap()];
    let t = tables(&dir);
    args.extend(t.iter().map(String::as_str));
    let run = |value: &str| {
        Command::new(env!("CARGO_BIN_EXE_tenon"))
            .args(&args)
            .env("TENON_BENCH_INJECT_WRONG_ROWS", value)
            .output()
            .expect("run tenon")
    };
    let out = run("SHUFFLE_MERGE");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("q1.sql: the variant q1.sql#join1 SHUFFLE_MERGE (/*+ SHUFFLE_MERGE("),
        "{stderr}"
    );
    // the first differing row, in the variant's and the default's words
    assert!(
        stderr.contains("returned other rows than the planner's default")
            && stderr.contains(" | b")
            && (stderr.contains("in this answer, `")
                || stderr.contains("is the first that only the default's has: `"))
            && stderr.contains("bug in tenon"),
        "{stderr}"
    );
    // the aid checks its value
    let out = run("FASTEST");
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("TENON_BENCH_INJECT_WRONG_ROWS=FASTEST"),
        "{stderr}"
    );
}

/// `--measure instructions` on a query as on the workloads (valgrind's
/// callgrind, one thread): each variant's count goes to the JSON, repeats
/// (to 1% here: the query's threads hand work to each other), and
/// `--baseline` compares counts: a baseline with a third fewer
/// instructions fails, the run's own passes.
#[test]
fn instruction_counts_of_queries_repeat_and_drive_the_baseline() {
    let dir = fixture("instructions");
    let q = dir.join("queries/q2.sql");
    let q = q.to_str().unwrap();
    let has_valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_valgrind {
        eprintln!("valgrind is not installed: --measure instructions cannot be checked here");
        let out = bench(&dir, &["--query", q, "--measure", "instructions"]);
        assert_eq!(out.status.code(), Some(2));
        return;
    }
    let json = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--query",
            q,
            "--measure",
            "instructions",
            "--strategies",
            "BROADCAST,SHUFFLE_HASH",
        ];
        args.extend_from_slice(extra);
        bench(&dir, &args)
    };
    let (a, b) = (json("a.json"), json("b.json"));
    for path in [&a, &b] {
        let out = run(&["--json", path]);
        assert!(out.status.success(), "{:?}", text(&out));
        assert!(text(&out).0.contains("instructions="), "{:?}", text(&out));
    }
    let read = |p: &str| {
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (ra, rb) = (read(&a), read(&b));
    let counts = |r: &tenon::bench::BenchReport| -> Vec<u64> {
        r.workloads[0]
            .strategies
            .iter()
            .map(|s| s.instructions.unwrap_or(0))
            .collect()
    };
    let (ca, cb) = (counts(&ra), counts(&rb));
    assert_eq!(ca.len(), 2, "{ra:?}");
    for (na, nb) in ca.iter().zip(&cb) {
        // more than the query's planning or a thread's start-up alone
        assert!(*na > 100_000, "{ca:?}");
        let (na, nb) = (*na as f64, *nb as f64);
        assert!((na - nb).abs() / na < 0.01, "{na} vs {nb}");
    }

    // The baseline had a third fewer instructions: this run is 50% more.
    let mut fewer = ra.clone();
    for s in &mut fewer.workloads[0].strategies {
        s.instructions = s.instructions.map(|n| n * 2 / 3);
    }
    let base = json("fewer.json");
    std::fs::write(&base, fewer.to_json()).unwrap();
    let out = run(&["--baseline", &base, "--max-regression", "5"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("q2.sql#join1")
            && stdout.contains("instructions")
            && stdout.contains("REGRESSED"),
        "{stdout}"
    );
    let out = run(&["--baseline", &a, "--max-regression", "5"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("no regression"), "{stdout}");
}

/// The 22 TPC-H queries of this repository and q15_view.sql (a script:
/// CREATE VIEW, the query, DROP VIEW) in one report, on the built-in
/// TPC-H tables at a tiny --scale: no --table needed.
#[test]
fn the_tpch_queries_with_the_view_script_run_in_one_report() {
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tpch/queries");
    let out = tenon(&[
        "bench",
        "--query",
        queries.to_str().unwrap(),
        "--scale",
        "0.001",
        "--runs",
        "1",
        "--threads",
        "2",
        "--strategies",
        "BROADCAST,SHUFFLE_HASH",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    for n in 1..=22 {
        let file = format!("q{n:02}.sql: ");
        assert!(stdout.contains(&file), "{file}: {stdout}");
    }
    assert!(stdout.contains("q15_view.sql: 2 join(s)"), "{stdout}");
    // the view's query gives the rows of q15.sql's
    let rows = rows(&stdout);
    let out_rows = |w: &str| rows.iter().find(|r| r.0 == w).map(|r| r.2.clone());
    assert!(out_rows("q15_view.sql#join1").is_some(), "{stdout}");
    assert_eq!(out_rows("q15_view.sql#join1"), out_rows("q15.sql#join1"));
    // the view is the file's own: a run of it alone and a script that
    // uses it after its file ended fail as they should
    let dir = fixture("tpch-script");
    let after = dir.join("after.sql");
    std::fs::write(
        &after,
        "SELECT count(*) FROM supplier JOIN revenue0 ON s_suppkey = supplier_no",
    )
    .unwrap();
    let out = tenon(&[
        "bench",
        "--query",
        queries.join("q15_view.sql").to_str().unwrap(),
        "--query",
        after.to_str().unwrap(),
        "--scale",
        "0.001",
        "--runs",
        "1",
        "--strategies",
        "BROADCAST",
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("after.sql") && stderr.contains("revenue0"),
        "{stderr}"
    );
}

/// A query file with a CREATE TABLE ... WITH of its own, and a view that
/// it leaves: both are the file's, dropped when it ends, so the file runs
/// planned and then measured.
#[test]
fn a_script_file_declares_its_own_table_and_view() {
    let dir = fixture("script");
    let q = dir.join("queries/own.sql");
    std::fs::write(
        &q,
        format!(
            "CREATE TABLE cc (k INT, u STRING) WITH ('connector' = 'filesystem', 'path' = '{}', \
             'format' = 'csv');\nCREATE VIEW bb AS SELECT k, w FROM b WHERE k < 10;\n\
             SELECT cc.u, count(*) AS n FROM bb JOIN cc ON bb.k = cc.k GROUP BY cc.u ORDER BY cc.u;\n",
            dir.join("c.csv").display()
        ),
    )
    .unwrap();
    let out = bench(&dir, &["--query", q.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let rows = rows(&stdout);
    assert_eq!(
        rows.iter().filter(|r| r.0 == "own.sql#join1").count(),
        4,
        "{stdout}"
    );
    // keys 1, 3 and 7 of c each match 6 rows of b below 10: 3 groups
    assert!(rows.iter().all(|r| r.2 == "3"), "{stdout}");
}

#[test]
fn a_multi_join_default_is_a_row_of_its_own_beside_the_binary_strategies() {
    let dir = fixture("multi-join");
    let q = dir.join("queries/q3.sql");
    std::fs::write(
        &q,
        "SELECT /*+ MULTI_JOIN(a, b, c) */ a.k, b.w, c.u FROM a JOIN b ON a.k = b.k \
         LEFT JOIN c ON b.k = c.k\n",
    )
    .unwrap();
    let out = bench(&dir, &["--query", q.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows = rows(&stdout);
    let strategies = [
        "MULTI_JOIN",
        "BROADCAST",
        "SHUFFLE_HASH",
        "SHUFFLE_MERGE",
        "NEST_LOOP",
    ];
    for join in ["q3.sql#join1", "q3.sql#join2"] {
        assert_eq!(strategies_of(&rows, join), strategies, "{join}: {stdout}");
    }
    // the combinations: the multi-way join alone, or a strategy for each
    // join (a strategy hinted on one join runs the group as binary joins)
    let all = strategies_of(&rows, "q3.sql#all");
    assert_eq!(all.len(), 17, "{stdout}");
    assert!(all.contains(&"MULTI_JOIN+MULTI_JOIN"), "{stdout}");
    assert!(rows.iter().all(|r| r.2 == "300"), "{stdout}");
    assert!(
        stdout.contains("q3.sql#join1: default MULTI_JOIN"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
