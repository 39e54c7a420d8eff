//! `STATE_TTL` hints (docs/hints.md H52): how long a streaming join or
//! aggregate keeps the state of each input. tenon runs batch queries, whose
//! operators hold their rows only while the query runs, so the hint has no
//! effect; it is still checked as Flink's hint documentation says, so that
//! a query written for a streaming job is refused here for the same
//! mistakes, and EXPLAIN lists it with the reason it does nothing:
//!
//! - the form is `'name' = 'duration'` pairs (at least one);
//! - each name is an input of the hint's query block (a table, view or
//!   subquery alias), by its alias when it has one (as H32 for join hints);
//! - each duration is a whole number with one of Flink's units (`d`, `h`,
//!   `min`, `s`, `ms`, `us`, `ns`, and their long forms), milliseconds
//!   when it has none: `1d`, `12h`, `360000s`, `15 min`;
//! - within one hint the last value of a name wins, across hints the first
//!   hint that gives it (H25).

use super::UnusedHint;
use super::sites::BlockToDecide;
use crate::hints::{HintError, HintName, IgnoreReason, IgnoredHint, hint_key_values, key_values};

/// Checks the block's STATE_TTL hints and, when they are valid, lists them
/// (merged by H25) in `unused` with the reason they do nothing in batch.
pub(super) fn check_state_ttl_hints(
    decided: &BlockToDecide<'_>,
    unused: &mut Vec<UnusedHint>,
    block: usize,
) -> Result<(), HintError> {
    let hints: Vec<_> = decided
        .hints_named(HintName::StateTtl)
        .into_iter()
        .cloned()
        .collect();
    if hints.is_empty() {
        return Ok(());
    }
    let inputs = &decided.joins.inputs;
    let mut unknown: Vec<(String, Vec<String>)> = Vec::new();
    for hint in &hints {
        let bad = |message: String| HintError::JoinHintArguments {
            hint: hint.to_string(),
            position: hint.position,
            message,
        };
        let pairs = hint_key_values(hint);
        if pairs.is_empty() {
            return Err(bad(
                "STATE_TTL takes 'name' = 'duration' pairs, e.g. STATE_TTL('o' = '1d', 'l' = \
                 '12h'): the inputs of its query block and how long to keep their state"
                    .into(),
            ));
        }
        let mut missing = Vec::new();
        for (name, duration) in &pairs {
            if let Some(input) = inputs.iter().find(|i| {
                i.aliased_table
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case(name))
                    && !i.name.eq_ignore_ascii_case(name)
            }) {
                return Err(HintError::AliasRequired {
                    hint: hint.to_string(),
                    table: name.clone(),
                    alias: input.name.clone(),
                    suggestion: hint
                        .to_string()
                        .replace(&format!("'{name}'"), &format!("'{}'", input.name)),
                });
            }
            if !inputs.iter().any(|i| i.name.eq_ignore_ascii_case(name)) {
                missing.push(name.clone());
            }
            parse_duration(duration)
                .map_err(|why| bad(format!("the duration '{duration}' for `{name}` {why}")))?;
        }
        if !missing.is_empty() {
            unknown.push((hint.to_string(), missing));
        }
    }
    if !unknown.is_empty() {
        return Err(HintError::UnknownTables {
            unknown,
            in_scope: inputs.iter().map(|i| i.name.clone()).collect(),
        });
    }
    let merged = key_values(&hints, HintName::StateTtl)
        .iter()
        .map(|(k, v)| format!("'{k}'='{v}'"))
        .collect::<Vec<_>>()
        .join(", ");
    unused.push(UnusedHint {
        block,
        hint: IgnoredHint {
            hint: format!("STATE_TTL({merged})"),
            reason: IgnoreReason::StreamingOnly,
        },
    });
    Ok(())
}

/// Flink's duration units (`TimeUtils`), each with its length in
/// nanoseconds.
const UNITS: [(&[&str], u128); 7] = [
    (&["d", "day", "days"], 86_400_000_000_000),
    (&["h", "hour", "hours"], 3_600_000_000_000),
    (&["min", "m", "minute", "minutes"], 60_000_000_000),
    (&["s", "sec", "secs", "second", "seconds"], 1_000_000_000),
    (
        &["ms", "milli", "millis", "millisecond", "milliseconds"],
        1_000_000,
    ),
    (
        &["us", "µs", "micro", "micros", "microsecond", "microseconds"],
        1_000,
    ),
    (&["ns", "nano", "nanos", "nanosecond", "nanoseconds"], 1),
];

/// A duration as Flink writes it (module docs), in nanoseconds; the error
/// says what is wrong, after "the duration '...' for `t` ".
pub(crate) fn parse_duration(text: &str) -> Result<u128, String> {
    let text = text.trim();
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let usage = "is not a duration: write a whole number and a unit, e.g. '1d', '12h', \
                 '30min', '45s', '500ms' (units: d, h, min, s, ms, us, ns; no unit: \
                 milliseconds)";
    if digits == 0 {
        return Err(usage.into());
    }
    let number: u128 = text[..digits].parse().map_err(|_| usage.to_string())?;
    let unit = text[digits..].trim_start().to_ascii_lowercase();
    let scale = if unit.is_empty() {
        1_000_000
    } else {
        UNITS
            .iter()
            .find(|(names, _)| names.contains(&unit.as_str()))
            .map(|(_, ns)| *ns)
            .ok_or_else(|| usage.to_string())?
    };
    number
        .checked_mul(scale)
        .filter(|ns| *ns <= u128::from(u64::MAX))
        .ok_or_else(|| "is too long (at most about 584 years)".to_string())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations_in_flinks_units() {
        let h = 3_600_000_000_000u128;
        assert_eq!(parse_duration("12h"), Ok(12 * h));
        assert_eq!(parse_duration("1d"), Ok(24 * h));
        assert_eq!(parse_duration("360000s"), Ok(100 * h));
        assert_eq!(parse_duration(" 15 MIN "), Ok(h / 4));
        assert_eq!(parse_duration("1500"), Ok(1_500_000_000));
        assert_eq!(parse_duration("2 days"), Ok(48 * h));
        for bad in ["forever", "", "1.5h", "-1d", "1 fortnight", "d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("99999999999999999999d").is_err());
    }
}
