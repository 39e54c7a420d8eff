//! Spill directories are safe to leave to tenon (issue 52): SIGINT and
//! SIGTERM on a spilling `tenon query` remove them, a killed process's are
//! removed by the next process that spills there, they are private to
//! their user, an empty `spill_dir=` is refused, and a spill error's
//! advice fits what happened.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{left_in, temp_dir};

/// A nested loop over lineitem x lineitem that spills under 2MB and runs
/// for minutes in a debug build.
const LONG_SPILLING: &str = "SELECT count(*) FROM lineitem a JOIN lineitem b \
                             ON a.l_orderkey * b.l_partkey = -1";

/// The spill directories in `dir`.
fn spill_dirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tenon-spill-"))
        })
        .collect()
}

/// Starts `tenon query` on [`LONG_SPILLING`] spilling into `spill`, and
/// waits until its spill directory holds a file.
fn start_spilling(spill: &Path) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(["query", "--set", "memory_limit=2MB", "--set"])
        .arg(format!("spill_dir={}", spill.display()))
        .arg(LONG_SPILLING)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let dirs = spill_dirs(spill);
        if dirs
            .iter()
            .any(|d| std::fs::read_dir(d).is_ok_and(|mut e| e.next().is_some()))
        {
            return child;
        }
        if start.elapsed() > Duration::from_secs(120) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "no spill file appeared in {}: {}",
                spill.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait(child: Child) -> (Option<i32>, String) {
    let start = Instant::now();
    let mut child = child;
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            return (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into(),
            );
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the process did not end within 30s of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn sigint_and_sigterm_remove_spill_files() {
    for (sig, code) in [("-INT", 130), ("-TERM", 143)] {
        let spill = temp_dir(&format!("spill-signal{sig}"));
        let child = start_spilling(&spill);
        // private to the user, in a shared parent
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let dir = &spill_dirs(&spill)[0];
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
            for f in std::fs::read_dir(dir).unwrap() {
                let mode = f.unwrap().metadata().unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
        }
        signal(&child, sig);
        let (status, err) = wait(child);
        assert_eq!(status, Some(code), "{err}");
        assert!(err.contains("spill files were removed"), "{err}");
        assert!(left_in(&spill).is_empty(), "{sig}: {:?}", left_in(&spill));
    }
}

#[test]
fn dead_process_spill_directories_removed_at_next_start() {
    let spill = temp_dir("spill-dead");
    let child = start_spilling(&spill);
    signal(&child, "-KILL");
    let _ = wait(child);
    let dead = spill_dirs(&spill);
    assert_eq!(dead.len(), 1, "{dead:?}");
    // a running process's (this test's) and a stranger's are left alone
    let live = spill.join(format!("tenon-spill-{}-7-0", std::process::id()));
    std::fs::create_dir(&live).unwrap();
    let stranger = spill.join("tenon-spill-notapid");
    std::fs::create_dir(&stranger).unwrap();
    let out = crate::cli_query::tenon(&[
        "--set",
        "memory_limit=1MB",
        "--set",
        &format!("spill_dir={}", spill.display()),
        "SELECT /*+ SHUFFLE_HASH(orders) */ count(*) FROM lineitem JOIN orders \
         ON l_orderkey = o_orderkey",
    ]);
    assert!(out.status.success(), "{}", crate::cli_query::stderr(&out));
    assert!(
        !dead[0].exists(),
        "the killed process's spill directory is left"
    );
    assert!(live.exists() && stranger.exists());
}

#[test]
fn empty_spill_dir_is_an_error() {
    let out = crate::cli_query::tenon(&["--set", "spill_dir=", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = crate::cli_query::stderr(&out);
    assert!(
        err.contains("spill_dir") && err.contains("default"),
        "{err}"
    );
}

#[test]
fn spill_error_says_what_happened() {
    let dir = temp_dir("spill-advice");
    let query = "SELECT /*+ SHUFFLE_HASH(orders) */ * FROM lineitem JOIN orders \
                 ON l_orderkey = o_orderkey";
    let run = |settings: &[String]| {
        let mut args: Vec<&str> = vec!["--set", "memory_limit=1MB"];
        for s in settings {
            args.push("--set");
            args.push(s);
        }
        args.push("--format");
        args.push("csv");
        args.push(query);
        let out = crate::cli_query::tenon(&args);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            crate::cli_query::stderr(&out)
        );
        crate::cli_query::stderr(&out)
    };
    // the spill limit: raise it, not free disk space
    let err = run(&[
        format!("spill_dir={}", dir.display()),
        "spill_limit=4KB".into(),
    ]);
    assert!(err.contains("raise spill_limit"), "{err}");
    assert!(!err.contains("free disk space"), "{err}");
    // a directory that cannot be written (a file stands there; a missing
    // directory)
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    for spill_dir in [file.clone(), dir.join("missing")] {
        let err = run(&[format!("spill_dir={}", spill_dir.display())]);
        assert!(err.contains("cannot be written"), "{err}");
        assert!(!err.contains("free disk space"), "{err}");
    }
}
