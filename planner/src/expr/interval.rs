//! INTERVAL in expressions: what Arrow's arithmetic kernels do not decide
//! the way SQL does, and intervals shown as SQL writes them.
//!
//! Arrow's `add`/`sub` on a timestamp or date and an interval do the rest:
//! months are calendar months clamped to the month's last day
//! (`DATE '2024-01-31' + INTERVAL '1' MONTH` is `2024-02-29`, as in
//! PostgreSQL and DuckDB), days and times are added in the timestamp's
//! unit keeping its time zone, a result beyond the type's range is an
//! error ("Timestamp out of range", never a wrapped value), and NULL gives
//! NULL.
//!
//! One case differs: Arrow adds an interval with a time of day to a DATE by
//! dropping the time (`DATE '2024-01-01' + INTERVAL '1' HOUR` would be
//! `2024-01-01`). SQL's answer is a timestamp (`2024-01-01 01:00:00`), so a
//! constant interval with a time part makes the date a microsecond
//! timestamp first ([`date_operands`]); a computed one is checked per
//! batch ([`check_date_interval`]) and is an error if any value has one.

use arrow_array::cast::AsArray;
use arrow_array::types::{IntervalDayTimeType, IntervalMonthDayNanoType};
use arrow_array::{Array, IntervalMonthDayNanoArray};
use arrow_schema::{DataType, IntervalUnit, TimeUnit};
use datafusion_common::ScalarValue;
use datafusion_expr::Operator;

use crate::expr::coerce::cast_to;
use crate::expr::error::{ExprError, Result};
use crate::expr::physical::{Node, PhysicalExpr};
use crate::expr::value::Value;

/// SQL text of an interval literal: `INTERVAL '1 months 2 days 00:10:00'`,
/// `INTERVAL '-5 seconds'`; `None` for other values.
pub(crate) fn literal_text(v: &ScalarValue) -> Option<String> {
    let (months, days, nanos) = match v {
        ScalarValue::IntervalMonthDayNano(Some(i)) => (i.months, i.days, i128::from(i.nanoseconds)),
        ScalarValue::IntervalDayTime(Some(i)) => {
            (0, i.days, i128::from(i.milliseconds) * 1_000_000)
        }
        ScalarValue::IntervalYearMonth(Some(m)) => (*m, 0, 0),
        _ => return None,
    };
    let mut parts = Vec::new();
    if months != 0 {
        parts.push(format!("{months} months"));
    }
    if days != 0 {
        parts.push(format!("{days} days"));
    }
    if nanos != 0 || parts.is_empty() {
        let sign = if nanos < 0 { "-" } else { "" };
        let n = nanos.unsigned_abs();
        let (h, m, s, frac) = (
            n / 3_600_000_000_000,
            n / 60_000_000_000 % 60,
            n / 1_000_000_000 % 60,
            n % 1_000_000_000,
        );
        let frac = if frac == 0 {
            String::new()
        } else {
            format!(".{frac:09}").trim_end_matches('0').to_string()
        };
        parts.push(format!("{sign}{h:02}:{m:02}:{s:02}{frac}"));
    }
    Some(format!("INTERVAL '{}'", parts.join(" ")))
}

/// `text` (an expression as DataFusion displays it) with every interval
/// literal written as SQL: `r.t + IntervalMonthDayNano("IntervalMonthDayNano
/// { months: 0, days: 0, nanoseconds: 600000000000 }")` becomes `r.t +
/// INTERVAL '00:10:00'`. For EXPLAIN's join conditions.
pub(crate) fn readable_intervals(text: &str) -> String {
    const HEAD: &str = "IntervalMonthDayNano(\"IntervalMonthDayNano { months: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HEAD) {
        out.push_str(&rest[..at]);
        let body = &rest[at + HEAD.len()..];
        match parse_month_day_nano(body) {
            Some((value, used)) => {
                out.push_str(&literal_text(&value).unwrap_or_default());
                rest = &body[used..];
            }
            None => {
                out.push_str(HEAD);
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `M, days: D, nanoseconds: N }")` at the start of `s`: the interval and
/// the bytes it took.
fn parse_month_day_nano(s: &str) -> Option<(ScalarValue, usize)> {
    fn number<T: std::str::FromStr>(s: &str, end: &str) -> Option<(T, usize)> {
        let stop = s.find(end)?;
        Some((s[..stop].trim().parse().ok()?, stop + end.len()))
    }
    let (months, a) = number::<i32>(s, ", days: ")?;
    let (days, b) = number::<i32>(&s[a..], ", nanoseconds: ")?;
    let (nanos, c) = number::<i64>(&s[a + b..], " }\")")?;
    let value = ScalarValue::IntervalMonthDayNano(Some(arrow_buffer::IntervalMonthDayNano::new(
        months, days, nanos,
    )));
    Some((value, a + b + c))
}

fn is_date(t: &DataType) -> bool {
    matches!(t, DataType::Date32 | DataType::Date64)
}

fn is_interval(t: &DataType) -> bool {
    matches!(t, DataType::Interval(_))
}

/// Whether a constant interval has a time-of-day part (`None`: not a
/// constant interval).
fn constant_time_part(e: &PhysicalExpr) -> Option<bool> {
    let Node::Literal(v) = &*e.node else {
        return None;
    };
    has_time_part(v.inner().as_ref())
}

/// Whether any value of an interval array has a time-of-day part (`None`:
/// not an interval with one possible).
fn has_time_part(a: &dyn Array) -> Option<bool> {
    match a.data_type() {
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            let a: &IntervalMonthDayNanoArray = a.as_primitive::<IntervalMonthDayNanoType>();
            Some((0..a.len()).any(|i| a.is_valid(i) && a.value(i).nanoseconds != 0))
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            let a = a.as_primitive::<IntervalDayTimeType>();
            Some((0..a.len()).any(|i| a.is_valid(i) && a.value(i).milliseconds != 0))
        }
        _ => None,
    }
}

/// The operands of `l <operator> r`, with a date made a microsecond
/// timestamp when the other operand is a constant interval with a time of
/// day (`DATE '2024-01-01' + INTERVAL '90' MINUTE` is a timestamp).
pub(crate) fn date_operands(
    operator: Operator,
    l: PhysicalExpr,
    r: PhysicalExpr,
    text: &str,
) -> Result<(PhysicalExpr, PhysicalExpr)> {
    if !matches!(operator, Operator::Plus | Operator::Minus) {
        return Ok((l, r));
    }
    let ts = DataType::Timestamp(TimeUnit::Microsecond, None);
    if is_date(l.data_type()) && constant_time_part(&r) == Some(true) {
        return Ok((cast_to(l, &ts, text)?, r));
    }
    if operator == Operator::Plus && is_date(r.data_type()) && constant_time_part(&l) == Some(true)
    {
        return Ok((l, cast_to(r, &ts, text)?));
    }
    Ok((l, r))
}

/// Refuses a date plus or minus computed intervals with a time of day,
/// which Arrow would truncate to the day (rows where either is NULL give
/// NULL and are not refused).
pub(crate) fn check_date_interval(l: &Value, r: &Value, text: &str) -> Result<()> {
    let (lt, rt) = (l.data_type(), r.data_type());
    let (date, interval) = if is_date(lt) && is_interval(rt) {
        (l, r)
    } else if is_date(rt) && is_interval(lt) {
        (r, l)
    } else {
        return Ok(());
    };
    let (d, i) = (date.inner(), interval.inner());
    let time_of_day = |row: usize| -> bool {
        let di = if date.is_scalar() { 0 } else { row };
        let ii = if interval.is_scalar() { 0 } else { row };
        d.is_valid(di) && has_time_part(i.slice(ii, 1).as_ref()) == Some(true)
    };
    let rows = d.len().max(i.len());
    if (0..rows).any(time_of_day) {
        return Err(ExprError::unsupported(
            text,
            "a DATE plus or minus an INTERVAL with hours, minutes or seconds is a timestamp; \
             cast the date to TIMESTAMP first",
        ));
    }
    Ok(())
}

/// The error of a timestamp or date result that Arrow found out of its
/// type's range, in tenon's words (`None`: not such an error).
pub(crate) fn out_of_range(
    text: &str,
    l: &DataType,
    r: &DataType,
    err: &arrow_schema::ArrowError,
) -> Option<ExprError> {
    let time = |t: &DataType| {
        matches!(
            t,
            DataType::Timestamp(..) | DataType::Date32 | DataType::Date64
        )
    };
    let (t, other) = if time(l) { (l, r) } else { (r, l) };
    if !time(t) || !is_interval(other) {
        return None;
    }
    let message = err.to_string();
    if !(message.contains("out of range") || message.contains("overflow")) {
        return None;
    }
    let hint = match t {
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            "; nanosecond timestamps reach the years 1677 to 2262, cast to TIMESTAMP(6) for more"
        }
        _ => "",
    };
    Some(ExprError::Eval {
        expr: text.to_string(),
        message: format!("the result is out of the range of {t}{hint}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_buffer::IntervalMonthDayNano;

    fn mdn(m: i32, d: i32, n: i64) -> ScalarValue {
        ScalarValue::IntervalMonthDayNano(Some(IntervalMonthDayNano::new(m, d, n)))
    }

    #[test]
    fn intervals_are_shown_as_sql_writes_them() {
        let text = |v| literal_text(&v).unwrap();
        assert_eq!(text(mdn(0, 0, 600_000_000_000)), "INTERVAL '00:10:00'");
        assert_eq!(text(mdn(0, 0, -5_000_000_000)), "INTERVAL '-00:00:05'");
        assert_eq!(text(mdn(1, 2, 0)), "INTERVAL '1 months 2 days'");
        assert_eq!(text(mdn(0, 0, 5_400_500_000_000)), "INTERVAL '01:30:00.5'");
        assert_eq!(text(mdn(0, 0, 0)), "INTERVAL '00:00:00'");
        assert_eq!(literal_text(&ScalarValue::Int64(Some(3))), None);
    }

    #[test]
    fn displayed_expressions_get_readable_intervals() {
        let e = datafusion_expr::col("r.t") + datafusion_expr::lit(mdn(0, 0, 600_000_000_000));
        let shown = format!("l.t < {e} AND l.t >= {e}");
        assert_eq!(
            readable_intervals(&shown),
            "l.t < r.t + INTERVAL '00:10:00' AND l.t >= r.t + INTERVAL '00:10:00'"
        );
        assert_eq!(readable_intervals("a = b"), "a = b");
        let broken = "IntervalMonthDayNano(\"IntervalMonthDayNano { months: x";
        assert_eq!(readable_intervals(broken), broken);
    }
}
