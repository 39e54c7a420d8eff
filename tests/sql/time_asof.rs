//! As-of joins through SQL (`ASOF JOIN ... MATCH_CONDITION (...) [ON ...]`,
//! docs/time.md) against a naive reference written here: for each left
//! row, scan the right rows in table order and keep the closest one the
//! rules allow. Every operator, with and without equality keys, with an
//! ON filter applied before the choice, ties, NULL keys and times, empty
//! sides, under BROADCAST and SHUFFLE_MERGE hints, 1 and 4 threads and
//! batches of 1, 2, 7 and 8192 rows.

use crate::common::*;

fn tables(seed: u64, left_rows: usize, right_rows: usize) -> (Table, Table) {
    tables_of_keys(seed, left_rows, right_rows, 4)
}

/// trades (sym, ts, p) and quotes (sym, ts, q) with `keys` symbols, 30
/// times (many ties) and a NULL one cell in nine; `p` and `q` number the
/// rows.
pub(crate) fn tables_of_keys(
    seed: u64,
    left_rows: usize,
    right_rows: usize,
    keys: i64,
) -> (Table, Table) {
    let mut g = Lcg(seed);
    let trades = (0..left_rows)
        .map(|i| vec![g.cell(keys, 9), g.cell(30, 9), Some(i as i64)])
        .collect();
    let quotes = (0..right_rows)
        .map(|i| vec![g.cell(keys, 9), g.cell(30, 9), Some(1000 + i as i64)])
        .collect();
    let cols = |p: &'static str| {
        [
            ("sym", ColType::I64),
            ("ts", ColType::I64),
            (p, ColType::I64),
        ]
    };
    (
        Table::new("trades", &cols("p"), trades),
        Table::new("quotes", &cols("q"), quotes),
    )
}

/// The as-of comparison of the left time with the right time.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Ge,
    Gt,
    Le,
    Lt,
}

impl Op {
    fn sql(self) -> &'static str {
        match self {
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Lt => "<",
        }
    }

    fn holds(self, l: i64, r: i64) -> bool {
        match self {
            Op::Ge => l >= r,
            Op::Gt => l > r,
            Op::Le => l <= r,
            Op::Lt => l < r,
        }
    }

    /// Whether right time `new` (later in table order) replaces `best`.
    fn better(self, new: i64, best: i64) -> bool {
        match self {
            Op::Ge | Op::Gt => new >= best,
            Op::Le | Op::Lt => new < best,
        }
    }
}

/// The reference: `t.sym|t.ts|t.p|q.ts|q.q` for every trade, sorted.
pub(crate) fn reference(
    trades: &Table,
    quotes: &Table,
    op: Op,
    keyed: bool,
    min_q: Option<i64>,
) -> Vec<String> {
    let show = |c: Option<i64>| c.map_or("NULL".to_string(), |v| v.to_string());
    let mut out: Vec<String> = trades
        .rows
        .iter()
        .map(|t| {
            let mut best: Option<&Row> = None;
            if let Some(lt) = t[1] {
                for q in &quotes.rows {
                    let (Some(rt), Some(qv)) = (q[1], q[2]) else {
                        continue;
                    };
                    if keyed && (t[0].is_none() || t[0] != q[0]) {
                        continue;
                    }
                    if min_q.is_some_and(|m| qv <= m) || !op.holds(lt, rt) {
                        continue;
                    }
                    if best.is_none_or(|b| op.better(rt, b[1].unwrap_or(0))) {
                        best = Some(q);
                    }
                }
            }
            let (qt, qq) = best.map_or((None, None), |b| (b[1], b[2]));
            [t[0], t[1], t[2], qt, qq].map(show).join("|")
        })
        .collect();
    out.sort();
    out
}

/// The as-of join of trades and quotes by `op`, on the symbol when
/// `keyed`, of the quotes with `q > min_q`, with `hint`.
pub(crate) fn query(op: Op, keyed: bool, min_q: Option<i64>, hint: &str) -> String {
    let mut on = Vec::new();
    if keyed {
        on.push("t.sym = q.sym".to_string());
    }
    if let Some(m) = min_q {
        on.push(format!("q.q > {m}"));
    }
    let on = if on.is_empty() {
        String::new()
    } else {
        format!(" ON {}", on.join(" AND "))
    };
    format!(
        "SELECT {hint} t.sym, t.ts, t.p, q.ts, q.q FROM trades t ASOF JOIN quotes q \
         MATCH_CONDITION (t.ts {} q.ts){on}",
        op.sql()
    )
}

#[test]
fn asof_matches_the_reference_for_every_operator_hint_and_config() {
    let mut failures = Vec::new();
    for (seed, (l, r)) in [(1, (40, 30)), (2, (25, 60)), (3, (0, 10)), (4, (12, 0))] {
        let (trades, quotes) = tables(seed, l, r);
        for (threads, batch) in [(1, 1), (4, 2), (1, 7), (4, 8192)] {
            let s = session_with(&[trades.clone(), quotes.clone()], threads, batch);
            for op in [Op::Ge, Op::Gt, Op::Le, Op::Lt] {
                for (keyed, min_q) in [(true, None), (false, None), (true, Some(1010))] {
                    let expected = reference(&trades, &quotes, op, keyed, min_q);
                    for hint in ["", "/*+ BROADCAST(q) */", "/*+ SHUFFLE_MERGE(q) */"] {
                        let sql = query(op, keyed, min_q, hint);
                        let got = run(&s, &sql);
                        if got != expected {
                            failures.push(format!(
                                "seed {seed} threads {threads} batch {batch}: {sql}\n  got \
                                 {got:?}\n  want {expected:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn h53_time_joins_run_broadcast_of_the_right_side_or_shuffle_merge() {
    let (trades, quotes) = tables(5, 10, 10);
    let s = session_with(&[trades, quotes], 1, 8192);
    let base = "FROM trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts >= q.ts) ON t.sym = q.sym";
    let plan = s
        .explain(&format!("SELECT /*+ SHUFFLE_MERGE(q) */ count(*) {base}"))
        .unwrap();
    let text = plan.to_text();
    assert!(text.contains("SHUFFLE_MERGE"), "{text}");
    assert!(
        text.contains("as-of join MATCH_CONDITION (t.ts >= q.ts)"),
        "{text}"
    );
    // BROADCAST of the left (kept) side cannot run: lenient falls back
    let plan = s
        .explain(&format!("SELECT /*+ BROADCAST(t) */ count(*) {base}"))
        .unwrap();
    let text = plan.to_text();
    assert!(text.contains("BROADCAST, build q"), "{text}");
    assert!(text.contains("hint BROADCAST(t) ignored"), "{text}");
    let plan = s
        .explain(&format!("SELECT /*+ NEST_LOOP(q) */ count(*) {base}"))
        .unwrap();
    assert!(
        plan.to_text().contains("not NEST_LOOP"),
        "{}",
        plan.to_text()
    );
    // the default: a small right side is broadcast; JSON says what the join does
    let plan = s.explain(&format!("SELECT count(*) {base}")).unwrap();
    let text = plan.to_text();
    assert!(text.contains("BROADCAST, build q (default"), "{text}");
    let json = plan.to_json();
    assert!(
        json.contains(r#""time_join": "as-of join MATCH_CONDITION (t.ts >= q.ts)"#),
        "{json}"
    );
    // strict mode: an inapplicable hint is an error that says why
    let (t, q) = tables(5, 10, 10);
    let mut strict = session_with(&[t, q], 1, 8192);
    strict.set("hint_mode", "strict").unwrap();
    let e = query_err(
        &strict,
        &format!("SELECT /*+ SHUFFLE_HASH(q) */ count(*) {base}"),
    );
    assert!(e.to_string().contains("not SHUFFLE_HASH"), "{e}");
}

#[test]
fn asof_bad_input_is_a_clear_error() {
    let (trades, quotes) = tables(6, 5, 5);
    let s = session_with(&[trades, quotes], 1, 8192);
    let cases = [
        (
            "SELECT * FROM trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts = q.ts)",
            "one comparison",
        ),
        (
            "SELECT * FROM trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts >= t.p)",
            "must compare a column of the left input with a column of the right",
        ),
        (
            "SELECT * FROM trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts >= q.ts) USING (sym)",
            "USING",
        ),
        (
            "SELECT * FROM trades t ASOF JOIN quotes q MATCH_CONDITION (t.ts >= 'x' || q.ts)",
            "as-of join orders rows by a time",
        ),
    ];
    for (sql, words) in cases {
        let e = query_err(&s, sql).to_string();
        assert!(e.contains(words), "{sql}\n  error: {e}\n  lacks: {words}");
    }
}
