//! Differential property test: random small tables and random join queries
//! from a small grammar, run through `tenon::Session` under every strategy
//! and two session settings, against a naive row-at-a-time reference.
//!
//! Tables `t1`, `t2`, `t3` (0–12 rows each) have columns `k BIGINT` (0..4,
//! about 20% NULL, so duplicate and NULL keys are common) and `v BIGINT`
//! (0..10, about 14% NULL).
//!
//! Queries (see [`Query::sql`]):
//! - `t1 {INNER|LEFT|RIGHT|FULL OUTER|LEFT SEMI|LEFT ANTI} JOIN t2 ON key
//!   [AND residual]`, key `t1.k = t2.k` or `t1.k IS NOT DISTINCT FROM t2.k`,
//!   residual `t1.v < t2.v`, `t1.v + t2.v > 5`, `t1.v <> t2.v` or the
//!   one-sided `t2.v < 5`;
//! - `FROM t1 WHERE [NOT] EXISTS (SELECT 1 FROM t2 WHERE key [AND
//!   residual])` and `t1.k [NOT] IN (SELECT t2.k FROM t2 [WHERE residual])`;
//! - optionally a third table joined to the result (INNER / LEFT / RIGHT /
//!   FULL, `ON t3.k = t1.k` or `t2.k`, optionally `AND t1.v < t3.v`).
//!
//! The select list is every column of the tables the result keeps.
//!
//! Each query runs in two sessions (1 thread with 1-row batches, 4 threads
//! with 8192-row batches) with no hint; with each strategy's hint naming
//! `t2` (and `t3` when it is joined: one hint serving both joins, H24) and
//! naming `t1`; and with all strategies but one disabled
//! (`disabled_strategies`, H16: the only way to force the strategy of a
//! subquery join, which hints do not reach, H30). Inapplicable hints fall
//! back (H23) and the rows must still match; a variant whose one enabled
//! strategy cannot run some join ("no strategy can run join") is skipped.
//! Rows are compared as sorted multisets of strings, NULL as `NULL`.
//!
//! `PROPTEST_CASES=500 cargo nextest run --test sql differential` for a
//! deeper run.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon::Session;
use tenon::kernels::Strategy as Kind;

use crate::common::*;

/// Cases per run (overridden by `PROPTEST_CASES`).
const CASES: u32 = 48;

/// The strategies, in the hints document's order.
const ALL: [Kind; 4] = [
    Kind::Broadcast,
    Kind::ShuffleHash,
    Kind::ShuffleMerge,
    Kind::NestLoop,
];

/// The two session settings every query runs with: (threads, batch size).
const SETTINGS: [(usize, usize); 2] = [(1, 1), (4, 8192)];

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 1024,
        ..ProptestConfig::default()
    }
}

// ------------------------------------------------------------- grammar

/// The join type of an explicit join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Jt {
    Inner,
    Left,
    Right,
    Full,
    Semi,
    Anti,
}

impl Jt {
    fn sql(self) -> &'static str {
        match self {
            Jt::Inner => "INNER JOIN",
            Jt::Left => "LEFT JOIN",
            Jt::Right => "RIGHT JOIN",
            Jt::Full => "FULL OUTER JOIN",
            Jt::Semi => "LEFT SEMI JOIN",
            Jt::Anti => "LEFT ANTI JOIN",
        }
    }

    fn reference(self) -> RefJoin {
        match self {
            Jt::Inner => RefJoin::Inner,
            Jt::Left => RefJoin::Left,
            Jt::Right => RefJoin::Right,
            Jt::Full => RefJoin::Full,
            Jt::Semi => RefJoin::Semi,
            Jt::Anti => RefJoin::Anti,
        }
    }

    /// Whether the join's output holds the right input's columns.
    fn keeps_right(self) -> bool {
        !matches!(self, Jt::Semi | Jt::Anti)
    }
}

/// The key comparison of `t1` and `t2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    /// `t1.k = t2.k`.
    Eq,
    /// `t1.k IS NOT DISTINCT FROM t2.k`.
    NotDistinct,
}

/// An extra condition on `t1.v` and `t2.v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Residual {
    None,
    /// `t1.v < t2.v`.
    Lt,
    /// `t1.v + t2.v > 5`.
    SumGt,
    /// `t1.v <> t2.v`.
    Ne,
    /// `t2.v < 5` (one-sided).
    Local,
}

impl Residual {
    fn sql(self) -> Option<&'static str> {
        match self {
            Residual::None => None,
            Residual::Lt => Some("t1.v < t2.v"),
            Residual::SumGt => Some("t1.v + t2.v > 5"),
            Residual::Ne => Some("t1.v <> t2.v"),
            Residual::Local => Some("t2.v < 5"),
        }
    }

    /// Its value (three-valued) for `t1.v = a`, `t2.v = b`.
    fn eval(self, a: Option<i64>, b: Option<i64>) -> Option<bool> {
        match self {
            Residual::None => Some(true),
            Residual::Lt => lt(a, b),
            Residual::SumGt => Some(a? + b? > 5),
            Residual::Ne => Some(a? != b?),
            Residual::Local => lt(b, Some(5)),
        }
    }
}

/// A subquery predicate on `t1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sub {
    Exists,
    NotExists,
    In,
    NotIn,
}

/// How `t1` meets `t2`.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// `t1 JT t2 ON key [AND residual]`.
    Join(Jt, Key, Residual),
    /// `WHERE` subquery; the key applies to `[NOT] EXISTS` only.
    Sub(Sub, Key, Residual),
}

/// A third table joined to the result.
#[derive(Debug, Clone, Copy)]
struct Third {
    /// Inner, left, right or full.
    jt: Jt,
    /// `ON t3.k = t2.k` (only when the result holds t2) instead of `t1.k`.
    on_t2: bool,
    /// `AND t1.v < t3.v`.
    residual: bool,
}

/// One generated query.
#[derive(Debug, Clone, Copy)]
struct Query {
    form: Form,
    third: Option<Third>,
}

/// How a query is run: a hint text, or all strategies but one disabled.
#[derive(Debug, Clone)]
enum Variant {
    Hint(String),
    Only(Kind),
}

impl Query {
    /// Whether the result holds t2's columns.
    fn keeps_t2(&self) -> bool {
        matches!(self.form, Form::Join(jt, ..) if jt.keeps_right())
    }

    /// The query's text with `hint` after SELECT.
    fn sql(&self, hint: &str) -> String {
        let mut select = vec!["t1.k AS t1_k", "t1.v AS t1_v"];
        if self.keeps_t2() {
            select.extend(["t2.k AS t2_k", "t2.v AS t2_v"]);
        }
        if self.third.is_some() {
            select.extend(["t3.k AS t3_k", "t3.v AS t3_v"]);
        }
        let key = |k: Key| match k {
            Key::Eq => "t1.k = t2.k",
            Key::NotDistinct => "t1.k IS NOT DISTINCT FROM t2.k",
        };
        let with = |base: &str, r: Residual| match r.sql() {
            Some(r) => format!("{base} AND {r}"),
            None => base.to_string(),
        };
        let mut from = "t1".to_string();
        let mut filter = String::new();
        match self.form {
            Form::Join(jt, k, r) => {
                from = format!("t1 {} t2 ON {}", jt.sql(), with(key(k), r));
            }
            Form::Sub(s @ (Sub::Exists | Sub::NotExists), k, r) => {
                let not = if s == Sub::NotExists { "NOT " } else { "" };
                filter = format!(
                    " WHERE {not}EXISTS (SELECT 1 FROM t2 WHERE {})",
                    with(key(k), r)
                );
            }
            Form::Sub(s, _, r) => {
                let not = if s == Sub::NotIn { "NOT " } else { "" };
                let sub_where = r.sql().map(|r| format!(" WHERE {r}")).unwrap_or_default();
                filter = format!(" WHERE t1.k {not}IN (SELECT t2.k FROM t2{sub_where})");
            }
        }
        if let Some(t) = self.third {
            let other = if t.on_t2 { "t2" } else { "t1" };
            let res = if t.residual { " AND t1.v < t3.v" } else { "" };
            from = format!("{from} {} t3 ON t3.k = {other}.k{res}", t.jt.sql());
        }
        let hint = if hint.is_empty() {
            String::new()
        } else {
            format!("{hint} ")
        };
        format!("SELECT {hint}{} FROM {from}{filter}", select.join(", "))
    }

    /// The variants the query runs under.
    fn variants(&self) -> Vec<Variant> {
        let mut out = vec![Variant::Hint(String::new())];
        if matches!(self.form, Form::Join(..)) {
            let t3 = if self.third.is_some() { ", t3" } else { "" };
            for s in ALL {
                out.push(Variant::Hint(format!("/*+ {}(t2{t3}) */", s.name())));
                out.push(Variant::Hint(format!("/*+ {}(t1{t3}) */", s.name())));
            }
        }
        out.extend(ALL.map(Variant::Only));
        out
    }

    /// The expected rows, by nested loops over the tables' rows.
    fn expected(&self, tables: &[Table]) -> Rel {
        let (t1, t2, t3) = (tables[0].rel(), tables[1].rel(), tables[2].rel());
        let key = |k: Key, a: Option<i64>, b: Option<i64>| match k {
            Key::Eq => eq(a, b),
            Key::NotDistinct => not_distinct(a, b),
        };
        // Rows of t1 (the first two columns of `row`) and t2: the join or
        // subquery condition.
        let base = match self.form {
            Form::Join(jt, k, r) => ref_join(&t1, &t2, jt.reference(), |l, x| {
                and(key(k, l[0], x[0]), r.eval(l[1], x[1]))
            }),
            Form::Sub(..) => t1.clone(),
        };
        let joined = match self.third {
            None => base,
            Some(t) => {
                let other = base.col(if t.on_t2 { "t2.k" } else { "t1.k" });
                let t1v = base.col("t1.v");
                ref_join(&base, &t3, t.jt.reference(), |l, x| {
                    let res = if t.residual {
                        lt(l[t1v], x[1])
                    } else {
                        Some(true)
                    };
                    and(eq(x[0], l[other]), res)
                })
            }
        };
        match self.form {
            Form::Join(..) => joined,
            Form::Sub(s, k, r) => {
                // t1's columns are the first two of every row.
                joined.filter(|row| subquery(s, k, r, row[0], row[1], &t2.rows))
            }
        }
    }
}

/// SQL NOT.
fn not(b: Option<bool>) -> Option<bool> {
    b.map(|b| !b)
}

/// The value of a subquery predicate for the outer row `t1.k = k1`,
/// `t1.v = v1`, over t2's rows.
fn subquery(
    s: Sub,
    k: Key,
    r: Residual,
    k1: Option<i64>,
    v1: Option<i64>,
    t2: &[Row],
) -> Option<bool> {
    match s {
        Sub::Exists | Sub::NotExists => {
            let key = |b| match k {
                Key::Eq => eq(k1, b),
                Key::NotDistinct => not_distinct(k1, b),
            };
            let any = t2
                .iter()
                .any(|x| and(key(x[0]), r.eval(v1, x[1])) == Some(true));
            if s == Sub::Exists {
                Some(any)
            } else {
                Some(!any)
            }
        }
        Sub::In | Sub::NotIn => {
            // x IN (s1, s2, ...) = s1 = x OR s2 = x OR ... (three-valued):
            // true on a match, else unknown if any comparison is, else false
            // (false for an empty set).
            let values: Vec<Option<i64>> = t2
                .iter()
                .filter(|x| r.eval(v1, x[1]) == Some(true))
                .map(|x| x[0])
                .collect();
            let cmp: Vec<Option<bool>> = values.iter().map(|&v| eq(k1, v)).collect();
            let member = if cmp.contains(&Some(true)) {
                Some(true)
            } else if cmp.contains(&None) {
                None
            } else {
                Some(false)
            };
            if s == Sub::In { member } else { not(member) }
        }
    }
}

// ---------------------------------------------------------- generators

fn cell(null_weight: u32, other_weight: u32, hi: i64) -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        null_weight => Just(None),
        other_weight => (0..hi).prop_map(Some),
    ]
}

fn table(name: &'static str) -> impl Strategy<Value = Table> {
    proptest::collection::vec((cell(1, 4, 4), cell(1, 6, 10)), 0..=12).prop_map(move |rows| {
        Table::new(
            name,
            &[("k", ColType::I64), ("v", ColType::I64)],
            rows.into_iter().map(|(k, v)| vec![k, v]).collect(),
        )
    })
}

fn jt() -> impl Strategy<Value = Jt> {
    prop_oneof![
        Just(Jt::Inner),
        Just(Jt::Left),
        Just(Jt::Right),
        Just(Jt::Full),
        Just(Jt::Semi),
        Just(Jt::Anti),
    ]
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![3 => Just(Key::Eq), 1 => Just(Key::NotDistinct)]
}

fn residual() -> impl Strategy<Value = Residual> {
    prop_oneof![
        3 => Just(Residual::None),
        1 => Just(Residual::Lt),
        1 => Just(Residual::SumGt),
        1 => Just(Residual::Ne),
        1 => Just(Residual::Local),
    ]
}

fn sub() -> impl Strategy<Value = Sub> {
    prop_oneof![
        Just(Sub::Exists),
        Just(Sub::NotExists),
        Just(Sub::In),
        Just(Sub::NotIn),
    ]
}

fn query() -> impl Strategy<Value = Query> {
    let form = prop_oneof![
        2 => (jt(), key(), residual()).prop_map(|(j, k, r)| Form::Join(j, k, r)),
        1 => (sub(), key(), residual()).prop_map(|(s, k, r)| Form::Sub(s, k, r)),
    ];
    let third = prop_oneof![
        2 => Just(None),
        1 => (0..4usize, any::<bool>(), any::<bool>()).prop_map(|(j, on_t2, residual)| {
            Some(Third {
                jt: [Jt::Inner, Jt::Left, Jt::Right, Jt::Full][j],
                on_t2,
                residual,
            })
        }),
    ];
    (form, third).prop_map(|(form, mut third)| {
        let mut q = Query { form, third: None };
        if let Some(t) = &mut third {
            t.on_t2 &= q.keeps_t2();
        }
        q.third = third;
        q
    })
}

/// One generated case: the three tables and a query.
#[derive(Debug, Clone)]
struct Case {
    tables: Vec<Table>,
    query: Query,
}

fn case() -> impl Strategy<Value = Case> {
    (table("t1"), table("t2"), table("t3"), query()).prop_map(|(a, b, c, query)| Case {
        tables: vec![a, b, c],
        query,
    })
}

// --------------------------------------------------------------- check

/// The tables' rows, for failure messages.
fn show_tables(tables: &[Table]) -> String {
    tables
        .iter()
        .map(|t| {
            let rows: Vec<String> = t.rows.iter().map(show_row).collect();
            format!("    {} (k|v): [{}]", t.name, rows.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn show_row(r: &Row) -> String {
    r.iter()
        .map(|c| c.map_or("NULL".to_string(), |v| v.to_string()))
        .collect::<Vec<_>>()
        .join("|")
}

/// Runs the case's query under every variant in both settings and
/// compares with the reference.
fn check(c: &Case) -> Result<(), TestCaseError> {
    let expected = c.query.expected(&c.tables).strings();
    let mut sessions: Vec<(usize, usize, Session)> = SETTINGS
        .iter()
        .map(|&(t, b)| (t, b, session_with(&c.tables, t, b)))
        .collect();
    for variant in c.query.variants() {
        let (sql, what) = match &variant {
            Variant::Hint(h) => (
                c.query.sql(h),
                if h.is_empty() {
                    "no hint".to_string()
                } else {
                    format!("hint {h}")
                },
            ),
            Variant::Only(s) => (
                c.query.sql(""),
                format!("disabled_strategies = all but {}", s.name()),
            ),
        };
        let disabled = match &variant {
            Variant::Hint(_) => String::new(),
            Variant::Only(s) => ALL
                .iter()
                .filter(|x| *x != s)
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(","),
        };
        for (threads, batch, session) in &mut sessions {
            session
                .set("disabled_strategies", &disabled)
                .map_err(|e| TestCaseError::fail(format!("set: {e}")))?;
            let got = match session.collect(&sql) {
                Ok(b) => row_strings(&b),
                Err(e) if e.to_string().contains("no strategy can run join") => continue,
                Err(e) => vec![format!("ERROR: {e}")],
            };
            if got != expected {
                return Err(TestCaseError::fail(format!(
                    "rows differ\n  sql:      {sql}\n  run:      {what}\n  \
                     settings: threads={threads} batch_size={batch}\n  tables:\n{}\n  \
                     expected: {expected:?}\n  got:      {got:?}",
                    show_tables(&c.tables)
                )));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Every generated join query returns the reference's rows under every
    /// strategy and both settings.
    #[test]
    fn random_joins_match_the_reference(c in case()) {
        check(&c)?;
    }
}
