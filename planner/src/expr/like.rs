//! `LIKE` patterns of several literal pieces (`'%special%requests%'`,
//! `'a%b'`) matched with substring searches instead of a regular
//! expression.
//!
//! Arrow's `like` kernel decides patterns of one piece itself (equality,
//! a prefix, a suffix, one `%needle%`) and compiles every other pattern
//! into a regular expression run on each value. A pattern whose only
//! wildcard is `%` needs no automaton: split at the `%`s, a value matches
//! when it starts with the first piece (unless the pattern starts with
//! `%`), ends with the last piece (unless it ends with `%`), and holds the
//! pieces between, in order and without overlapping, in what lies between
//! the two. Searching each piece leftmost after the previous one is exact
//! for such patterns: an earlier match of a piece never leaves less room
//! for the rest. (TPC-H Q13 filters 1.5M order comments with `NOT LIKE
//! '%special%requests%'`, Q16 supplier comments with
//! `'%Customer%Complaints%'`.)
//!
//! Only case-sensitive patterns given as one constant string, without `_`
//! and without the escape character `\`, take this path; anything else
//! goes to Arrow's kernels, as does a pattern of fewer than two pieces
//! (Arrow's own fast cases).

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayAccessor, BooleanArray};
use arrow_schema::DataType;
use memchr::memmem::Finder;

use crate::expr::value::Value;

/// A `%`-only pattern of at least two literal pieces.
#[derive(Debug)]
pub(crate) struct PiecePattern {
    /// The piece the value must start with ("" when the pattern starts
    /// with `%`).
    prefix: Vec<u8>,
    /// The piece the value must end with ("" when it ends with `%`).
    suffix: Vec<u8>,
    /// The pieces between, searched in order.
    middle: Vec<Finder<'static>>,
}

impl PiecePattern {
    /// The pattern when it is a `%`-only pattern of at least two non-empty
    /// pieces, else `None`.
    pub(crate) fn parse(pattern: &str) -> Option<PiecePattern> {
        if pattern.contains(['_', '\\']) {
            return None;
        }
        let pieces: Vec<&str> = pattern.split('%').collect();
        if pieces.iter().filter(|p| !p.is_empty()).count() < 2 {
            return None;
        }
        // At least two pieces are non-empty, so there is a `%` and
        // `pieces` has a first and a last element.
        let (first, rest) = pieces.split_first()?;
        let (last, middle) = rest.split_last()?;
        Some(PiecePattern {
            prefix: first.as_bytes().to_vec(),
            suffix: last.as_bytes().to_vec(),
            middle: middle
                .iter()
                .filter(|p| !p.is_empty())
                .map(|p| Finder::new(p.as_bytes()).into_owned())
                .collect(),
        })
    }

    /// Whether `value` matches the pattern.
    pub(crate) fn matches(&self, value: &[u8]) -> bool {
        let (p, s) = (self.prefix.len(), self.suffix.len());
        // The empty prefix and suffix (`%...%`, the common case) are not
        // compared at all: even an empty slice comparison is a call into
        // the C library's `memcmp` per value, which cost more than the
        // substring searches themselves (TPC-H Q13).
        if value.len() < p + s
            || (p > 0 && !value.starts_with(&self.prefix))
            || (s > 0 && !value.ends_with(&self.suffix))
        {
            return false;
        }
        let mut rest = &value[p..value.len() - s];
        for finder in &self.middle {
            match finder.find(rest) {
                Some(at) => rest = &rest[at + finder.needle().len()..],
                None => return false,
            }
        }
        true
    }
}

/// `input [NOT] LIKE pattern` for a string column and a constant pattern
/// this module decides (see the module docs); `None` for everything else.
pub(crate) fn try_like(
    input: &Value,
    pattern: &Value,
    negated: bool,
    case_insensitive: bool,
) -> Option<BooleanArray> {
    if case_insensitive {
        return None;
    }
    let (Value::Array(values), Value::Scalar(pattern)) = (input, pattern) else {
        return None;
    };
    if pattern.len() != 1 || pattern.is_null(0) {
        return None;
    }
    let text = match pattern.data_type() {
        DataType::Utf8 => pattern.as_string::<i32>().value(0),
        DataType::LargeUtf8 => pattern.as_string::<i64>().value(0),
        DataType::Utf8View => pattern.as_string_view().value(0),
        _ => return None,
    };
    let parsed = PiecePattern::parse(text)?;
    match values.data_type() {
        DataType::Utf8 => Some(apply(values.as_string::<i32>(), &parsed, negated)),
        DataType::LargeUtf8 => Some(apply(values.as_string::<i64>(), &parsed, negated)),
        DataType::Utf8View => Some(apply(values.as_string_view(), &parsed, negated)),
        _ => None,
    }
}

/// The pattern over every value, NULL where the value is.
fn apply<'a, A>(values: A, pattern: &PiecePattern, negated: bool) -> BooleanArray
where
    A: ArrayAccessor<Item = &'a str>,
{
    BooleanArray::from_unary(values, |v| pattern.matches(v.as_bytes()) != negated)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{StringArray, StringViewArray};
    use proptest::prelude::*;

    use super::*;

    fn arrow_like(values: &Value, pattern: &Value, negated: bool) -> BooleanArray {
        if negated {
            arrow_string::like::nlike(values, pattern).unwrap()
        } else {
            arrow_string::like::like(values, pattern).unwrap()
        }
    }

    #[test]
    fn only_multi_piece_percent_patterns_are_taken() {
        for p in ["%special%requests%", "a%b", "%a%b", "a%%b%", "ab%cd%ef"] {
            assert!(PiecePattern::parse(p).is_some(), "{p}");
        }
        for p in [
            "abc", "a%", "%a", "%a%", "%%", "", "a_%b", "a\\%b%c", "%a%%",
        ] {
            assert!(PiecePattern::parse(p).is_none(), "{p}");
        }
    }

    #[test]
    fn overlapping_prefix_and_suffix_do_not_match_short_values() {
        let p = PiecePattern::parse("ab%ba").unwrap();
        assert!(!p.matches(b"aba"));
        assert!(p.matches(b"abba"));
        let p = PiecePattern::parse("%aa%aa%").unwrap();
        assert!(!p.matches(b"aaa"));
        assert!(p.matches(b"aaaa"));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// The same answers as Arrow's kernel (its regular expression), on
        /// Utf8 and Utf8View columns with NULLs, LIKE and NOT LIKE.
        #[test]
        fn agrees_with_arrows_kernel(
            pattern in "[ab%]{0,7}",
            values in proptest::collection::vec(proptest::option::of("[abc]{0,9}"), 0..20),
            negated in any::<bool>(),
        ) {
            let plain = (
                Value::Array(Arc::new(StringArray::from(values.clone()))),
                Value::Scalar(Arc::new(StringArray::from(vec![pattern.as_str()]))),
            );
            let views = (
                Value::Array(Arc::new(StringViewArray::from(values.clone()))),
                Value::Scalar(Arc::new(StringViewArray::from(vec![pattern.as_str()]))),
            );
            for (v, p) in [&plain, &views] {
                let want = arrow_like(v, p, negated);
                match try_like(v, p, negated, false) {
                    Some(got) => prop_assert_eq!(&got, &want, "{}", pattern),
                    None => prop_assert!(PiecePattern::parse(&pattern).is_none()),
                }
            }
        }
    }
}
