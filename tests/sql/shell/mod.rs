//! `tenon shell` (and `tenon` alone) as a person and a script use it
//! (docs/cli.md, "Shell"): at a terminal, driven through a pseudo-terminal
//! by keys (`terminal`), and fed from a pipe (`piped`).

mod piped;
mod terminal;

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

/// Runs `tenon ARGS...` with `input` on its standard input (a pipe), and
/// asserts that it did not panic.
pub(crate) fn run_piped(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tenon");
    let mut stdin = child.stdin.take().expect("stdin");
    // a shell that stops early (--bail) may close its input first
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait for tenon");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "tenon {args:?} panicked:\n{err}"
    );
    out
}

/// The output's stdout and stderr as text.
pub(crate) fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
