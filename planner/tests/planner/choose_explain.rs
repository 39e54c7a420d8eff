//! The seed documents' join hint examples through SQL (strategy and build
//! side as EXPLAIN reports them), and the `--explain --format json` shape
//! of docs/cli.md: field names, `null`s, order of joins, string escaping.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use tenon_kernels::Strategy;
use tenon_planner::choose::{JoinPlan, plan_joins};
use tenon_planner::config::Config;
use tenon_planner::hints::DecisionSource;
use tenon_planner::sql::{Catalog, TableStats};

use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for (i, t) in ["t1", "t2", "t3", "t4"].into_iter().enumerate() {
        c.register_table_with_stats(
            t,
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int64, true),
                Field::new("a", DataType::Int64, true),
                Field::new("name", DataType::Utf8, true),
            ])),
            TableStats {
                row_count: Some(1000 * (i as u64 + 1)),
                byte_size: None,
                sorted_on: Vec::new(),
                column_bytes: Vec::new(),
                columns: Vec::new(),
            },
        );
    }
    c
}

fn plan(sql: &str) -> JoinPlan {
    plan_joins(sql, &catalog(), &Config::default()).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn chosen(p: &JoinPlan) -> Vec<(Strategy, Option<&str>)> {
    p.joins
        .iter()
        .map(|j| (j.strategy, j.build.as_deref()))
        .collect()
}

// --------------------------------------------- seed documents' examples

/// Every single-join hint example of `flink-sql-hints.ko.txt` (Join Hints
/// and the conflict cases) and FLIP-229, with strategy and build table.
#[test]
fn seed_examples_single_join() {
    let eq = "FROM t1 JOIN t2 ON t1.id = t2.id";
    let cases: &[(&str, Strategy, Option<&str>)] = &[
        ("BROADCAST(t1)", Broadcast, Some("t1")),
        ("SHUFFLE_HASH(t1)", ShuffleHash, Some("t1")),
        ("SHUFFLE_MERGE(t1)", ShuffleMerge, None),
        ("NEST_LOOP(t1)", NestLoop, Some("t1")),
        ("BROADCAST(t2), BROADCAST(t1)", Broadcast, Some("t2")),
        ("BROADCAST(t1,t1)", Broadcast, Some("t1")),
        ("BROADCAST(t2,t1)", Broadcast, Some("t2")),
        (
            "BROADCAST(t2, t1), BROADCAST(t1, t2)",
            Broadcast,
            Some("t2"),
        ),
        ("SHUFFLE_MERGE(t1,t1)", ShuffleMerge, None),
        ("SHUFFLE_MERGE(t2), SHUFFLE_MERGE(t1)", ShuffleMerge, None),
        ("SHUFFLE_MERGE(t2,t1)", ShuffleMerge, None),
        (
            "SHUFFLE_MERGE(t2,t1), SHUFFLE_MERGE(t1,t2)",
            ShuffleMerge,
            None,
        ),
        ("NEST_LOOP(t2), NEST_LOOP(t1)", NestLoop, Some("t2")),
        ("NEST_LOOP(t1,t1)", NestLoop, Some("t1")),
        ("NEST_LOOP(t2,t1)", NestLoop, Some("t2")),
        ("NEST_LOOP(t2,t1), NEST_LOOP(t1,t2)", NestLoop, Some("t2")),
        ("BROADCAST(t1) SHUFFLE_HASH(t1)", Broadcast, Some("t1")),
    ];
    for (hint, strategy, build) in cases {
        let sql = format!("SELECT /*+ {hint} */ * {eq};");
        let p = plan(&sql);
        assert_eq!(chosen(&p), [(*strategy, *build)], "{sql}");
        assert!(
            matches!(p.joins[0].source, DecisionSource::Hint(_)),
            "{sql}"
        );
    }
}

#[test]
fn seed_examples_non_equi_and_full_outer_fall_back() {
    // "... don't support non-equivalent join conditions": nested loop
    for hint in [
        "BROADCAST(t1)",
        "SHUFFLE_HASH(t1)",
        "SHUFFLE_MERGE(t1)",
        "BROADCAST(t1) SHUFFLE_HASH(t1)",
    ] {
        let sql = format!("SELECT /*+ {hint} */ * FROM t1 join t2 ON t1.id > t2.id");
        let p = plan(&sql);
        assert_eq!(p.joins[0].strategy, NestLoop, "{sql}");
        assert_eq!(p.joins[0].source, DecisionSource::Default, "{sql}");
        assert!(!p.joins[0].ignored_hints.is_empty(), "{sql}");
    }
    // "BROADCAST don't support full outer join": the planner chooses
    let p = plan("SELECT /*+ BROADCAST(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id");
    assert_eq!(p.joins[0].source, DecisionSource::Default);
    assert_eq!(p.joins[0].strategy, ShuffleHash);
    // FLIP-229: "BROADCAST(t1) SHUFFLE_HASH(t1)" on FULL OUTER: t1 built
    let p = plan(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id",
    );
    assert_eq!(chosen(&p), [(ShuffleHash, Some("t1"))]);
    let p = plan(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id",
    );
    assert_eq!(p.joins[0].strategy, NestLoop);
    assert_eq!(p.joins[0].ignored_hints.len(), 2);
}

#[test]
fn seed_examples_three_way_joins() {
    let from = "FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id";
    type Expected = [(Strategy, Option<&'static str>); 2];
    let cases: &[(&str, Expected)] = &[
        (
            "BROADCAST(t1, t3)",
            [(Broadcast, Some("t1")), (Broadcast, Some("t3"))],
        ),
        (
            "SHUFFLE_HASH(t1, t3)",
            [(ShuffleHash, Some("t1")), (ShuffleHash, Some("t3"))],
        ),
        (
            "SHUFFLE_MERGE(t1, t3)",
            [(ShuffleMerge, None), (ShuffleMerge, None)],
        ),
        (
            "NEST_LOOP(t1, t3)",
            [(NestLoop, Some("t1")), (NestLoop, Some("t3"))],
        ),
        (
            "BROADCAST(t1,t2,t3)",
            [(Broadcast, Some("t1")), (Broadcast, Some("t3"))],
        ),
        (
            "SHUFFLE_HASH(t1,t2,t3)",
            [(ShuffleHash, Some("t1")), (ShuffleHash, Some("t3"))],
        ),
        (
            "SHUFFLE_MERGE(t1,t2,t3)",
            [(ShuffleMerge, None), (ShuffleMerge, None)],
        ),
        (
            "NEST_LOOP(t1,t2,t3)",
            [(NestLoop, Some("t1")), (NestLoop, Some("t3"))],
        ),
    ];
    for (hint, expected) in cases {
        let sql = format!("SELECT /*+ {hint} */ * {from}");
        assert_eq!(chosen(&plan(&sql)), expected, "{sql}");
    }
}

#[test]
fn seed_example_two_hint_blocks_throw_when_parsed() {
    // FLIP-229: "throw an exception when parse this SQL"
    let e = plan_joins(
        "select /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &catalog(),
        &Config::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("line 1, column 29"), "{e}");
}

// ------------------------------------------------------------ JSON shape

#[test]
fn json_matches_cli_example() {
    let p = plan("SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id");
    assert_eq!(
        p.to_json(),
        r#"{"joins": [{"strategy": "BROADCAST", "join_type": "INNER", "build": "t1", "left": "t1", "right": "t2", "keys": ["t1.id = t2.id"], "reason": "hint BROADCAST(t1) applied", "estimates": {"left": {"rows": 1000, "bytes": 32000}, "right": {"rows": 2000, "bytes": 64000}, "output": {"rows": 2000, "bytes": 128000}}, "ignored_hints": []}]}"#
    );
    check_json(&p.to_json());
}

#[test]
fn json_nulls_ignored_hints_and_order() {
    let p = plan(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 \
         FULL OUTER JOIN t2 ON t1.id = t2.id AND t1.a < t2.a \
         JOIN (SELECT t3.id FROM t3 JOIN t4 ON t3.id = t4.id) s ON t1.id = s.id",
    );
    let json = p.to_json();
    check_json(&json);
    // subquery first, then t1/t2, then (t1/t2)/s
    let order: Vec<(Option<&str>, Option<&str>)> = p
        .joins
        .iter()
        .map(|j| (j.left.as_deref(), j.right.as_deref()))
        .collect();
    assert_eq!(
        order,
        [
            (Some("t3"), Some("t4")),
            (Some("t1"), Some("t2")),
            (None, Some("s"))
        ]
    );
    assert!(json.contains(r#""join_type": "FULL OUTER""#), "{json}");
    assert!(
        json.contains(
            r#""ignored_hints": [{"hint": "BROADCAST(t1)", "why": "BROADCAST does not support a FULL OUTER join"}]"#
        ),
        "{json}"
    );
    assert!(json.contains(r#""left": null, "right": "s""#), "{json}");
    // the text form names every join and its reason
    let text = p.to_text();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("join ")).count(),
        3,
        "{text}"
    );
    assert!(text.contains("hint BROADCAST(t1) ignored"), "{text}");
}

#[test]
fn json_build_null_for_shuffle_merge_and_subtree() {
    let p = plan(
        "SELECT /*+ SHUFFLE_MERGE(t1), NEST_LOOP(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id \
         JOIN t3 ON t2.id = t3.id",
    );
    let json = p.to_json();
    check_json(&json);
    assert!(
        json.contains(r#""strategy": "SHUFFLE_MERGE", "join_type": "INNER", "build": null"#),
        "{json}"
    );
    // the second join: default, no hint names its inputs
    assert_eq!(p.joins[1].source, DecisionSource::Default);
    assert_eq!(p.joins[1].keys, ["t2.id = t3.id"]);
}

#[test]
fn json_escapes_strings() {
    // a quoted alias with a double quote and a backslash in it
    let p = plan(r#"SELECT * FROM t1 JOIN t2 AS "we""ird\" ON t1.id = "we""ird\".id"#);
    let json = p.to_json();
    check_json(&json);
    assert!(json.contains(r#""right": "we\"ird\\""#), "{json}");
}

/// A tiny JSON checker: the text is one well-formed JSON value.
fn check_json(text: &str) {
    fn ws(b: &[u8], i: &mut usize) {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    fn string(b: &[u8], i: &mut usize) -> Result<(), String> {
        if b.get(*i) != Some(&b'"') {
            return Err(format!("string expected at {i}"));
        }
        *i += 1;
        while *i < b.len() {
            match b[*i] {
                b'"' => {
                    *i += 1;
                    return Ok(());
                }
                b'\\' => {
                    match b.get(*i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *i += 2,
                        Some(b'u') => *i += 6,
                        _ => return Err(format!("bad escape at {i}")),
                    };
                }
                c if c < 0x20 => return Err(format!("control character at {i}")),
                _ => *i += 1,
            }
        }
        Err("unterminated string".into())
    }
    fn value(b: &[u8], i: &mut usize) -> Result<(), String> {
        ws(b, i);
        match b.get(*i) {
            Some(b'"') => string(b, i),
            Some(b'{') => {
                *i += 1;
                ws(b, i);
                if b.get(*i) == Some(&b'}') {
                    *i += 1;
                    return Ok(());
                }
                loop {
                    ws(b, i);
                    string(b, i)?;
                    ws(b, i);
                    if b.get(*i) != Some(&b':') {
                        return Err(format!("`:` expected at {i}"));
                    }
                    *i += 1;
                    value(b, i)?;
                    ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            return Ok(());
                        }
                        _ => return Err(format!("`,` or `}}` expected at {i}")),
                    }
                }
            }
            Some(b'[') => {
                *i += 1;
                ws(b, i);
                if b.get(*i) == Some(&b']') {
                    *i += 1;
                    return Ok(());
                }
                loop {
                    value(b, i)?;
                    ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b']') => {
                            *i += 1;
                            return Ok(());
                        }
                        _ => return Err(format!("`,` or `]` expected at {i}")),
                    }
                }
            }
            _ => {
                for lit in ["null", "true", "false"] {
                    if b[*i..].starts_with(lit.as_bytes()) {
                        *i += lit.len();
                        return Ok(());
                    }
                }
                let start = *i;
                while *i < b.len() && (b[*i].is_ascii_digit() || b"-+.eE".contains(&b[*i])) {
                    *i += 1;
                }
                if *i == start {
                    Err(format!("value expected at {start}"))
                } else {
                    Ok(())
                }
            }
        }
    }
    let b = text.as_bytes();
    let mut i = 0;
    value(b, &mut i).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    ws(b, &mut i);
    assert_eq!(i, b.len(), "trailing text after JSON: {text}");
}
