//! The shell at a terminal, driven through a pseudo-terminal as a person
//! drives it: keys in (Enter, the up arrow, Ctrl-C, Ctrl-D), the screen's
//! text out (escape codes stripped).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};

use crate::common::temp_dir;

/// How long one expected text may take to show (CI's two cores are slow
/// and shared).
const TIMEOUT_MS: u64 = 120_000;

/// A view for [`LONG_QUERY`], which must fit on one line of the pty's 80
/// columns with the prompt (the line editor wraps longer lines).
const PRICES: &str = "CREATE VIEW p AS SELECT o_totalprice AS t FROM orders;";

/// A query that takes several seconds at scale 0.01 (112M pairs of a
/// nested-loop join, counted), to be cancelled.
const LONG_QUERY: &str = "SELECT count(*) AS pairs FROM p a, p b WHERE a.t < b.t;";

/// `tenon` with no command on a terminal, its history in `history`, at
/// its first prompt.
fn shell(history: &Path) -> PtySession {
    started(history).0
}

/// [`shell`], and what it showed before its first prompt.
fn started(history: &Path) -> (PtySession, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenon"));
    command.env("TENON_HISTORY", history).env("TERM", "xterm");
    let options = Options::new()
        .timeout_ms(Some(TIMEOUT_MS))
        .strip_ansi_escape_codes(true);
    let mut session = spawn_with_options(command, options).expect("start tenon on a pty");
    let banner = expect(&mut session, "Ctrl-D to leave");
    expect(&mut session, "tenon> ");
    (session, banner)
}

/// Waits until `text` shows; returns what showed before it.
#[track_caller]
fn expect(session: &mut PtySession, text: &str) -> String {
    session
        .exp_string(text)
        .unwrap_or_else(|e| panic!("waiting for {text:?}: {e}"))
}

/// Types `keys` (`\r` is Enter).
#[track_caller]
fn keys(session: &mut PtySession, keys: &str) {
    session.send(keys).expect("type");
    session.flush().expect("type");
}

/// A person's session: a statement over two lines, recalled with the up
/// arrow and run again; `.timer on`; Ctrl-C during a long query cancels it
/// and the prompt comes back at once, ready for the next query; Ctrl-C at
/// the prompt drops the line being typed; Ctrl-D leaves with exit 0. The
/// history file keeps the statements for the next session.
#[test]
fn a_person_at_the_terminal() {
    let dir = temp_dir("shell_terminal");
    let history = dir.join("history");
    let mut s = shell(&history);

    // a statement over two lines: the continuation prompt, then the rows
    keys(&mut s, "SELECT n_name\r");
    expect(&mut s, "   ...> ");
    keys(&mut s, "FROM nation WHERE n_nationkey = 7;\r");
    expect(&mut s, "| GERMANY |");
    expect(&mut s, "tenon> ");

    // the up arrow brings the whole statement back; Enter runs it again
    keys(&mut s, "\x1b[A");
    expect(&mut s, "FROM nation WHERE n_nationkey = 7;");
    keys(&mut s, "\r");
    expect(&mut s, "| GERMANY |");
    expect(&mut s, "tenon> ");

    // .timer on: each statement's run time
    keys(&mut s, ".timer on\r");
    expect(&mut s, "tenon> ");
    keys(&mut s, "SELECT 6 * 7 AS answer;\r");
    expect(&mut s, "| 42     |");
    s.exp_regex(r"Run Time: \d+\.\d{3} s")
        .expect("the run time after the query");
    expect(&mut s, "tenon> ");

    // Ctrl-C during a long query cancels it, and the prompt comes back
    keys(&mut s, ".timer off\r");
    expect(&mut s, "tenon> ");
    keys(&mut s, &format!("{PRICES}\r"));
    expect(&mut s, "tenon> ");
    keys(&mut s, &format!("{LONG_QUERY}\r"));
    expect(&mut s, LONG_QUERY);
    // the query is running (the terminal is in cooked mode: Ctrl-C is SIGINT)
    std::thread::sleep(Duration::from_millis(2000));
    let pressed = Instant::now();
    s.send_control('c').expect("Ctrl-C");
    let shown = expect(&mut s, "error: the query was cancelled");
    assert!(!shown.contains("pairs"), "the query finished: {shown}");
    expect(&mut s, "tenon> ");
    let took = pressed.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "the prompt came back after {took:?}"
    );
    // the next query runs
    keys(&mut s, "SELECT 'after' AS next;\r");
    expect(&mut s, "| after |");
    expect(&mut s, "tenon> ");

    // Ctrl-C at the prompt drops the line being typed, also a statement
    // of several lines: the next statement runs alone
    keys(&mut s, "SELECT 'dropped'");
    expect(&mut s, "SELECT 'dropped'");
    s.send_control('c').expect("Ctrl-C");
    expect(&mut s, "tenon> ");
    keys(&mut s, "SELECT\r");
    expect(&mut s, "   ...> ");
    s.send_control('c').expect("Ctrl-C");
    expect(&mut s, "tenon> ");
    keys(&mut s, "SELECT 'kept' AS fresh;\r");
    let shown = expect(&mut s, "| kept  |");
    assert!(!shown.contains("error"), "{shown}");
    expect(&mut s, "tenon> ");

    // Ctrl-D at an empty prompt leaves, with exit 0
    s.send_control('d').expect("Ctrl-D");
    s.exp_eof().expect("the shell ends");
    match s.process().wait() {
        Ok(WaitStatus::Exited(_, code)) => assert_eq!(code, 0),
        other => panic!("the shell ended with {other:?}"),
    }

    // the history file holds each statement as one entry
    let kept = std::fs::read_to_string(&history).expect("the history file");
    assert!(
        kept.contains("SELECT n_name\\nFROM nation WHERE n_nationkey = 7;"),
        "{kept}"
    );
    assert!(kept.contains(".timer on"), "{kept}");
    assert!(!kept.contains("dropped"), "{kept}");

    // ... and the next session recalls them
    let mut s = shell(&history);
    keys(&mut s, "\x1b[A");
    expect(&mut s, "SELECT 'kept' AS fresh;");
    keys(&mut s, "\r");
    expect(&mut s, "| kept  |");
    expect(&mut s, "tenon> ");
    keys(&mut s, ".quit\r");
    s.exp_eof().expect("the shell ends");
    match s.process().wait() {
        Ok(WaitStatus::Exited(_, code)) => assert_eq!(code, 0),
        other => panic!("the shell ended with {other:?}"),
    }
}

/// A history file that cannot be read or written is a warning: the shell
/// works, with the history of the session.
#[test]
fn an_unwritable_history_file_is_a_warning() {
    let dir = temp_dir("shell_history_warning");
    // a directory where the file should be
    let history = dir.join("not-a-file");
    std::fs::create_dir(&history).unwrap();
    let (mut s, banner) = started(&history);
    assert!(
        banner.contains(&format!(
            "warning: cannot read the history file {}",
            history.display()
        )),
        "{banner}"
    );
    keys(&mut s, "SELECT 1 AS one;\r");
    expect(&mut s, "| 1   |");
    keys(&mut s, "\x1b[A");
    expect(&mut s, "SELECT 1 AS one;");
    keys(&mut s, "\r");
    expect(&mut s, "| 1   |");
    expect(&mut s, "tenon> ");
    s.send_control('d').expect("Ctrl-D");
    let shown = s.exp_eof().expect("the shell ends");
    match s.process().wait() {
        Ok(WaitStatus::Exited(_, code)) => assert_eq!(code, 0, "{shown}"),
        other => panic!("the shell ended with {other:?}"),
    }
    assert!(history.is_dir());

    // a file in a directory that does not exist: read as empty, and the
    // first entry's write warns once
    let history = dir.join("missing").join("history");
    let (mut s, banner) = started(&history);
    assert!(!banner.contains("warning"), "{banner}");
    keys(&mut s, "SELECT 1 AS one;\r");
    expect(
        &mut s,
        &format!(
            "warning: cannot write the history file {}",
            history.display()
        ),
    );
    expect(&mut s, "| 1   |");
    keys(&mut s, "SELECT 2 AS two;\r");
    let shown = expect(&mut s, "| 2   |");
    assert!(!shown.contains("warning"), "warned twice: {shown}");
    keys(&mut s, ".quit\r");
    s.exp_eof().expect("the shell ends");
    match s.process().wait() {
        Ok(WaitStatus::Exited(_, code)) => assert_eq!(code, 0),
        other => panic!("the shell ended with {other:?}"),
    }
}
