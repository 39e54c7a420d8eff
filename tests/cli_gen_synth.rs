//! `tenon gen synth` as a user runs it: the files it writes, their
//! determinism, and usage errors with exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arrow_array::RecordBatch;
use arrow_select::concat::concat_batches;
use tenon::datasets::{Workload, generate};
use tenon::io::read_table;

fn tenon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(args)
        .output()
        .expect("run tenon")
}

/// An empty directory for one test (removed first if a previous run left
/// it behind).
fn fresh_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_gen_synth-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tenon gen synth ARGS --out DIR` and asserts success.
fn gen_synth(args: &[&str], out: &Path) -> String {
    let mut all = vec!["gen", "synth"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let output = tenon(&all);
    assert!(
        output.status.success(),
        "tenon {all:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Not a terminal: no progress noise on stderr.
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The whole table at `path`, as one batch.
fn read(path: &Path) -> RecordBatch {
    let table = read_table(path, 8192).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    concat_batches(&table.schema, &table.batches).unwrap()
}

fn column_names(batch: &RecordBatch) -> Vec<String> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

/// The build rows `generate` makes for `probe_rows` probe rows of
/// `workload`: the full build size scaled by the same factor, rounded, at
/// least 1.
fn expected_build_rows(workload: Workload, probe_rows: usize) -> usize {
    let (full_probe, full_build) = workload.full_size();
    ((full_build as f64 * probe_rows as f64 / full_probe as f64).round() as usize).max(1)
}

#[test]
fn fk_small_parquet_and_csv_have_the_requested_rows_and_columns() {
    let dir = fresh_dir("fk_small");
    let build_rows = expected_build_rows(Workload::FkSmall, 1000);
    assert_eq!(build_rows, 1);
    let generated = generate(Workload::FkSmall, 1000.0 / 10_000_000.0, 42);
    for format in ["parquet", "csv"] {
        let out = dir.join(format);
        let stdout = gen_synth(&["fk_small", "--rows", "1000", "--format", format], &out);
        let probe_path = out.join(format!("probe.{format}"));
        let build_path = out.join(format!("build.{format}"));
        // One line per file: name, rows and path.
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{stdout}");
        assert!(lines[0].contains("1000 rows"), "{stdout}");
        assert!(
            lines[0].contains(&probe_path.display().to_string()),
            "{stdout}"
        );
        assert!(lines[1].contains(&format!("{build_rows} rows")), "{stdout}");
        assert!(
            lines[1].contains(&build_path.display().to_string()),
            "{stdout}"
        );

        let probe = read(&probe_path);
        let build = read(&build_path);
        assert_eq!(probe.num_rows(), 1000);
        assert_eq!(build.num_rows(), build_rows);
        assert_eq!(column_names(&probe), ["k", "p", "s"]);
        assert_eq!(column_names(&build), ["k", "p", "s"]);
        // The files hold exactly the generator's data (same names, types
        // and values).
        assert_eq!(probe.columns(), generated.probe.columns(), "{format}");
        assert_eq!(build.columns(), generated.build.columns(), "{format}");
        // Nothing else in the directory (no temporary files left over).
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [format!("build.{format}"), format!("probe.{format}")]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_side_scales_with_the_probe_rows_and_extra_columns_are_kept() {
    let dir = fresh_dir("ratio");
    // fk_medium: 10 probe rows per build row; band: 1:1 with a `t` column.
    let out = dir.join("fk_medium");
    gen_synth(&["fk_medium", "--rows", "1000"], &out);
    assert_eq!(read(&out.join("probe.parquet")).num_rows(), 1000);
    assert_eq!(read(&out.join("build.parquet")).num_rows(), 100);

    let out = dir.join("band");
    gen_synth(&["band", "--rows", "500", "--format", "arrow"], &out);
    let probe = read(&out.join("probe.arrow"));
    let build = read(&out.join("build.arrow"));
    assert_eq!(probe.num_rows(), 500);
    assert_eq!(build.num_rows(), expected_build_rows(Workload::Band, 500));
    assert_eq!(column_names(&probe), ["k", "p", "s", "t"]);
    assert_eq!(column_names(&build), ["k", "p", "s", "t"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_seed_gives_identical_bytes_and_another_seed_other_data() {
    let dir = fresh_dir("seed");
    // fk_medium: at 1000 rows fk_small has a single key, so its data does
    // not depend on the seed; fk_medium's 100 build keys do.
    let run = |name: &str, seed: &str| {
        let out = dir.join(name);
        gen_synth(&["fk_medium", "--rows", "1000", "--seed", seed], &out);
        let bytes = |file: &str| std::fs::read(out.join(file)).unwrap();
        (bytes("probe.parquet"), bytes("build.parquet"))
    };
    let first = run("a", "7");
    let again = run("b", "7");
    let other = run("c", "8");
    assert!(first == again, "seed 7 twice gave different files");
    assert_ne!(first.0, other.0, "seeds 7 and 8 gave the same probe file");
    assert_ne!(first.1, other.1, "seeds 7 and 8 gave the same build file");

    // The default seed is 42.
    let out = dir.join("default");
    gen_synth(&["fk_medium", "--rows", "1000"], &out);
    let out42 = dir.join("42");
    gen_synth(&["fk_medium", "--rows", "1000", "--seed", "42"], &out42);
    for file in ["probe.parquet", "build.parquet"] {
        assert!(
            std::fs::read(out.join(file)).unwrap() == std::fs::read(out42.join(file)).unwrap(),
            "{file}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `tenon ARGS`, expects exit code 2 and nothing written, and returns
/// stderr.
fn usage_error(args: &[&str], out: &Path) -> String {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let output = tenon(&all);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "tenon {all:?}: {stderr}");
    assert!(output.stdout.is_empty());
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!out.exists(), "tenon {all:?} created {}", out.display());
    stderr
}

#[test]
fn bad_usage_exits_with_code_2_and_says_what_is_wrong() {
    let dir = fresh_dir("usage");
    let out = dir.join("never");

    let stderr = usage_error(&["gen", "synth", "fk_tiny", "--rows", "10"], &out);
    assert!(stderr.contains("fk_tiny"), "{stderr}");
    for workload in Workload::ALL {
        assert!(stderr.contains(workload.name()), "{stderr}");
    }

    let stderr = usage_error(&["gen", "synth", "fk_small", "--rows", "0"], &out);
    assert!(stderr.contains("--rows 0"), "{stderr}");
    assert!(stderr.contains("at least 1"), "{stderr}");

    // nlj: 20K probe rows at full size, so at most 200K.
    let stderr = usage_error(&["gen", "synth", "nlj", "--rows", "200001"], &out);
    assert!(stderr.contains("at most 200000"), "{stderr}");

    let stderr = usage_error(&["gen", "synth", "nlj", "--rows", "ten"], &out);
    assert!(stderr.contains("ten"), "{stderr}");

    let stderr = usage_error(&["gen", "synth", "nlj", "--format", "json"], &out);
    assert!(stderr.contains("json"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `presorted` is fk_medium with both sides in ascending key order: the
/// same rows as fk_medium with that seed, sorted.
#[test]
fn presorted_is_fk_medium_sorted_on_the_key() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    let dir = fresh_dir("presorted");
    gen_synth(&["presorted", "--rows", "1000"], &dir);
    let tables = generate(Workload::FkMedium, 1000.0 / 10_000_000.0, 42);
    for (name, want) in [("probe", &tables.probe), ("build", &tables.build)] {
        let got = read(&dir.join(format!("{name}.parquet")));
        assert_eq!(got.num_rows(), want.num_rows(), "{name}");
        let keys = got.column(0).as_primitive::<Int64Type>().values().to_vec();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{name} not sorted");
        let mut want_keys = want.column(0).as_primitive::<Int64Type>().values().to_vec();
        want_keys.sort_unstable();
        assert_eq!(keys, want_keys, "{name}: other keys than fk_medium's");
    }
}
