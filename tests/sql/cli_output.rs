//! `tenon query --output` and stdout as a user meets them (issue 14): what
//! kind of file a path names and how each is written (a regular file
//! atomically, through symbolic links; devices and FIFOs directly; `-` and
//! `/dev/stdout` as stdout), SIGINT/SIGTERM during a query, leftovers of a
//! killed process, a closed pipe, a format that cannot hold a column, the
//! bounds of `--threads` and `--batch-size`, SQL that starts with a
//! comment, and a very long cell in the table format.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cli_query::{fails, ok, stderr, stdout, tenon};
use crate::common::*;

const SQL: &str = "SELECT n_nationkey, n_name FROM nation ORDER BY n_nationkey";

/// The CSV of [`SQL`], as stdout gets it.
fn expected_csv() -> String {
    ok(&["--format", "csv", SQL])
}

fn run_to(path: &Path) -> std::process::Output {
    tenon(&["--format", "csv", "--output", path.to_str().unwrap(), SQL])
}

/// The names in `dir` that are tenon's temporary files.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tenon-tmp-"))
        .collect()
}

/// Makes a character device node like /dev/null (1, 3) or /dev/full
/// (1, 7) at `path`, so that the tests never touch the machine's own; `None`
/// where device nodes cannot be made (not root, or a container without
/// CAP_MKNOD).
fn device(path: &Path, minor: u32) -> Option<PathBuf> {
    let made = Command::new("mknod")
        .arg(path)
        .args(["c", "1", &minor.to_string()])
        .status()
        .ok()?;
    (made.success() && path.exists()).then(|| path.to_path_buf())
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn output_to_dev_stdout_or_dash_prints_to_stdout() {
    let expected = expected_csv();
    // A link of the test's own to /dev/stdout, not /dev/stdout itself: the
    // defect replaced the link it was given (as root, /dev/stdout), and a
    // test run before the fix must not break the machine.
    let dir = temp_dir("output-stdout");
    let link = dir.join("stdout");
    std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
    for path in [link.to_str().unwrap(), "-"] {
        let out = tenon(&["--format", "csv", "--output", path, SQL]);
        assert!(out.status.success(), "{path}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{path}");
    }
    assert!(
        std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
        "the link to /dev/stdout was replaced"
    );
    assert!(temp_files(&dir).is_empty(), "{:?}", temp_files(&dir));
    // stdout redirected to a file: the file gets the rows, appended to as
    // the shell's `>>` asks
    let file = dir.join("out.csv");
    std::fs::write(&file, "before\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(["query", "--format", "csv", "--output"])
        .arg(&link)
        .arg(SQL)
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap(),
        )
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("before\n{expected}")
    );
}

#[test]
fn output_to_a_device_is_written_directly_not_replaced() {
    let dir = temp_dir("output-device");
    let Some(null) = device(&dir.join("null"), 3) else {
        eprintln!("skipped: cannot make device nodes here (not root?)");
        return;
    };
    let out = run_to(&null);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(is_char_device(&null), "the device node was replaced");
    assert!(temp_files(&dir).is_empty(), "{:?}", temp_files(&dir));
}

#[test]
fn output_to_dev_full_fails_with_exit_3_and_keeps_the_device() {
    let dir = temp_dir("output-full");
    let Some(full) = device(&dir.join("full"), 7) else {
        eprintln!("skipped: cannot make device nodes here (not root?)");
        return;
    };
    let err = fails(
        &["--format", "csv", "--output", full.to_str().unwrap(), SQL],
        3,
    );
    assert!(
        err.contains("full") && err.contains("No space left"),
        "{err}"
    );
    assert!(is_char_device(&full), "the device node was replaced");
    assert!(temp_files(&dir).is_empty(), "{:?}", temp_files(&dir));
}

#[test]
fn output_to_a_fifo_feeds_its_reader() {
    let dir = temp_dir("output-fifo");
    let fifo = dir.join("rows.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let reader_path = fifo.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = std::fs::File::open(&reader_path).and_then(|mut f| f.read_to_string(&mut text));
        let _ = tx.send(read.map(|_| text));
    });
    let out = run_to(&fifo);
    assert!(out.status.success(), "{}", stderr(&out));
    // a replaced FIFO leaves its reader waiting for ever: a generous
    // timeout turns that into a failure
    let read = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the FIFO's reader got no end of file: was the FIFO replaced?")
        .unwrap();
    assert_eq!(read, expected_csv());
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn output_through_a_symlink_replaces_its_file_and_keeps_the_link() {
    let dir = temp_dir("output-symlink");
    let file = dir.join("real.csv");
    std::fs::write(&file, "old\n").unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let out = run_to(&link);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("real.csv"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected_csv());
    assert!(temp_files(&dir).is_empty(), "{:?}", temp_files(&dir));
}

#[test]
fn output_through_a_dangling_symlink_creates_its_file() {
    let dir = temp_dir("output-dangling");
    std::fs::create_dir(dir.join("sub")).unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(dir.join("sub").join("new.csv"), &link).unwrap();
    let out = run_to(&link);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("sub").join("new.csv")).unwrap(),
        expected_csv()
    );
    assert!(temp_files(&dir.join("sub")).is_empty());
}

#[test]
fn output_to_a_socket_is_refused_and_kept() {
    let dir = temp_dir("output-socket");
    let path = dir.join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let err = fails(
        &["--format", "csv", "--output", path.to_str().unwrap(), SQL],
        3,
    );
    assert!(err.contains("neither a regular file"), "{err}");
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_socket()
    );
}

/// A query that runs for minutes in a debug build, with little memory: a
/// nested loop over 60,175 x 60,175 lineitem pairs with a residual
/// predicate, counted.
const LONG_QUERY: &str = "SELECT count(*) FROM lineitem a JOIN lineitem b \
                          ON a.l_orderkey * b.l_partkey = -1";

/// Starts `tenon query --output PATH LONG_QUERY` and waits until its
/// temporary file exists (so that the query is running).
fn start_long_query(dir: &Path, path: &Path) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(["query", "--format", "csv", "--output"])
        .arg(path)
        .arg(LONG_QUERY)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while temp_files(dir).is_empty() {
        if start.elapsed() > Duration::from_secs(120) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("no temporary file appeared in {}", dir.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // let the query get going
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// Waits for `child` at most `limit`, killing it after that.
/// Waits for `child` as [`wait_at_most`] does, then reads its stderr.
fn wait_with_stderr(child: &mut Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let status = wait_at_most(child, limit);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}

fn wait_at_most(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the process did not end within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigint_and_sigterm_remove_the_temporary_file_and_exit_130_143() {
    for (signal, code, name) in [("-INT", 130, "SIGINT"), ("-TERM", 143, "SIGTERM")] {
        let dir = temp_dir(&format!("output-signal{signal}"));
        let target = dir.join("out.csv");
        let mut child = start_long_query(&dir, &target);
        let sent = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        // promptly: not after the query would have finished
        let (status, err) = wait_with_stderr(&mut child, Duration::from_secs(30));
        assert_eq!(status.code(), Some(code), "{name}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains("cancelled") && err.contains(name),
            "{err}"
        );
        assert!(
            temp_files(&dir).is_empty(),
            "{name}: {:?}",
            temp_files(&dir)
        );
        assert!(!target.exists());
    }
}

#[test]
fn leftover_temporary_file_of_a_dead_process_is_removed_on_the_next_run() {
    let dir = temp_dir("output-leftovers");
    // a process that has ended: its pid is free
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dead = dir.join(format!(".old.csv.tenon-tmp-{}-0", gone.id()));
    std::fs::write(&dead, "partial").unwrap();
    // this test's own process runs: its file is left alone
    let live = dir.join(format!(".old.csv.tenon-tmp-{}-3", std::process::id()));
    std::fs::write(&live, "in progress").unwrap();
    // not tenon's: never touched
    let other = dir.join(".old.csv.tenon-tmp-notapid");
    std::fs::write(&other, "x").unwrap();
    let out = run_to(&dir.join("new.csv"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!dead.exists(), "the dead process's leftover is still there");
    assert!(live.exists() && other.exists());
}

#[test]
fn broken_pipe_ends_quietly_with_exit_0() {
    // `tenon query ... | head -1`: far more than a pipe's buffer of rows
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(["query", "--format", "csv", "SELECT * FROM lineitem"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("l_orderkey,"), "{first}");
    // the reader is gone
    let (status, err) = wait_with_stderr(&mut child, Duration::from_secs(120));
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn csv_and_table_print_a_nested_value_as_text_with_its_nulls() {
    let dir = temp_dir("output-nested");
    let json = dir.join("t.json");
    std::fs::write(
        &json,
        "{\"k\": 1, \"l\": [1, null]}\n{\"k\": 2, \"l\": [3]}\n{\"k\": 3, \"l\": null}\n",
    )
    .unwrap();
    let table = format!("t={}", json.display());
    let sql = "SELECT k, l FROM t ORDER BY k";
    let out = ok(&["--table", &table, "--format", "csv", sql]);
    assert_eq!(out, "k,l\n1,\"[1, NULL]\"\n2,[3]\n3,\n");
    let out = ok(&["--table", &table, "--format", "table", sql]);
    assert!(out.contains("| 1 | [1, NULL] |"), "{out}");
    // the formats with nested values of their own keep them
    let out = ok(&["--table", &table, "--format", "ndjson", sql]);
    assert_eq!(
        out,
        "{\"k\":1,\"l\":[1,null]}\n{\"k\":2,\"l\":[3]}\n{\"k\":3,\"l\":null}\n"
    );
}

#[test]
fn threads_100000_is_an_error_naming_the_cap() {
    let sql = "SELECT count(*) FROM nation";
    for args in [
        vec!["--threads", "100000", sql],
        vec!["--set", "threads=100000", sql],
    ] {
        let err = fails(&args, 2);
        assert!(err.contains("100000") && err.contains("1024"), "{err}");
    }
    let err = fails(&["--batch-size", "100000000", sql], 2);
    assert!(err.contains("1048576"), "{err}");
    let err = fails(&["--set", "batch_size=100000000", sql], 2);
    assert!(err.contains("1048576"), "{err}");
    // at the caps, the query runs
    assert_eq!(
        ok(&[
            "--threads",
            "1024",
            "--batch-size",
            "1048576",
            "--format",
            "csv",
            sql
        ]),
        "count(*)\n25\n"
    );
}

#[test]
fn sql_beginning_with_a_comment_runs() {
    let out = ok(&[
        "--format",
        "csv",
        "-- top nations\nSELECT n_name FROM nation ORDER BY n_nationkey LIMIT 2",
    ]);
    assert_eq!(out, "n_name\nALGERIA\nARGENTINA\n");
    // after the options, and after `--`, too
    let out = ok(&["--format", "csv", "--", "-- c\nSELECT 1 AS x"]);
    assert_eq!(out, "x\n1\n");
}

#[test]
fn a_10mb_cell_in_table_format_is_cut_short_with_a_note() {
    let sql = "SELECT 1 AS k, repeat('x', 10000000) AS s";
    let table = ok(&[sql]);
    assert!(table.len() < 20_000, "{} bytes of table", table.len());
    assert!(table.contains(&format!("{}…", "x".repeat(1000))));
    assert!(
        table.contains("note: 1 cell longer than 1000 characters"),
        "{table}"
    );
    // csv keeps the whole value
    let csv = ok(&["--format", "csv", sql]);
    assert_eq!(csv.len(), "k,s\n1,\n".len() + 10_000_000);
}

#[test]
fn output_to_a_parquet_path_without_format_wrote_a_text_table() {
    let dir = temp_dir("cli-output-extension");
    let parquet = dir.join("nations.parquet");
    ok(&["--output", parquet.to_str().unwrap(), SQL]);
    // the file is Parquet (magic bytes at both ends), and reads back
    let bytes = std::fs::read(&parquet).unwrap();
    assert!(
        bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"),
        "not Parquet: {:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
    );
    let table = format!("p={}", parquet.display());
    let back = ok(&[
        "--table",
        &table,
        "--format",
        "csv",
        "SELECT n_nationkey, n_name FROM p ORDER BY n_nationkey",
    ]);
    assert_eq!(back, expected_csv());
    // .csv is CSV; an explicit --format wins over the extension
    let csv = dir.join("nations.csv");
    ok(&["--output", csv.to_str().unwrap(), SQL]);
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), expected_csv());
    let txt = dir.join("nations.csv.txt");
    ok(&["--format", "csv", "--output", txt.to_str().unwrap(), SQL]);
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), expected_csv());
    // an extension that names no format keeps the table
    let plain = dir.join("nations.txt");
    ok(&["--output", plain.to_str().unwrap(), SQL]);
    assert_eq!(
        std::fs::read_to_string(&plain).unwrap(),
        ok(&[SQL]),
        "a .txt file gets the table stdout gets"
    );
}
