//! SQL-standard interval ranges (`INTERVAL '1:30' HOUR TO MINUTE`)
//! rewritten before planning into the unit list DataFusion plans
//! (`INTERVAL '1 hours 30 minutes'`): datafusion-sql refuses a literal with
//! a last field.
//!
//! The forms are the standard's: `'Y-M' YEAR TO MONTH`, `'D H' DAY TO
//! HOUR`, `'D H:M' DAY TO MINUTE`, `'D H:M:S' DAY TO SECOND`, `'H:M' HOUR
//! TO MINUTE`, `'H:M:S' HOUR TO SECOND` and `'M:S' MINUTE TO SECOND`, with
//! an optional leading sign that applies to every field (PostgreSQL's
//! reading). Anything else with a last field is an error naming the
//! literal and the form expected.

use std::ops::ControlFlow;

use sqlparser::ast::{
    DateTimeField, Expr, Interval, Statement, Value, ValueWithSpan, VisitMut, VisitorMut,
};

use super::error::SqlError;

/// Rewrites every interval range literal of `statement`.
pub(crate) fn rewrite_interval_ranges(statement: &mut Statement) -> Result<(), SqlError> {
    struct Ranges;
    impl VisitorMut for Ranges {
        type Break = SqlError;
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<SqlError> {
            if let Expr::Interval(i) = expr
                && i.last_field.is_some()
            {
                match unit_list(i) {
                    Ok(text) => {
                        *expr = Expr::Interval(Interval {
                            value: Box::new(Expr::Value(ValueWithSpan::from(
                                Value::SingleQuotedString(text),
                            ))),
                            leading_field: None,
                            leading_precision: None,
                            last_field: None,
                            fractional_seconds_precision: None,
                        })
                    }
                    Err(e) => return ControlFlow::Break(e),
                }
            }
            ControlFlow::Continue(())
        }
    }
    match VisitMut::visit(statement, &mut Ranges) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// The fields of a range, most significant first, and the separators of
/// its text.
fn fields(
    leading: &DateTimeField,
    last: &DateTimeField,
) -> Option<(&'static [&'static str], &'static str)> {
    use DateTimeField as F;
    Some(match (leading, last) {
        (F::Year, F::Month) => (&["years", "months"], "Y-M"),
        (F::Day, F::Hour) => (&["days", "hours"], "D H"),
        (F::Day, F::Minute) => (&["days", "hours", "minutes"], "D H:M"),
        (F::Day, F::Second) => (&["days", "hours", "minutes", "seconds"], "D H:M:S"),
        (F::Hour, F::Minute) => (&["hours", "minutes"], "H:M"),
        (F::Hour, F::Second) => (&["hours", "minutes", "seconds"], "H:M:S"),
        (F::Minute, F::Second) => (&["minutes", "seconds"], "M:S"),
        _ => return None,
    })
}

/// The unit list of a range literal: `'-1:30' HOUR TO MINUTE` is
/// `-1 hours -30 minutes`.
fn unit_list(i: &Interval) -> Result<String, SqlError> {
    let shown = || i.to_string();
    let (Some(leading), Some(last)) = (&i.leading_field, &i.last_field) else {
        return Err(SqlError::Unsupported(format!(
            "{}: an interval range needs a leading field (e.g. HOUR TO MINUTE)",
            shown()
        )));
    };
    let Some((names, form)) = fields(leading, last) else {
        return Err(SqlError::Unsupported(format!(
            "{}: the range {leading} TO {last} is not one of YEAR TO MONTH, DAY TO HOUR|MINUTE|\
             SECOND, HOUR TO MINUTE|SECOND, MINUTE TO SECOND",
            shown()
        )));
    };
    let bad = || {
        SqlError::Unsupported(format!(
            "{}: expected a string of the form '{form}' (digits; an optional leading sign)",
            shown()
        ))
    };
    let text = match i.value.as_ref() {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => s.trim().to_string(),
            _ => return Err(bad()),
        },
        _ => return Err(bad()),
    };
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(&text)),
    };
    let parts: Vec<&str> = body
        .split(|c| c == ' ' || c == ':' || (c == '-' && form == "Y-M"))
        .collect();
    if parts.len() != names.len() {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(parts.len());
    for (k, (part, name)) in parts.iter().zip(names).enumerate() {
        // only the last field (seconds) may have a fraction
        let last_seconds = k + 1 == parts.len() && *name == "seconds";
        let ok = !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_digit() || (last_seconds && c == '.'))
            && part.chars().filter(|&c| c == '.').count() <= 1
            && part.chars().next().is_some_and(|c| c.is_ascii_digit());
        if !ok {
            return Err(bad());
        }
        let sign = if negative { "-" } else { "" };
        out.push(format!("{sign}{part} {name}"));
    }
    Ok(out.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> Result<String, SqlError> {
        let mut s = crate::sql::views::parse_query(sql, &crate::sql::Catalog::new())?;
        rewrite_interval_ranges(&mut s)?;
        Ok(s.to_string())
    }

    #[test]
    fn ranges_become_unit_lists() {
        for (range, want) in [
            ("'1:30' HOUR TO MINUTE", "'1 hours 30 minutes'"),
            ("'-1:30' HOUR TO MINUTE", "'-1 hours -30 minutes'"),
            (
                "'2 03:04:05.5' DAY TO SECOND",
                "'2 days 03 hours 04 minutes 05.5 seconds'",
            ),
            ("'1-2' YEAR TO MONTH", "'1 years 2 months'"),
            ("'10:15' MINUTE TO SECOND", "'10 minutes 15 seconds'"),
        ] {
            let sql = format!("SELECT INTERVAL {range}");
            assert_eq!(
                rewritten(&sql).unwrap(),
                format!("SELECT INTERVAL {want}"),
                "{sql}"
            );
        }
    }

    #[test]
    fn malformed_ranges_are_errors_naming_the_form() {
        for (range, form) in [
            ("'1:30:00' HOUR TO MINUTE", "'H:M'"),
            ("'x:30' HOUR TO MINUTE", "'H:M'"),
            ("'1.5:30' HOUR TO MINUTE", "'H:M'"),
        ] {
            let err = rewritten(&format!("SELECT INTERVAL {range}"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(form) && err.contains("HOUR TO MINUTE"),
                "{err}"
            );
        }
        let err = rewritten("SELECT INTERVAL '1' MONTH TO DAY")
            .unwrap_err()
            .to_string();
        assert!(err.contains("MONTH TO DAY"), "{err}");
    }
}
