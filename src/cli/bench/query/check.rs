//! Every variant of a query must return the default's rows: a variant
//! that returns other rows is a bug in tenon (exit 1, naming the variant
//! and the first differing row). With the testing aid
//! [`INJECT_WRONG_ROWS`] a test can make a variant disagree.

use arrow_array::RecordBatch;
use tenon::Strategy;
use tenon::bench::variants::Answer;

use crate::cli::CliError;

/// The environment variable of the testing aid: `STRATEGY` (e.g.
/// `SHUFFLE_MERGE`) makes every variant whose hint block asks for that
/// strategy lose its first row before its rows are checked, so that a
/// test can see a disagreement reported without a bug to find.
pub(crate) const INJECT_WRONG_ROWS: &str = "TENON_BENCH_INJECT_WRONG_ROWS";

/// The rows every variant must return: the default's.
pub(super) struct Reference {
    /// In order when the query has ORDER BY, else sorted.
    pub exact: Answer,
    /// The rows sorted, for a query with ORDER BY (ties may come in
    /// another order).
    pub sorted: Option<Answer>,
}

impl Reference {
    /// The answer of the default's `batches`.
    ///
    /// # Errors
    ///
    /// A column arrow cannot display (exit 3).
    pub(super) fn of(file: &str, batches: &[RecordBatch], ordered: bool) -> Result<Self, CliError> {
        let bad = |e: String| CliError::exec(format!("{file}: {e}"));
        Ok(Reference {
            exact: Answer::of(batches, ordered).map_err(bad)?,
            sorted: if ordered {
                Some(Answer::of(batches, false).map_err(bad)?)
            } else {
                None
            },
        })
    }
}

/// The strategy of [`INJECT_WRONG_ROWS`], if set.
///
/// # Errors
///
/// The variable is set but not a strategy's name (exit 2).
pub(super) fn injected_wrong_rows() -> Result<Option<Strategy>, CliError> {
    let Some(value) = std::env::var_os(INJECT_WRONG_ROWS) else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    Strategy::from_name(&text).map(Some).ok_or_else(|| {
        CliError::usage(format!(
            "{INJECT_WRONG_ROWS}={text}: expected a strategy, e.g. SHUFFLE_MERGE (a testing aid; \
             unset it to bench tenon as it is)"
        ))
    })
}

/// `batches` without their first row when `inject` is a strategy the
/// variant's hint `block` asks for.
fn injected(batches: &[RecordBatch], block: &str, inject: Option<Strategy>) -> Vec<RecordBatch> {
    let mut out = batches.to_vec();
    let asks = inject.is_some_and(|s| block.contains(&format!("{}(", s.name())));
    if let Some(b) = out.iter_mut().find(|b| b.num_rows() > 0).filter(|_| asks) {
        *b = b.slice(1, b.num_rows() - 1);
    }
    out
}

/// Checks a variant's rows against the default's. `file` names the query
/// file, `variant` the workload and row (`q1.sql#join1 SHUFFLE_MERGE`),
/// `block` its hint block. Rows of an ORDER BY query that differ only in
/// order are a note (ties may come in any order).
///
/// # Errors
///
/// Other rows: exit 1, naming the variant and the first differing row; a
/// column arrow cannot display: exit 3.
pub(super) fn check_rows(
    file: &str,
    variant: &str,
    block: &str,
    batches: &[RecordBatch],
    reference: &Reference,
    inject: Option<Strategy>,
) -> Result<(), CliError> {
    let batches = injected(batches, block, inject);
    let bad = |e: String| CliError::exec(format!("{file}: {e}"));
    let got = Answer::of(&batches, reference.sorted.is_some()).map_err(bad)?;
    let Some(mut diff) = reference.exact.difference(&got) else {
        return Ok(());
    };
    if let Some(sorted) = &reference.sorted {
        let unordered = Answer::of(&batches, false).map_err(bad)?;
        match sorted.difference(&unordered) {
            None => {
                println!(
                    "note: {file}: {block} returned the default's rows in another order \
                     ({diff}); ties under ORDER BY may come in any order"
                );
                return Ok(());
            }
            // other rows, not only another order: the sorted rows' first
            // difference says which
            Some(d) => diff = format!("with the rows sorted, {d}"),
        }
    }
    Err(CliError {
        code: 1,
        message: format!(
            "{file}: the variant {variant} ({block}) returned other rows than the planner's \
             default (the query as written): {diff}. Every strategy must give the same answer, \
             so this is a bug in tenon (unless the query's answer is not fixed, e.g. LIMIT \
             without ORDER BY or random()): please report it with the query and the variant"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;
    use std::sync::Arc;

    fn batch(v: Vec<i64>) -> RecordBatch {
        RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(v)) as _)]).unwrap()
    }

    #[test]
    fn other_rows_exit_1_naming_the_variant_and_the_row() {
        let reference = Reference::of("q.sql", &[batch(vec![1, 2, 3])], false).unwrap();
        let same = [batch(vec![3, 1]), batch(vec![2])];
        assert!(
            check_rows(
                "q.sql",
                "q.sql#join1 BROADCAST",
                "/*+ BROADCAST(a) */",
                &same,
                &reference,
                None
            )
            .is_ok()
        );
        // the injected fault drops the first row of the variants it names
        let e = check_rows(
            "q.sql",
            "q.sql#join1 SHUFFLE_MERGE",
            "/*+ SHUFFLE_MERGE(a) */",
            &same,
            &reference,
            Some(Strategy::ShuffleMerge),
        )
        .unwrap_err();
        assert_eq!(e.code, 1);
        assert!(
            e.message
                .contains("q.sql#join1 SHUFFLE_MERGE (/*+ SHUFFLE_MERGE(a) */)")
                && e.message.contains("`3`"),
            "{}",
            e.message
        );
        let other = check_rows(
            "q.sql",
            "v",
            "/*+ BROADCAST(a) */",
            &same,
            &reference,
            Some(Strategy::ShuffleMerge),
        );
        assert!(other.is_ok());
    }

    #[test]
    fn another_order_under_order_by_is_a_note_other_rows_are_not() {
        let reference = Reference::of("q.sql", &[batch(vec![1, 2, 3])], true).unwrap();
        assert!(check_rows("q.sql", "v", "b", &[batch(vec![2, 1, 3])], &reference, None).is_ok());
        let e =
            check_rows("q.sql", "v", "b", &[batch(vec![2, 1, 4])], &reference, None).unwrap_err();
        assert!(
            e.message.contains(
                "with the rows sorted, row 3 is `4` in this answer, `3` in the default's"
            ),
            "{}",
            e.message
        );
    }
}
