//! `tenon bench` as a user runs it: output, the planner's choices and
//! regret, `--json` / `--svg` files, `--baseline` exit codes, and errors
//! with exit code 2.

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
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
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
        .map(|l| l.split_whitespace().nth(5).unwrap())
        .collect();
    assert_eq!(rows, ["5000"; 3]);
}

#[test]
fn the_interval_workload_runs_every_strategy_with_one_answer() {
    let out = tenon(&[
        "bench",
        "--workload",
        "interval",
        "--scale",
        "0.005",
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
    let lines: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    let cells: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let strategies: Vec<&str> = cells.iter().map(|c| c[1]).collect();
    assert_eq!(
        strategies,
        ["BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP"],
        "{text}"
    );
    let rows: Vec<&str> = cells.iter().map(|c| c[5]).collect();
    assert!(rows.iter().all(|r| *r == rows[0] && *r != "0"), "{text}");
    assert!(text.contains("hint SHUFFLE_MERGE(build)"), "{text}");
}

#[test]
fn the_asof_workload_runs_its_two_strategies_with_one_answer() {
    let out = tenon(&[
        "bench",
        "--workload",
        "asof",
        "--scale",
        "0.005",
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
    let lines: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    let cells: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let strategies: Vec<&str> = cells.iter().map(|c| c[1]).collect();
    assert_eq!(strategies, ["BROADCAST", "SHUFFLE_MERGE"], "{text}");
    // A LEFT as-of join keeps every trade: 50K rows at scale 0.005.
    let rows: Vec<&str> = cells.iter().map(|c| c[5]).collect();
    assert_eq!(rows, ["50000"; 2], "{text}");
    assert!(text.contains("hint BROADCAST(build)"), "{text}");

    // The hash joins and the nested loop cannot run it.
    let out = tenon(&[
        "bench",
        "--workload",
        "asof",
        "--strategies",
        "SHUFFLE_HASH,NEST_LOOP",
        "--scale",
        "0.0005",
        "--runs",
        "1",
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("asof: none of the strategies asked for can run it")
            && stderr.contains("BROADCAST, SHUFFLE_MERGE"),
        "{stderr}"
    );
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
        .take_while(|l| !l.is_empty())
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

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tenon-cli-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn small_bench(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "bench",
        "--workload",
        "fk_small",
        "--workload",
        "band",
        "--scale",
        "0.0005",
        "--runs",
        "3",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    tenon(&args)
}

/// The JSON file holds every measured run, the planner's default and hinted
/// choices with their regret computed from the medians; the SVG is written.
#[test]
fn json_and_svg_hold_the_runs_choices_and_regret() {
    let dir = temp_dir("json");
    let (json, svg) = (dir.join("r.json"), dir.join("r.svg"));
    let out = small_bench(&[
        "--json",
        json.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("fk_small ")
            && l.split_whitespace().collect::<Vec<_>>()[1..4]
                == ["default", "BROADCAST", "(regret"]),
        "{text}"
    );
    assert!(
        text.contains("hint SHUFFLE_MERGE(build) -> SHUFFLE_MERGE"),
        "{text}"
    );
    let report =
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.settings.runs, 3);
    assert_eq!(report.workloads.len(), 2);
    for w in &report.workloads {
        assert!(w.strategies.iter().all(|s| s.runs_s.len() == 3), "{w:?}");
        let best = w
            .strategies
            .iter()
            .map(|s| s.median_s())
            .fold(f64::INFINITY, f64::min);
        let chosen = w.timing(&w.default.strategy).unwrap().median_s();
        assert!((w.regret(&w.default).unwrap() - chosen / best).abs() < 1e-12);
        assert!(w.regret(&w.default).unwrap() >= 1.0);
    }
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rewrites every run time of a `--json` file with `f(median of that
/// strategy) -> runs`.
fn rewrite_runs(path: &std::path::Path, f: impl Fn(f64) -> Vec<f64>) {
    let mut report =
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    for w in &mut report.workloads {
        for s in &mut w.strategies {
            s.runs_s = f(s.median_s());
        }
    }
    std::fs::write(path, report.to_json()).unwrap();
}

/// `--baseline`: exit 1 naming what regressed when the baseline was far
/// faster (an injected regression); exit 0 when the change is within the
/// baseline's own spread of runs (noise).
#[test]
fn baseline_fails_on_a_regression_and_passes_on_noise() {
    let dir = temp_dir("baseline");
    let base = dir.join("base.json");
    let out = small_bench(&["--json", base.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Injected regression: the baseline 100 times faster, with no spread.
    let fast = dir.join("fast.json");
    std::fs::copy(&base, &fast).unwrap();
    rewrite_runs(&fast, |m| vec![m / 100.0; 3]);
    let out = small_bench(&["--baseline", fast.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("REGRESSED"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("regressed by more than 10%"), "{err}");

    // Noise: the baseline's runs spread from a thousandth to a thousand
    // times its median, so any change short of that is within it (the
    // precise rule is unit-tested in src/bench/compare.rs; sub-millisecond
    // runs on a busy machine vary tenfold).
    let noisy = dir.join("noisy.json");
    std::fs::copy(&base, &noisy).unwrap();
    rewrite_runs(&noisy, |m| vec![m / 1000.0, m, m * 1000.0]);
    let out = small_bench(&[
        "--baseline",
        noisy.to_str().unwrap(),
        "--max-regression",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("no regression")
    );

    // A file that is not a report is a usage error.
    std::fs::write(dir.join("bad.json"), "{\"schema\": 1}").unwrap();
    let out = small_bench(&["--baseline", dir.join("bad.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--data DIR` reads a workload written by `tenon gen synth` instead of
/// generating it; a missing workload folder is a usage error saying how to
/// write it.
#[test]
fn data_dir_reads_gen_synth_output() {
    let dir = temp_dir("data");
    let folder = dir.join("m2n");
    let out = tenon(&[
        "gen",
        "synth",
        "m2n",
        "--rows",
        "2000",
        "--out",
        folder.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = dir.join("r.json");
    let args = [
        "bench",
        "--data",
        dir.to_str().unwrap(),
        "--workload",
        "m2n",
        "--runs",
        "1",
    ];
    let mut with_json = args.to_vec();
    with_json.extend(["--json", json.to_str().unwrap()]);
    let out = tenon(&with_json);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report =
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.workloads[0].probe_rows, 2000);
    assert_eq!(report.workloads[0].build_rows, 2000);

    let out = tenon(&[
        "bench",
        "--data",
        dir.to_str().unwrap(),
        "--workload",
        "nlj",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("tenon gen synth nlj"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--measure instructions` (valgrind's callgrind, one thread): the count
/// of a run repeats (to 0.1%: hash seeds differ per process), goes to the JSON, and `--baseline` compares
/// counts: an injected 50% more instructions in this run fails it.
#[test]
fn instruction_counts_repeat_and_drive_the_baseline() {
    let has_valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_valgrind {
        eprintln!("valgrind is not installed: --measure instructions cannot be checked here");
        let out = tenon(&["bench", "--measure", "instructions", "--workload", "nlj"]);
        assert_eq!(out.status.code(), Some(2));
        return;
    }
    let dir = temp_dir("instructions");
    let json = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "--measure",
            "instructions",
            "--workload",
            "nlj",
            "--scale",
            "0.005",
            "--runs",
            "1",
        ];
        args.extend_from_slice(extra);
        tenon(&args)
    };
    let (a, b) = (json("a.json"), json("b.json"));
    for path in [&a, &b] {
        let out = run(&["--json", path]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let read = |p: &str| {
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (ra, rb) = (read(&a), read(&b));
    let count = |r: &tenon::bench::BenchReport| r.workloads[0].strategies[0].instructions;
    assert!(count(&ra).is_some_and(|n| n > 0), "{ra:?}");
    let (na, nb) = (count(&ra).unwrap() as f64, count(&rb).unwrap() as f64);
    assert!((na - nb).abs() / na < 0.001, "{na} vs {nb}");

    // The baseline had a third fewer instructions: this run is 50% more.
    let mut fewer = ra.clone();
    fewer.workloads[0].strategies[0].instructions = count(&ra).map(|n| n * 2 / 3);
    let base = json("fewer.json");
    std::fs::write(&base, fewer.to_json()).unwrap();
    let out = run(&["--baseline", &base, "--max-regression", "5"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("instructions")
    );
    let out = run(&["--baseline", &a, "--max-regression", "1"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_expansion_workloads_run_on_unnest_with_the_rows_the_arrays_give() {
    let dir = std::env::temp_dir().join(format!("tenon-bench-unnest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("unnest.json");
    let json = json.to_str().unwrap();
    let args = [
        "bench",
        "--workload",
        "unnest",
        "--workload",
        "unnest_left",
        "--scale",
        "0.001",
        "--runs",
        "1",
        "--threads",
        "2",
        "--batch-size",
        "7",
    ];
    let out = tenon(&[&args[..], &["--json", json]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("unnest      UNNEST (no strategy to choose)"),
        "{text}"
    );
    // The rows each form gives, counted from the generated arrays.
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    let t = tenon::datasets::arrays(10_000, 42);
    let arr = t.column(1).as_list::<i32>();
    let lens: Vec<usize> = (0..arr.len())
        .map(|r| {
            if arr.is_null(r) {
                0
            } else {
                arr.value_length(r) as usize
            }
        })
        .collect();
    let cross: usize = lens.iter().sum();
    let left: usize = lens.iter().map(|&n| n.max(1)).sum();
    let report =
        tenon::bench::BenchReport::from_json(&std::fs::read_to_string(json).unwrap()).unwrap();
    let got: Vec<(&str, &str, u64, u64)> = report
        .workloads
        .iter()
        .map(|w| {
            (
                w.workload.as_str(),
                w.strategies[0].strategy.as_str(),
                w.probe_rows,
                w.output_rows,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("unnest", "UNNEST", 10_000, cross as u64),
            ("unnest_left", "UNNEST", 10_000, left as u64)
        ]
    );
    // Compared with itself under a threshold nothing reaches: no regression.
    let out = tenon(
        &[
            &args[..],
            &["--baseline", json, "--max-regression", "100000"],
        ]
        .concat(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("unnest_left UNNEST")
    );

    // A list of join strategies does not run them, and says why.
    let out = tenon(&[
        "bench",
        "--workload",
        "unnest",
        "--strategies",
        "BROADCAST",
        "--scale",
        "0.0005",
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unnest: an expansion, not a join: only UNNEST runs it"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
