//! docs/hints.md §1 (H01–H07): finding hint comments in SQL text and parsing
//! them by the Calcite hint grammar. Each test is named after the rule it
//! pins down.

use proptest::prelude::*;
use tenon_planner::hints::{
    HintArgs, HintComment, HintError, HintName, HintPlacement, KeyValue, OptionValue, Position,
    find_hint_comments, parse_hints,
};

/// The position of a parse error of `sql`'s only hint comment.
fn error_of(sql: &str) -> HintError {
    match find_hint_comments(sql) {
        Ok(found) => found[0].parse().expect_err("expected a hint error"),
        Err(e) => e,
    }
}

fn at(e: &HintError) -> (u64, u64) {
    let p = e.position().expect("error with a position");
    (p.line, p.column)
}

fn list(hint: &tenon_planner::hints::Hint) -> Vec<OptionValue> {
    match &hint.args {
        HintArgs::List(opts) => opts.iter().map(|o| o.value.clone()).collect(),
        other => panic!("not a list: {other:?}"),
    }
}

fn ident(name: &str, quoted: bool) -> OptionValue {
    OptionValue::Identifier {
        name: name.into(),
        quoted,
    }
}

// ---------------------------------------------------------------- H01

#[test]
fn h01_hint_block_directly_after_select_is_a_query_hint() {
    let sql = "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
    let found = find_hint_comments(sql).unwrap();
    assert_eq!(found.len(), 1);
    let c = &found[0];
    assert_eq!(c.placement, HintPlacement::QueryBlock);
    assert_eq!(c.position, Position::new(1, 8));
    assert_eq!(c.anchor, Position::new(1, 1));
    assert_eq!(&sql[c.span.clone()], "/*+ BROADCAST(t1) */");
    assert_eq!(c.text, " BROADCAST(t1) ");
    let hints = c.parse().unwrap();
    assert_eq!(hints[0].to_string(), "BROADCAST(t1)");
}

#[test]
fn h01_hints_in_a_block_separated_by_commas_or_white_space() {
    for text in [
        "BROADCAST(t1) SHUFFLE_HASH(t1)",
        "BROADCAST(t1), SHUFFLE_HASH(t1)",
        "BROADCAST(t1)SHUFFLE_HASH(t1)",
        "\n  BROADCAST(t1)\n\tSHUFFLE_HASH(t1)\n",
    ] {
        let hints = parse_hints(text, Position::new(1, 11)).unwrap();
        let names: Vec<_> = hints.iter().map(|h| h.name).collect();
        assert_eq!(
            names,
            [HintName::Broadcast, HintName::ShuffleHash],
            "{text:?}"
        );
    }
}

#[test]
fn h01_query_hints_of_each_select_of_a_statement() {
    let sql = "SELECT /*+ BROADCAST(a) */ * FROM a JOIN (SELECT /*+ NEST_LOOP(c) */ * FROM b \
               JOIN c ON b.x < c.x) s ON a.id = s.id UNION ALL SELECT /*+ SHUFFLE_MERGE(d) */ * FROM d";
    let found = find_hint_comments(sql).unwrap();
    assert_eq!(found.len(), 3);
    assert!(
        found
            .iter()
            .all(|c| c.placement == HintPlacement::QueryBlock)
    );
    let anchors: Vec<_> = found.iter().map(|c| c.anchor).collect();
    assert_eq!(
        anchors[1],
        Position::new(1, sql.find("SELECT /*+ NEST").unwrap() as u64 + 1)
    );
}

// ---------------------------------------------------------------- H02

#[test]
fn h02_name_only_form() {
    let h = parse_hints("BROADCAST", Position::new(1, 1)).unwrap();
    assert_eq!(h[0].name, HintName::Broadcast);
    assert_eq!(h[0].args, HintArgs::None);
}

#[test]
fn h02_list_form_takes_identifiers_numbers_and_strings() {
    let h = parse_hints("MULTI_JOIN(t1, 42, 'My Table', 1.5e3)", Position::new(1, 1)).unwrap();
    assert_eq!(
        list(&h[0]),
        [
            ident("t1", false),
            OptionValue::Number("42".into()),
            OptionValue::String("My Table".into()),
            OptionValue::Number("1.5e3".into()),
        ]
    );
}

#[test]
fn h02_key_value_form_keys_are_identifiers_or_strings_values_strings() {
    let h = parse_hints(
        "LOOKUP('table'='Customers', async = 'true', 'it''s'='a''b')",
        Position::new(1, 1),
    )
    .unwrap();
    let HintArgs::KeyValues(kvs) = &h[0].args else {
        panic!("not key-value: {:?}", h[0].args)
    };
    let pairs: Vec<_> = kvs
        .iter()
        .map(|KeyValue { key, value, .. }| (key.as_str(), value.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [("table", "Customers"), ("async", "true"), ("it's", "a'b")]
    );
    assert_eq!(
        h[0].to_string(),
        "LOOKUP('table'='Customers', 'async'='true', 'it''s'='a''b')"
    );
}

#[test]
fn h02_printed_hints_parse_back_to_the_same_hints() {
    let text = "broadcast(T1, \"Mixed\", `back`), OPTIONS('a.b'='1'), NEST_LOOP";
    let hints = parse_hints(text, Position::new(1, 1)).unwrap();
    for h in &hints {
        let again = parse_hints(&h.to_string(), Position::new(1, 1)).unwrap();
        assert_eq!(again[0].name, h.name);
        assert_eq!(again[0].args.clone().strip(), h.args.clone().strip());
    }
}

trait Strip {
    fn strip(self) -> Vec<String>;
}

impl Strip for HintArgs {
    fn strip(self) -> Vec<String> {
        match self {
            HintArgs::None => vec![],
            HintArgs::List(o) => o.into_iter().map(|o| format!("{:?}", o.value)).collect(),
            HintArgs::KeyValues(kv) => kv
                .into_iter()
                .map(|k| format!("{}={}", k.key, k.value))
                .collect(),
        }
    }
}

// ---------------------------------------------------------------- H03

#[test]
fn h03_hint_names_are_case_insensitive() {
    for text in [
        "broadcast(t1)",
        "Broadcast(t1)",
        "BROADCAST(t1)",
        "bRoAdCaSt(t1)",
    ] {
        let h = parse_hints(text, Position::new(1, 1)).unwrap();
        assert_eq!(h[0].name, HintName::Broadcast, "{text}");
    }
    let h = parse_hints(
        "shuffle_hash(a) Shuffle_Merge(a) nest_loop(a)",
        Position::new(1, 1),
    )
    .unwrap();
    assert_eq!(
        h.iter().map(|h| h.name).collect::<Vec<_>>(),
        [
            HintName::ShuffleHash,
            HintName::ShuffleMerge,
            HintName::NestLoop
        ]
    );
}

#[test]
fn h03_unknown_hint_name_is_an_error_listing_the_known_ones() {
    let e = error_of("SELECT /*+ BROADCAST(t1), HASH_JOIN(t1) */ * FROM t1");
    assert_eq!(at(&e), (1, 27));
    assert_eq!(
        e.to_string(),
        "unknown hint `HASH_JOIN` at line 1, column 27: the known hints are BROADCAST, \
         SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP, OPTIONS, MULTI_JOIN, LOOKUP, STATE_TTL"
    );
}

#[test]
fn h03_unquoted_table_names_fold_to_lower_case_quoted_keep_case() {
    let h = parse_hints(
        "BROADCAST(Orders, \"Orders\", `LineItem`, 'Nation')",
        Position::new(1, 1),
    )
    .unwrap();
    assert_eq!(h[0].names(), ["orders", "Orders", "LineItem", "Nation"]);
    assert_eq!(
        list(&h[0])[..2],
        [ident("orders", false), ident("Orders", true)]
    );
    // Escaped quotes inside a quoted identifier.
    let h = parse_hints("BROADCAST(\"a\"\"b\")", Position::new(1, 1)).unwrap();
    assert_eq!(h[0].names(), ["a\"b"]);
}

// ---------------------------------------------------------------- H04

#[test]
fn h04_two_hint_blocks_in_one_query_block_are_an_error() {
    let e = find_hint_comments(
        "select /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t3 on t1.a = t2.a",
    )
    .unwrap_err();
    assert_eq!(
        e,
        HintError::MultipleHintBlocks {
            position: Position::new(1, 29),
            first: Position::new(1, 8),
        }
    );
    assert!(e.to_string().contains("merge them into one"), "{e}");
}

#[test]
fn h04_two_blocks_separated_by_a_plain_comment_or_lines_are_still_two() {
    let e = find_hint_comments("SELECT /*+ A */\n/* note */\n/*+ B */ * FROM t").unwrap_err();
    assert!(
        matches!(e, HintError::MultipleHintBlocks { position, .. } if position == Position::new(3, 1))
    );
}

#[test]
fn h04_one_block_per_query_block_each_select_may_have_its_own() {
    let found = find_hint_comments(
        "SELECT /*+ BROADCAST(s) */ * FROM (SELECT /*+ NEST_LOOP(b) */ * FROM a, b) s JOIN t ON s.x = t.x",
    )
    .unwrap();
    assert_eq!(found.len(), 2);
}

#[test]
fn h04_two_option_blocks_after_one_table_are_an_error() {
    let e = find_hint_comments("SELECT * FROM t /*+ OPTIONS('a'='1') */ /*+ OPTIONS('b'='2') */")
        .unwrap_err();
    assert!(matches!(e, HintError::MultipleHintBlocks { .. }), "{e}");
}

// ---------------------------------------------------------------- H05

#[test]
fn h05_unclosed_hint_comment_points_at_its_start() {
    let e = find_hint_comments(
        "SELECT a\nFROM t1 JOIN t2 ON t1.a = t2.a\nWHERE 1 = 1 AND /*+ BROADCAST(t1)",
    )
    .unwrap_err();
    assert_eq!(
        e,
        HintError::UnclosedComment {
            position: Position::new(3, 17)
        }
    );
    assert_eq!(
        e.to_string(),
        "unclosed hint comment starting at line 3, column 17: expected `*/` before the end of \
         the SQL text"
    );
    let e = find_hint_comments("SELECT /*+ BROADCAST(t1) * FROM t1").unwrap_err();
    assert_eq!(at(&e), (1, 8));
}

#[test]
fn h05_bad_token_points_at_the_character() {
    let e = error_of("SELECT /*+ BROADCAST(t1; t2) */ * FROM t1");
    assert_eq!(at(&e), (1, 24));
    assert!(e.to_string().contains("unexpected character `;`"), "{e}");
    assert!(e.to_string().contains("expected"), "{e}");
}

#[test]
fn h05_missing_close_paren_points_at_the_end_of_the_block() {
    let e = error_of("SELECT /*+ BROADCAST(t1, t2 */ * FROM t1");
    assert_eq!(at(&e), (1, 29));
    assert_eq!(
        e.to_string(),
        "malformed hint at line 1, column 29: missing `)`: expected `,` or `)` to close the `(` \
         of BROADCAST at line 1, column 21, found the end of the hint block"
    );
    // Something else where `)` belongs.
    let e = error_of("SELECT /*+ BROADCAST(t1 t2) */ * FROM t1");
    assert_eq!(at(&e), (1, 25));
    assert!(e.to_string().contains("expected `,` or `)`"), "{e}");
}

#[test]
fn h05_empty_option_is_an_error() {
    for (sql, col) in [
        ("SELECT /*+ BROADCAST(t1,,t2) */ *", 25),
        ("SELECT /*+ BROADCAST(t1, ) */ *", 26),
        ("SELECT /*+ BROADCAST(,t1) */ *", 22),
        ("SELECT /*+ OPTIONS('a'='1',) */ *", 28),
    ] {
        let e = error_of(sql);
        assert_eq!(at(&e), (1, col), "{sql}: {e}");
        assert!(e.to_string().contains("empty option"), "{sql}: {e}");
    }
    let e = error_of("SELECT /*+ BROADCAST() */ *");
    assert_eq!(at(&e), (1, 22));
    assert!(
        e.to_string().contains("empty option list `BROADCAST()`"),
        "{e}"
    );
}

#[test]
fn h05_empty_block_and_stray_commas_are_errors() {
    let e = error_of("SELECT /*+ */ * FROM t");
    assert_eq!(at(&e), (1, 12));
    assert!(e.to_string().contains("empty hint block"), "{e}");
    let e = error_of("SELECT /*+ BROADCAST(t1), */ * FROM t");
    assert!(
        e.to_string().contains("expected a hint name after `,`"),
        "{e}"
    );
    let e = error_of("SELECT /*+ , BROADCAST(t1) */ * FROM t");
    assert_eq!(at(&e), (1, 12));
    let e = error_of("SELECT /*+ BROADCAST(t1) ) */ * FROM t");
    assert_eq!(at(&e), (1, 26));
}

#[test]
fn h05_unclosed_string_points_at_its_quote() {
    let e = error_of("SELECT * FROM t /*+ OPTIONS('a'='1) */");
    assert_eq!(at(&e), (1, 33));
    assert!(e.to_string().contains("unclosed string literal"), "{e}");
    let e = error_of("SELECT /*+ BROADCAST(\"t1) */ *");
    assert!(e.to_string().contains("unclosed quoted identifier"), "{e}");
}

#[test]
fn h05_key_value_and_list_forms_cannot_be_mixed() {
    let e = error_of("SELECT * FROM t /*+ OPTIONS('a'='1', b) */");
    assert_eq!(at(&e), (1, 39));
    assert!(e.to_string().contains("expected `=` after key `b`"), "{e}");
    assert!(e.to_string().contains("cannot be mixed"), "{e}");
    let e = error_of("SELECT /*+ BROADCAST(t1, 'a'='b') */ *");
    assert_eq!(at(&e), (1, 29));
    assert!(e.to_string().contains("unexpected `=`"), "{e}");
    assert!(e.to_string().contains("cannot be mixed"), "{e}");
}

#[test]
fn h05_values_must_be_strings_and_keys_not_numbers() {
    let e = error_of("SELECT * FROM t /*+ OPTIONS('scan.batch-size'=1024) */");
    assert_eq!(at(&e), (1, 47));
    assert!(e.to_string().contains("expected a 'string' value"), "{e}");
    assert!(e.to_string().contains("'1024'"), "{e}");
    let e = error_of("SELECT * FROM t /*+ OPTIONS(1='x') */");
    assert!(
        e.to_string()
            .contains("must be an identifier or a 'string'"),
        "{e}"
    );
}

#[test]
fn h05_positions_count_lines_and_characters_of_the_sql_text() {
    // The error is on the third line of a multi-line hint block, after
    // non-ASCII text.
    let sql = "SELECT /*+\n  BROADCAST('é', t1),\n  SHUFFLE_HASH(t1 = ) */ *";
    let e = error_of(sql);
    assert_eq!(at(&e), (3, 21));
    assert!(
        e.to_string()
            .contains("expected a 'string' value for key `t1`"),
        "{e}"
    );
    // Qualified names are not simple names.
    let e = error_of("SELECT /*+ BROADCAST(db.t1) */ *");
    assert_eq!(at(&e), (1, 24));
    assert!(e.to_string().contains("simple names"), "{e}");
}

#[test]
fn h05_a_sql_tokenizer_error_is_reported_with_its_position() {
    let e = find_hint_comments("SELECT 'unclosed FROM t").unwrap_err();
    assert!(matches!(e, HintError::Tokenize { .. }), "{e:?}");
    assert!(e.position().is_some());
}

// ---------------------------------------------------------------- H06

#[test]
fn h06_table_hint_after_a_table_reference() {
    let sql = "select * from\n    kafka_table1 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t1\n    join\n    kafka_table2 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t2\n    on t1.id = t2.id;";
    let found = find_hint_comments(sql).unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(
        found[0].placement,
        HintPlacement::Table {
            table: "kafka_table1".into()
        }
    );
    assert_eq!(found[0].anchor, Position::new(2, 5));
    assert_eq!(
        found[1].placement,
        HintPlacement::Table {
            table: "kafka_table2".into()
        }
    );
    let h = found[1].parse().unwrap();
    assert_eq!(h[0].name, HintName::Options);
    assert_eq!(
        h[0].to_string(),
        "OPTIONS('scan.startup.mode'='earliest-offset')"
    );
}

#[test]
fn h06_table_hints_after_qualified_names_comma_lists_and_insert_targets() {
    let sql = "INSERT INTO kafka_table1 /*+ OPTIONS('sink.partitioner'='round-robin') */ \
               SELECT * FROM a, Db.\"Mixed\" /*+ OPTIONS('k'='v') */ WHERE a.x IN (1, 2)";
    let found = find_hint_comments(sql).unwrap();
    let placements: Vec<_> = found.iter().map(|c| c.placement.clone()).collect();
    assert_eq!(
        placements,
        [
            HintPlacement::Table {
                table: "kafka_table1".into()
            },
            HintPlacement::Table {
                table: "db.Mixed".into()
            },
        ]
    );
}

#[test]
fn h06_options_after_select_and_join_hints_after_a_table_are_misplaced() {
    let e = error_of("SELECT /*+ OPTIONS('k'='v') */ * FROM t");
    assert!(matches!(e, HintError::Misplaced { .. }), "{e:?}");
    assert!(
        e.to_string().contains("directly after the table name"),
        "{e}"
    );
    let e = error_of("SELECT * FROM t1 /*+ BROADCAST(t1) */ JOIN t2 ON t1.a = t2.a");
    assert!(
        e.to_string().contains("belongs directly after SELECT"),
        "{e}"
    );
    let e = error_of("SELECT * FROM t1 WHERE a = 1 /*+ BROADCAST(t1) */");
    assert_eq!(
        find_hint_comments("SELECT * FROM t1 WHERE a = 1 /*+ BROADCAST(t1) */").unwrap()[0]
            .placement,
        HintPlacement::Elsewhere
    );
    assert!(e.to_string().contains("must directly follow SELECT"), "{e}");
    // After an alias is not after the table name.
    let found = find_hint_comments("SELECT * FROM t AS a /*+ OPTIONS('k'='v') */").unwrap();
    assert_eq!(found[0].placement, HintPlacement::Elsewhere);
}

// ---------------------------------------------------------------- H07

#[test]
fn h07_plain_comments_are_never_hints() {
    for sql in [
        "SELECT /* BROADCAST(t1) */ * FROM t1",
        "SELECT /* +BROADCAST(t1) */ * FROM t1",
        "SELECT /*abc+ BROADCAST(t1) */ * FROM t1",
        "SELECT --+ BROADCAST(t1)\n * FROM t1",
        "SELECT -- /*+ BROADCAST(t1) */\n * FROM t1",
        "SELECT '/*+ BROADCAST(t1) */' FROM t1",
        "SELECT * FROM t1 /* OPTIONS('k'='v') */",
        "SELECT * FROM t1 /* unclosed? no: /*+ nested */ still a comment */",
    ] {
        assert_eq!(find_hint_comments(sql).unwrap(), vec![], "{sql}");
    }
}

#[test]
fn h07_a_plain_comment_before_the_hint_block_does_not_hide_it() {
    let found = find_hint_comments("SELECT /* note */ /*+ NEST_LOOP(t2) */ * FROM t1, t2").unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].placement, HintPlacement::QueryBlock);
}

// ------------------------------------------------------- never a panic

fn hint_ish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "BROADCAST",
        "SHUFFLE_HASH",
        "OPTIONS",
        "(",
        ")",
        ",",
        "=",
        "'",
        "\"",
        "`",
        "t1",
        "T2",
        "'k'",
        "'v'",
        "1",
        "1.5e",
        ".",
        "/*",
        "*/",
        "/*+",
        " ",
        "\n",
        "é",
        "--",
        "SELECT",
        "FROM",
        "JOIN",
        "*",
        "+",
        "\\",
        "\0",
    ]);
    prop::collection::vec(atoms, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parser_never_panics_on_random_text(text in any::<String>(), line in 0u64..5, col in 0u64..5) {
        let _ = parse_hints(&text, Position::new(line, col));
        let _ = find_hint_comments(&text).map(|cs| cs.iter().map(HintComment::parse).count());
    }

    #[test]
    fn parser_never_panics_on_hint_like_text(text in hint_ish()) {
        let _ = parse_hints(&text, Position::new(1, 1));
        let sql = format!("SELECT /*+{text}*/ * FROM t /*+{text}*/");
        if let Ok(cs) = find_hint_comments(&sql) {
            for c in cs {
                let _ = c.parse();
                prop_assert!(sql.get(c.span.clone()).is_some());
            }
        }
    }

    #[test]
    fn printed_hints_reparse_identically(names in prop::collection::vec("[a-zA-Z_][a-zA-Z0-9_]{0,6}", 1..4)) {
        let text = format!("BROADCAST({})", names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", "));
        let h = parse_hints(&text, Position::new(1, 1)).unwrap();
        let again = parse_hints(&h[0].to_string(), Position::new(1, 1)).unwrap();
        prop_assert_eq!(h[0].names(), again[0].names());
    }
}
