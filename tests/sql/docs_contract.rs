//! The contracts in `docs/` stay true to the code that cites them: every
//! rule ID (`H15`, `J06`, ...) cited in the workspace's Rust sources is
//! defined in `docs/hints.md`, every rule defined there has a test named
//! after it, and every option `tenon query`, `tenon shell`, `tenon bench`
//! and `tenon gen` print in `--help` is described in `docs/cli.md`, and
//! every Flink function tenon defines itself is in `docs/functions.md`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the `tenon` crate's manifest directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Every `*.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The rule IDs in `text`: `H`, `J` or `C` and two digits, standing alone
/// (not inside a longer word or number).
fn rule_ids(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut ids = BTreeSet::new();
    for i in 0..b.len().saturating_sub(2) {
        if matches!(b[i], b'H' | b'J' | b'C')
            && b[i + 1].is_ascii_digit()
            && b[i + 2].is_ascii_digit()
            && (i == 0 || !word(b[i - 1]))
            && b.get(i + 3).is_none_or(|&c| !word(c))
        {
            ids.insert(text[i..i + 3].to_string());
        }
    }
    ids
}

/// The rule IDs `docs/hints.md` defines: a line that starts with the ID
/// and a period (`H15. Without a valid hint ...`).
fn defined_ids() -> BTreeSet<String> {
    read(&root().join("docs/hints.md"))
        .lines()
        .filter_map(|l| {
            let id = l.get(..3)?;
            (l[3..].starts_with('.') && rule_ids(id).contains(id)).then(|| id.to_string())
        })
        .collect()
}

#[test]
fn rule_ids_are_found_standing_alone() {
    let ids = rule_ids("H15, J06 and (H30–H32); not H1, H123, SH15, H15a, C3PO");
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(ids, ["H15", "H30", "H32", "J06"]);
}

#[test]
fn every_rule_id_the_code_cites_is_defined_in_docs_hints_md() {
    let defined = defined_ids();
    assert!(defined.len() > 30, "docs/hints.md defines {defined:?}");
    let mut files = Vec::new();
    for dir in ["src", "planner", "kernels", "datasets", "tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut undefined = Vec::new();
    for file in &files {
        for id in rule_ids(&read(file)) {
            if !defined.contains(&id) {
                undefined.push(format!("{id} in {}", file.display()));
            }
        }
    }
    assert!(
        undefined.is_empty(),
        "cited but not defined in docs/hints.md: {undefined:?}"
    );
}

#[test]
fn every_rule_of_docs_hints_md_has_a_test_named_after_it() {
    let mut files = Vec::new();
    for dir in ["tests", "planner/tests", "kernels/tests"] {
        rust_files(&root().join(dir), &mut files);
    }
    let tests: String = files.iter().map(|f| read(f)).collect();
    let untested: Vec<String> = defined_ids()
        .into_iter()
        .filter(|id| !tests.contains(&format!("fn {}_", id.to_lowercase())))
        .collect();
    assert!(untested.is_empty(), "rules without a test: {untested:?}");
}

/// The long options (`--name`) of `tenon ARGS --help`.
fn help_options(args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(args)
        .arg("--help")
        .output()
        .expect("run tenon");
    assert!(out.status.success(), "tenon {args:?} --help failed");
    let text = String::from_utf8(out.stdout).expect("UTF-8 help");
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            let l = match l.split_once(", ") {
                Some((short, rest)) if short.len() == 2 && short.starts_with('-') => rest,
                _ => l,
            };
            let name = l.strip_prefix("--")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            Some(format!("--{}", &name[..end]))
        })
        .filter(|o| o != "--help" && o != "--version")
        .collect()
}

#[test]
fn every_option_of_the_help_texts_is_in_docs_cli_md() {
    let doc = read(&root().join("docs/cli.md"));
    let mut missing = Vec::new();
    for command in [
        &["query"][..],
        &["shell"],
        &["bench"],
        &["gen", "tpch"],
        &["gen", "synth"],
        &["worker"],
    ] {
        let options = help_options(command);
        assert!(!options.is_empty(), "no options found for {command:?}");
        for option in options {
            if !doc.contains(&option) {
                missing.push(format!("tenon {} {option}", command.join(" ")));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/cli.md: {missing:?}");
}

#[test]
fn every_flink_function_tenon_defines_is_in_docs_functions_md() {
    let doc = read(&root().join("docs/functions.md"));
    let names = tenon::planner::expr::flink::function_names();
    assert!(names.len() > 20, "{names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !doc.contains(&format!("`{}", n.to_uppercase())))
        .collect();
    assert!(missing.is_empty(), "not in docs/functions.md: {missing:?}");
}
