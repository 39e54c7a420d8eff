//! The shell fed from a pipe (`tenon shell < script.sql`, `tenon <
//! script.sql`): statements and dot commands in order on one session,
//! errors that name the statement and line, the exit code of the first
//! failure, `-bail`, and the dot commands' effects.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{run_piped, texts};
use crate::common::temp_dir;

/// The five nations of ASIA, as `.mode csv` prints them.
const ASIA_CSV: &str = "n_name\nCHINA\nINDIA\nINDONESIA\nJAPAN\nVIETNAM\n";

/// A view made by one statement is there for the next ones; dot commands
/// list it, show its columns and change the output's format.
#[test]
fn statements_and_dot_commands_share_one_session() {
    let script = "\
CREATE VIEW asia AS SELECT n_name FROM nation
  JOIN region ON n_regionkey = r_regionkey WHERE r_name = 'ASIA';
.tables
.schema asia
.mode csv
SELECT n_name FROM asia ORDER BY n_name;
.mode json
SELECT count(*) AS n FROM asia;
.mode
";
    let out = run_piped(&["shell"], script);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{:?}\n{stderr}", out.status);
    assert_eq!(stderr, "");
    let tables =
        "customer\nlineitem\nnation\norders\npart\npartsupp\nregion\nsupplier\nasia (view)\n";
    let schema = "asia\n  n_name  Utf8View NOT NULL\n";
    assert_eq!(
        stdout,
        format!("{tables}{schema}{ASIA_CSV}[{{\"n\":5}}]\njson\n")
    );
}

/// `tenon` without a command reads statements from a pipe as `tenon
/// shell` does; a statement may span lines and hold `;` in strings and
/// comments, and the last one needs no `;`.
#[test]
fn tenon_alone_reads_statements_from_a_pipe() {
    let script = "\
.mode csv
SELECT 'a;b' AS s, -- not the end;
  /* nor this; */ 2 AS n
;
SELECT 'last' AS l";
    let out = run_piped(&[], script);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{:?}\n{stderr}", out.status);
    assert_eq!(stdout, "s,n\na;b,2\nl\nlast\n");
}

/// A failing statement is reported with its number and line, the shell
/// goes on with the next ones, and the run exits with the first failure's
/// code (2 for bad input, 3 for an execution failure).
#[test]
fn a_failure_is_reported_and_the_shell_goes_on() {
    let script = "\
.mode csv
SELECT 1 AS one;
SELECT *
  FROM nope;
SELECT 1 / 0 AS boom;
SELECT 2 AS two;
";
    let out = run_piped(&["shell"], script);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stdout, "one\n1\ntwo\n2\n");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("error: statement 2 (line 3: `SELECT *`): unknown table `nope`"),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("error: statement 3 (line 5: `SELECT 1 / 0 AS boom`): query failed"),
        "{stderr}"
    );
    // an execution failure first: exit 3
    let out = run_piped(&["shell"], "SELECT 1 / 0;\nSELECT nope;\n");
    assert_eq!(out.status.code(), Some(3), "{}", texts(&out).1);
}

/// `-bail` (sqlite3's spelling) and `--bail` stop at the first failure,
/// with its exit code; a dot command's failure counts too.
#[test]
fn bail_stops_at_the_first_failure() {
    let script = ".mode csv\nSELECT 1 AS one;\nSELECT nope;\nSELECT 2 AS two;\n";
    for args in [&["-bail"][..], &["shell", "-bail"], &["shell", "--bail"]] {
        let out = run_piped(args, script);
        let (stdout, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "one\n1\n", "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    let out = run_piped(&["-bail"], ".mode csv\n.frobnicate\nSELECT 2 AS two;\n");
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with("error: line 2: unknown dot command `.frobnicate`"),
        "{stderr}"
    );
}

/// Dot commands that are unknown or given bad arguments say what to
/// write, and the shell goes on.
#[test]
fn bad_dot_commands_say_what_to_write() {
    let script = "\
.frobnicate
.mode parquet
.timer maybe
.set memory_limit
.set nope=1
.set batch_size=0
.schema nope
.read
.mode csv
SELECT 'still here' AS s;
";
    let out = run_piped(&["shell"], script);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stdout, "s\nstill here\n");
    let lines: Vec<&str> = stderr.lines().collect();
    let expected = [
        "error: line 1: unknown dot command `.frobnicate`: .help lists the commands",
        "error: line 2: unknown mode `parquet`: .mode takes table, csv, json or ndjson",
        "error: line 3: .timer takes on or off (got `maybe`)",
        "error: line 4: expected .set KEY=VALUE",
        "error: line 5: .set nope=1: unknown setting",
        "error: line 6: .set batch_size=0: ",
        "error: line 7: unknown table `nope`",
        "error: line 8: write the file to read: .read FILE",
    ];
    assert_eq!(lines.len(), expected.len(), "{stderr}");
    for (line, start) in lines.iter().zip(expected) {
        assert!(
            line.starts_with(start),
            "{line:?} does not start with {start:?}"
        );
    }
}

/// `.output FILE` sends the results to FILE (complete when `.output`
/// changes), `.output` alone back to stdout; `.read FILE` runs a file's
/// statements and dot commands on the same session, its errors naming the
/// file, statement and line.
#[test]
fn output_and_read() {
    let dir = temp_dir("shell_output_and_read");
    let setup = dir.join("setup.sql");
    std::fs::write(
        &setup,
        "-- the regions\nCREATE VIEW v AS SELECT r_regionkey, r_name FROM region;\n.mode csv\n\
         SELECT r_name FROM v WHERE r_regionkey < 2 ORDER BY r_name;\nSELECT\n  nope;\n",
    )
    .unwrap();
    let out_file = dir.join("out.csv");
    let script = format!(
        ".read {}\n.output {}\nSELECT count(*) AS n FROM v;\nSELECT 'second' AS s;\n\
         .output\nSELECT 'back' AS b;\n",
        setup.display(),
        out_file.display()
    );
    let out = run_piped(&["shell"], &script);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stdout, "r_name\nAFRICA\nAMERICA\nb\nback\n");
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "n\n5\ns\nsecond\n"
    );
    let expected = format!(
        "error: {}: statement 3 (line 5: `SELECT`): ",
        setup.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    // a file that is not there
    let missing = dir.join("missing.sql");
    let out = run_piped(&["shell"], &format!(".read {}\n", missing.display()));
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: line 1: .read {}: cannot read the file",
            missing.display()
        )),
        "{stderr}"
    );

    // a file that reads itself stops at the depth limit
    let itself = dir.join("itself.sql");
    std::fs::write(&itself, format!(".read {}\n", itself.display())).unwrap();
    let out = run_piped(&["shell"], &format!(".read {}\n", itself.display()));
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("read inside each other 16 deep"),
        "{stderr}"
    );
}

/// A run that `-bail` stops leaves the `.output` file as it was (absent
/// here): the file is written completely or not at all.
#[test]
fn a_bailed_run_leaves_no_output_file() {
    let dir = temp_dir("shell_bailed_output");
    let out_file = dir.join("out.csv");
    let script = format!(
        ".output {}\nSELECT 1 AS one;\nSELECT nope;\n",
        out_file.display()
    );
    let out = run_piped(&["--bail"], &script);
    assert_eq!(out.status.code(), Some(2), "{}", texts(&out).1);
    assert!(!out_file.exists(), "a partial file was left");
    let leftovers: Vec<_> = std::fs::read_dir(&*dir).unwrap().flatten().collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    // an output path that cannot be written is an error at `.output`
    let out = run_piped(
        &["shell"],
        &format!(".output {}\nSELECT 1 AS one;\n", dir.display()),
    );
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("error: line 1: cannot write"),
        "{stderr}"
    );
    assert!(stdout.contains("| one |"), "{stdout}");
}

/// `.explain on` prints each query's joins (strategy, build side, why)
/// before its rows; `.set` changes the session's settings; `.timer on`
/// prints the run time on stderr.
#[test]
fn explain_set_and_timer() {
    let join = "SELECT count(*) AS n FROM nation JOIN region ON n_regionkey = r_regionkey;";
    let script = format!(
        ".mode csv\n.explain on\n{join}\n.set disabled_strategies=BROADCAST\n{join}\n\
         .explain off\n.timer on\n{join}\n"
    );
    let out = run_piped(&["shell"], &script);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    let parts: Vec<&str> = stdout.split("n\n25\n").collect();
    assert_eq!(parts.len(), 4, "{stdout}");
    assert!(
        parts[0].starts_with("join 0 (block 0): INNER JOIN"),
        "{stdout}"
    );
    assert!(parts[0].contains(": BROADCAST, build region"), "{stdout}");
    assert!(parts[1].contains(": SHUFFLE_HASH"), "{stdout}");
    assert!(!parts[1].contains("BROADCAST,"), "{stdout}");
    assert_eq!(parts[2], "");
    let timer: Vec<&str> = stderr.lines().collect();
    assert_eq!(timer.len(), 1, "{stderr}");
    let seconds = timer[0]
        .strip_prefix("Run Time: ")
        .and_then(|t| t.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(seconds.parse::<f64>().is_ok(), "{stderr}");
}

/// A `CREATE TABLE` of a built-in TPC-H table's name replaces the
/// built-in table, as in `tenon query`.
#[test]
fn create_table_replaces_a_builtin_table() {
    let dir = temp_dir("shell_replace_builtin");
    let csv = dir.join("nation.csv");
    std::fs::write(&csv, "n_nationkey,n_name\n1,ATLANTIS\n2,LEMURIA\n").unwrap();
    let script = format!(
        ".mode csv\nCREATE TABLE nation (n_nationkey BIGINT, n_name STRING) WITH \
         ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n\
         SELECT n_name FROM nation ORDER BY n_name;\nSELECT count(*) AS r FROM region;\n",
        csv.display()
    );
    let out = run_piped(&["shell"], &script);
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout, "n_name\nATLANTIS\nLEMURIA\nr\n5\n");
}

/// `--table` registers the tables instead of the built-in ones; `--set`,
/// `--threads` and `--batch-size` are checked as `tenon query` checks them.
#[test]
fn options_as_tenon_query_takes_them() {
    let dir = temp_dir("shell_options");
    let csv = dir.join("t.csv");
    std::fs::write(&csv, "k,v\n1,x\n2,y\n").unwrap();
    let table = format!("t={}", csv.display());
    let out = run_piped(
        &[
            "shell",
            "--table",
            &table,
            "--threads",
            "2",
            "--batch-size",
            "1",
        ],
        ".tables\n.mode csv\nSELECT v FROM t ORDER BY k;\n",
    );
    let (stdout, stderr) = texts(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout, "t\nv\nx\ny\n");
    let out = run_piped(&["shell", "--set", "nope=1"], "SELECT 1;\n");
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: --set nope=1: unknown setting"),
        "{stderr}"
    );
    let out = run_piped(&["shell", "--threads", "5000"], "SELECT 1;\n");
    assert_eq!(out.status.code(), Some(2));
    // the shell's options belong to the shell: not before another command
    let out = run_piped(&["--bail", "query", "SELECT 1"], "");
    assert_eq!(out.status.code(), Some(2));
}

/// `--help` and `--version` still work without a command, and list the
/// shell.
#[test]
fn help_and_version_without_a_command() {
    let out = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .arg("--help")
        .output()
        .unwrap();
    let (stdout, _) = texts(&out);
    assert!(out.status.success());
    assert!(stdout.contains("shell"), "{stdout}");
    assert!(stdout.contains("--bail"), "{stdout}");
    let out = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(texts(&out).0.starts_with("tenon "));
}

/// SIGINT stops a shell fed from a pipe: the running query is cancelled
/// (exit 130), and a shell waiting for its next line ends too.
#[test]
fn sigint_stops_a_piped_shell() {
    // `started` printed, then `then` runs (or is waited for) when SIGINT
    // comes; returns the output and how long the shell took to end
    let interrupt = |then: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
            .arg("shell")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run tenon");
        let mut stdin = child.stdin.take().expect("stdin");
        let script = format!(".mode csv\nSELECT 'started' AS s;\n{then}");
        std::io::Write::write_all(&mut stdin, script.as_bytes()).unwrap();
        // stdin stays open: the shell waits for more
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        while line.trim() != "started" {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "no `started`");
        }
        std::thread::sleep(Duration::from_millis(1500));
        let sent = Instant::now();
        let killed = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        drop(stdin);
        (out, rest, took)
    };
    // a query of several seconds (112M pairs), cancelled
    let (out, stdout, took) = interrupt(
        "SELECT count(*) FROM orders a, orders b WHERE a.o_totalprice < b.o_totalprice;\n",
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    // the statement named, as a script's errors name it
    assert_eq!(
        stderr,
        "error: statement 2 (line 3: `SELECT count(*) FROM orders a, orders b WHERE \
         a.o_totalprice < b.o_totalprice`): the query was cancelled\n"
    );
    assert_eq!(stdout, "");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // waiting for a line
    let (out, _, _) = interrupt("");
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(stderr, "error: the shell was interrupted (SIGINT)\n");
}

/// A closed stdout (`tenon < script.sql | head -1`) ends the shell
/// quietly, with exit 0.
#[test]
fn a_closed_stdout_ends_the_shell_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .arg("shell")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tenon");
    let mut stdin = child.stdin.take().expect("stdin");
    let many = ".mode csv\nSELECT l_comment FROM lineitem;\n".repeat(20);
    std::io::Write::write_all(&mut stdin, many.as_bytes()).unwrap();
    drop(stdin);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 10];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
}
