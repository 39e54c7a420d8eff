//! Every join type through SQL, under every strategy, against the naive
//! reference join of `common`: each query runs with each of the four join
//! hints naming each side (`/*+ BROADCAST(b) */`, `/*+ SHUFFLE_HASH(a) */`,
//! ...), with 1 and 4 threads and batches of 1 and 8192 rows, and must
//! return the reference's rows every time (docs/hints.md J04); EXPLAIN must
//! report the hinted strategy and build side whenever the hint is valid
//! for the join (§2), and the hint as ignored otherwise.
//!
//! Subquery joins (`IN`, `NOT IN`, `EXISTS`, `NOT EXISTS`) take no hints
//! (H14): they are swept by disabling the three other strategies instead
//! (`disabled_strategies`, H16).

use tenon::kernels::{JoinType, Strategy};

use crate::common::*;

/// What makes a hint valid for the query's (single) join.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// An equi-join of this type: docs/hints.md §2's table decides.
    Equi(JoinType),
    /// No equi condition (CROSS, `a.k < b.k`): only NEST_LOOP can run it.
    NonEqui,
}

/// Whether a hint of `strategy` naming the left (`left_side`) or right
/// input is valid for a join of this shape (H13, H14).
fn valid(shape: Shape, strategy: Strategy, left_side: bool) -> bool {
    match shape {
        Shape::NonEqui => strategy == Strategy::NestLoop,
        Shape::Equi(jt) => {
            if strategy != Strategy::Broadcast {
                return true;
            }
            match jt {
                JoinType::Full => false,
                JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti => !left_side,
                JoinType::Right => left_side,
                _ => true,
            }
        }
    }
}

/// The select list of two-sided joins of `a` and `b`.
const AB: &str = "a.k AS a_k, a.v AS a_v, a.s AS a_s, b.k AS b_k, b.v AS b_v, b.s AS b_s";
/// The select list of semi/anti joins (left columns only).
const A: &str = "a.k AS a_k, a.v AS a_v, a.s AS a_s";

/// Runs `sql` (with `{hint}` where the hint block goes) under each
/// strategy's hint naming `left` and then `right`, in every [`CONFIGS`]
/// session, and checks rows and EXPLAIN. All problems are collected and
/// reported together.
fn sweep(sql: &str, shape: Shape, left: &str, right: &str, expected: &Rel) {
    sweep_with(&std_tables(), &CONFIGS, sql, shape, left, right, expected);
}

/// [`sweep`] over sessions holding `tables`, one per `(threads,
/// batch_size)` of `configs`.
fn sweep_with(
    tables: &[Table],
    configs: &[(usize, usize)],
    sql: &str,
    shape: Shape,
    left: &str,
    right: &str,
    expected: &Rel,
) {
    let expected = expected.strings();
    let sessions: Vec<_> = configs
        .iter()
        .map(|&(t, b)| (t, b, session_with(tables, t, b)))
        .collect();
    let mut problems = Vec::new();
    for strategy in STRATEGIES {
        for (table, left_side) in [(left, true), (right, false)] {
            let h = hint(strategy, table);
            let q = sql.replace("{hint}", &h);
            // EXPLAIN: the hinted strategy and side when valid.
            match sessions[0].2.explain(&q) {
                Err(e) => problems.push(format!("EXPLAIN {q}\n    failed: {e}")),
                Ok(x) => {
                    if x.joins.len() != 1 {
                        problems.push(format!(
                            "{q}\n    {} joins in EXPLAIN, expected 1",
                            x.joins.len()
                        ));
                    } else {
                        let j = &x.joins[0];
                        if let Shape::Equi(jt) = shape
                            && j.join_type != jt
                        {
                            problems
                                .push(format!("{q}\n    join type {} expected {jt}", j.join_type));
                        }
                        if valid(shape, strategy, left_side) {
                            let build_ok = strategy == Strategy::ShuffleMerge
                                || j.build.as_deref() == Some(table);
                            if j.strategy != strategy || !build_ok {
                                problems.push(format!(
                                    "{q}\n    EXPLAIN: {} build {:?} ({}), expected {strategy} build {table}",
                                    j.strategy, j.build, j.reason
                                ));
                            }
                        } else {
                            let ignored = j
                                .ignored_hints
                                .iter()
                                .any(|i| i.hint.contains(strategy.name()));
                            let fallback_ok = match shape {
                                Shape::NonEqui => j.strategy == Strategy::NestLoop,
                                Shape::Equi(_) => true,
                            };
                            if !ignored || !fallback_ok || j.reason.contains("applied") {
                                problems.push(format!(
                                    "{q}\n    invalid hint: EXPLAIN {} build {:?} ({}), ignored {:?}",
                                    j.strategy, j.build, j.reason, j.ignored_hints
                                ));
                            }
                        }
                    }
                }
            }
            for (threads, batch, s) in &sessions {
                match s.collect(&q) {
                    Err(e) => {
                        problems.push(format!("{q}\n    threads={threads} batch={batch}: {e}"))
                    }
                    Ok(b) => {
                        let got = row_strings(&b);
                        if got != expected {
                            problems.push(format!(
                                "{q}\n    threads={threads} batch={batch}: rows differ\n      got      {got:?}\n      expected {expected:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Runs a query whose join comes from a subquery (no hints) with all
/// strategies but one disabled, for each strategy that can run `jt`, in
/// every [`CONFIGS`] session.
fn sweep_subquery(sql: &str, jt: JoinType, expected: &Rel) {
    let expected = expected.strings();
    let mut problems = Vec::new();
    for strategy in STRATEGIES {
        let others: Vec<&str> = STRATEGIES
            .iter()
            .filter(|s| **s != strategy)
            .map(|s| s.name())
            .collect();
        for &(threads, batch) in &CONFIGS {
            let mut s = session(threads, batch);
            s.set("disabled_strategies", &others.join(",")).unwrap();
            if threads == 1 && batch == 1 {
                match s.explain(sql) {
                    Err(e) => {
                        problems.push(format!("{strategy} only: EXPLAIN {sql}\n    failed: {e}"))
                    }
                    Ok(x) => {
                        let got: Vec<_> =
                            x.joins.iter().map(|j| (j.strategy, j.join_type)).collect();
                        if got != [(strategy, jt)] {
                            problems.push(format!(
                                "{strategy} only: {sql}\n    EXPLAIN joins {got:?}, expected [({strategy}, {jt})]\n{}",
                                x.to_text()
                            ));
                        }
                    }
                }
            }
            match s.collect(sql) {
                Err(e) => problems.push(format!(
                    "{strategy} only, threads={threads} batch={batch}: {sql}\n    {e}"
                )),
                Ok(b) => {
                    let got = row_strings(&b);
                    if got != expected {
                        problems.push(format!(
                            "{strategy} only, threads={threads} batch={batch}: {sql}\n      got      {got:?}\n      expected {expected:?}"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

fn ab() -> (Rel, Rel, usize, usize, usize, usize) {
    let (a, b) = (table_a().rel(), table_b().rel());
    let (ak, av, bk, bv) = (a.col("a.k"), a.col("a.v"), b.col("b.k"), b.col("b.v"));
    (a, b, ak, av, bk, bv)
}

fn equi(jt: RefJoin) -> Rel {
    let (a, b, ak, _, bk, _) = ab();
    ref_join(&a, &b, jt, |x, y| eq(x[ak], y[bk]))
}

mod conditions;
mod larger;
mod types;
