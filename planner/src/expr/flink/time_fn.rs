//! Flink's date and time functions: `DATE_FORMAT`, `TIMESTAMPADD`,
//! `TIMESTAMPDIFF`, `UNIX_TIMESTAMP(s[, fmt])`, `FROM_UNIXTIME`,
//! `TO_TIMESTAMP`, `TO_DATE` and the date parts (`YEAR`, `QUARTER`,
//! `MONTH`, `WEEK`, `DAYOFYEAR`, `DAYOFMONTH`, `DAYOFWEEK`, `HOUR`,
//! `MINUTE`, `SECOND`). Times are read and written in UTC, tenon's session
//! time zone. `UNIX_TIMESTAMP()` without arguments is the query's start
//! (`expr::scalar_fn`).

use std::sync::Arc;

use arrow_array::{ArrayRef, Date32Array, Int32Array, Int64Array, StringArray};
use arrow_schema::{DataType, TimeUnit};
use chrono::{Datelike, Duration, Months, NaiveDateTime, Timelike};
use datafusion_common::{Result as DfResult, ScalarValue, exec_err, plan_err};
use datafusion_expr::{ScalarUDF, Volatility};

use super::java_pattern::JavaPattern;
use super::{
    date_times, epoch_millis, function, integers, is_date_time_or_text, literal_text, rows_of,
    strings, timestamps_of,
};

/// Flink's default pattern of `UNIX_TIMESTAMP(s)` and `FROM_UNIXTIME(n)`.
const DEFAULT_PATTERN: &str = "yyyy-MM-dd HH:mm:ss";

pub(super) fn functions() -> Vec<Arc<ScalarUDF>> {
    let imm = Volatility::Immutable;
    let mut all = vec![
        function(
            "date_format",
            (2, 2),
            imm,
            date_format_type,
            Some(check_pattern_at::<1>),
            date_format,
        ),
        function(
            "timestampadd",
            (3, 3),
            imm,
            timestampadd_type,
            Some(check_unit),
            timestampadd,
        ),
        function(
            "timestampdiff",
            (3, 3),
            imm,
            |_| Ok(DataType::Int32),
            Some(check_unit),
            timestampdiff,
        ),
        function(
            "unix_timestamp",
            (0, 2),
            imm,
            |_| Ok(DataType::Int64),
            Some(check_pattern_at::<1>),
            unix_timestamp,
        ),
        function(
            "from_unixtime",
            (1, 2),
            imm,
            |_| Ok(DataType::Utf8),
            Some(check_pattern_at::<1>),
            from_unixtime,
        ),
        function(
            "to_timestamp",
            (1, 2),
            imm,
            |_| Ok(DataType::Timestamp(TimeUnit::Millisecond, None)),
            Some(check_pattern_at::<1>),
            to_timestamp,
        ),
        function(
            "to_date",
            (1, 2),
            imm,
            |_| Ok(DataType::Date32),
            Some(check_pattern_at::<1>),
            to_date,
        ),
    ];
    for (name, _) in PARTS {
        all.push(function(name, (1, 1), imm, part_type, None, date_part));
    }
    all
}

/// Checks a literal pattern at argument `I`.
fn check_pattern_at<const I: usize>(args: &[Option<&ScalarValue>]) -> DfResult<()> {
    if let Some(Some(p)) = literal_text(args.get(I).copied().flatten()) {
        JavaPattern::new(&p).map_err(datafusion_common::DataFusionError::Plan)?;
    }
    Ok(())
}

fn date_format_type(args: &[DataType]) -> DfResult<DataType> {
    if matches!(args[0], DataType::Date32 | DataType::Date64) {
        return plan_err!(
            "DATE_FORMAT takes a timestamp or a string, not a date (as in Flink): \
             DATE_FORMAT(CAST(d AS TIMESTAMP(3)), ...)"
        );
    }
    if !is_date_time_or_text(&args[0]) {
        return plan_err!(
            "DATE_FORMAT takes a timestamp or a string to format, not {}",
            args[0]
        );
    }
    Ok(DataType::Utf8)
}

/// Formats each row's value in its row's pattern (a pattern is read once
/// while it repeats).
fn format_rows(
    values: &[Option<NaiveDateTime>],
    patterns: &[Option<String>],
) -> DfResult<ArrayRef> {
    let mut last: Option<(String, JavaPattern)> = None;
    let mut out = Vec::with_capacity(values.len());
    for (v, p) in values.iter().zip(patterns) {
        let (Some(v), Some(p)) = (v, p) else {
            out.push(None);
            continue;
        };
        if last.as_ref().is_none_or(|(text, _)| text != p) {
            let read =
                JavaPattern::new(p).map_err(datafusion_common::DataFusionError::Execution)?;
            last = Some((p.clone(), read));
        }
        out.push(last.as_ref().map(|(_, read)| read.format(v)));
    }
    Ok(Arc::new(StringArray::from(out)))
}

fn date_format(_name: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    format_rows(&date_times(&args[0])?, &strings(&args[1])?)
}

/// The units of `TIMESTAMPADD` and `TIMESTAMPDIFF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl Unit {
    fn read(text: &str) -> Option<Unit> {
        Some(match text.to_ascii_uppercase().as_str() {
            "SECOND" => Unit::Second,
            "MINUTE" => Unit::Minute,
            "HOUR" => Unit::Hour,
            "DAY" => Unit::Day,
            "WEEK" => Unit::Week,
            "MONTH" => Unit::Month,
            "QUARTER" => Unit::Quarter,
            "YEAR" => Unit::Year,
            _ => return None,
        })
    }

    /// How many months one unit is, for the calendar units.
    fn months(self) -> Option<i64> {
        match self {
            Unit::Month => Some(1),
            Unit::Quarter => Some(3),
            Unit::Year => Some(12),
            _ => None,
        }
    }

    /// How many seconds one unit is, for the fixed units.
    fn seconds(self) -> i64 {
        match self {
            Unit::Second => 1,
            Unit::Minute => 60,
            Unit::Hour => 3_600,
            Unit::Day => 86_400,
            _ => 7 * 86_400,
        }
    }
}

const UNITS: &str = "SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR";

fn unit_of(text: Option<&str>) -> DfResult<Unit> {
    match text.and_then(Unit::read) {
        Some(u) => Ok(u),
        None => plan_err!(
            "the unit of TIMESTAMPADD and TIMESTAMPDIFF is one of {UNITS}, written as a word \
             (TIMESTAMPADD(DAY, 1, ts)), not {}",
            text.unwrap_or("an expression")
        ),
    }
}

fn check_unit(args: &[Option<&ScalarValue>]) -> DfResult<()> {
    let text = literal_text(args.first().copied().flatten()).flatten();
    unit_of(text.as_deref()).map(drop)
}

fn timestampadd_type(args: &[DataType]) -> DfResult<DataType> {
    match &args[2] {
        t @ DataType::Timestamp(..) => Ok(t.clone()),
        DataType::Date32 | DataType::Date64 => Ok(DataType::Date32),
        t if is_date_time_or_text(t) => Ok(DataType::Timestamp(TimeUnit::Millisecond, None)),
        t => plan_err!("TIMESTAMPADD adds to a timestamp or a date, not {t}"),
    }
}

/// `t` plus `n` units; `None` past the calendar's end.
fn add(t: &NaiveDateTime, unit: Unit, n: i64) -> Option<NaiveDateTime> {
    match unit.months() {
        Some(m) => {
            let months = n.checked_mul(m)?;
            let count = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
            if months >= 0 {
                t.checked_add_months(count)
            } else {
                t.checked_sub_months(count)
            }
        }
        None => t.checked_add_signed(Duration::try_seconds(n.checked_mul(unit.seconds())?)?),
    }
}

fn timestampadd(
    _name: &str,
    args: &[ArrayRef],
    _rows: usize,
    ret: &DataType,
) -> DfResult<ArrayRef> {
    let units = strings(&args[0])?;
    let counts = integers(&args[1])?;
    let times = date_times(&args[2])?;
    let mut out = Vec::with_capacity(times.len());
    for ((u, n), t) in units.iter().zip(&counts).zip(&times) {
        let (Some(n), Some(t)) = (n, t) else {
            out.push(None);
            continue;
        };
        let unit = unit_of(u.as_deref())?;
        match add(t, unit, *n) {
            Some(v) => out.push(Some(v)),
            None => {
                return exec_err!("TIMESTAMPADD({unit:?}, {n}, {t}) is past the calendar's end");
            }
        }
    }
    if *ret == DataType::Date32 {
        let days: Vec<Option<i32>> = out
            .iter()
            .map(|t| t.map(|t| (epoch_millis(&t).div_euclid(86_400_000)) as i32))
            .collect();
        return Ok(Arc::new(Date32Array::from(days)));
    }
    timestamps_of(out, ret)
}

/// Whole units from `a` to `b`, truncated toward zero (calendar units
/// count whole months, as Flink counts them).
fn diff(unit: Unit, a: &NaiveDateTime, b: &NaiveDateTime) -> i64 {
    match unit.months() {
        Some(m) => {
            let mut months =
                i64::from(b.year() - a.year()) * 12 + i64::from(b.month()) - i64::from(a.month());
            // the part of the month after the day: day, then time of day
            let rest = |t: &NaiveDateTime| (t.day(), t.time());
            if months > 0 && rest(b) < rest(a) {
                months -= 1;
            } else if months < 0 && rest(b) > rest(a) {
                months += 1;
            }
            months / m
        }
        None => {
            let millis = epoch_millis(b) - epoch_millis(a);
            millis / (unit.seconds() * 1_000)
        }
    }
}

fn timestampdiff(_name: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let units = strings(&args[0])?;
    let a = date_times(&args[1])?;
    let b = date_times(&args[2])?;
    let mut out = Vec::with_capacity(a.len());
    for ((u, a), b) in units.iter().zip(&a).zip(&b) {
        let (Some(a), Some(b)) = (a, b) else {
            out.push(None);
            continue;
        };
        let d = diff(unit_of(u.as_deref())?, a, b);
        match i32::try_from(d) {
            Ok(d) => out.push(Some(d)),
            Err(_) => return exec_err!("TIMESTAMPDIFF of {a} and {b} is {d}, past INT's range"),
        }
    }
    Ok(Arc::new(Int32Array::from(out)))
}

/// Each row's text read with its row's pattern (or `default`, a Java
/// pattern, or Flink's default timestamp text when `None`).
fn parse_rows(args: &[ArrayRef], default: Option<&str>) -> DfResult<Vec<Option<NaiveDateTime>>> {
    let text = strings(&args[0])?;
    let patterns: Vec<Option<String>> = match args.get(1) {
        Some(p) => strings(p)?,
        None => vec![default.map(str::to_string); text.len()],
    };
    let mut last: Option<(String, JavaPattern)> = None;
    let mut out = Vec::with_capacity(text.len());
    for (i, s) in text.iter().enumerate() {
        let Some(s) = s else {
            out.push(None);
            continue;
        };
        let Some(p) = &patterns[i] else {
            if args.len() > 1 {
                out.push(None);
            } else {
                out.push(super::java_pattern::parse_default_timestamp(s));
            }
            continue;
        };
        if last.as_ref().is_none_or(|(text, _)| text != p) {
            let read =
                JavaPattern::new(p).map_err(datafusion_common::DataFusionError::Execution)?;
            last = Some((p.clone(), read));
        }
        let parsed = match &last {
            Some((_, read)) => read
                .parse(s.trim())
                .map_err(datafusion_common::DataFusionError::Execution)?,
            None => None,
        };
        out.push(parsed);
    }
    Ok(out)
}

fn unix_timestamp(_name: &str, args: &[ArrayRef], rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    if args.is_empty() {
        return exec_err!("internal: UNIX_TIMESTAMP() is fixed when the query is compiled");
    }
    let _ = rows_of(args, rows);
    let times = parse_rows(args, Some(DEFAULT_PATTERN))?;
    let text = strings(&args[0])?;
    let patterns = match args.get(1) {
        Some(p) => strings(p)?,
        None => vec![Some(String::new()); text.len()],
    };
    // text that does not match is Long.MIN_VALUE, as in Flink
    let secs: Vec<Option<i64>> = times
        .iter()
        .zip(text.iter().zip(&patterns))
        .map(|(t, (s, p))| match t {
            Some(t) => Some(t.and_utc().timestamp()),
            None => (s.is_some() && p.is_some()).then_some(i64::MIN),
        })
        .collect();
    Ok(Arc::new(Int64Array::from(secs)))
}

fn from_unixtime(_name: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let secs = integers(&args[0])?;
    let times: Vec<Option<NaiveDateTime>> = secs
        .iter()
        .map(|s| s.and_then(|s| chrono::DateTime::from_timestamp(s, 0).map(|d| d.naive_utc())))
        .collect();
    let patterns = match args.get(1) {
        Some(p) => strings(p)?,
        None => vec![Some(DEFAULT_PATTERN.to_string()); secs.len()],
    };
    format_rows(&times, &patterns)
}

fn to_timestamp(
    _name: &str,
    args: &[ArrayRef],
    _rows: usize,
    ret: &DataType,
) -> DfResult<ArrayRef> {
    timestamps_of(parse_rows(args, None)?, ret)
}

fn to_date(_name: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    // without a pattern, text as TO_TIMESTAMP reads it (a time is ignored)
    let days: Vec<Option<i32>> = parse_rows(args, None)?
        .iter()
        .map(|t| t.map(|t| epoch_millis(&t).div_euclid(86_400_000) as i32))
        .collect();
    Ok(Arc::new(Date32Array::from(days)))
}

/// What a date part takes from a date and time.
type Part = fn(&NaiveDateTime) -> i64;

/// The date parts: name and what each takes from a date and time.
const PARTS: [(&str, Part); 10] = [
    ("year", |t| i64::from(t.year())),
    ("quarter", |t| i64::from(t.month0() / 3 + 1)),
    ("month", |t| i64::from(t.month())),
    ("week", |t| i64::from(t.iso_week().week())),
    ("dayofyear", |t| i64::from(t.ordinal())),
    ("dayofmonth", |t| i64::from(t.day())),
    // 1 for Sunday to 7 for Saturday, as in Flink
    ("dayofweek", |t| i64::from(t.weekday().number_from_sunday())),
    ("hour", |t| i64::from(t.hour())),
    ("minute", |t| i64::from(t.minute())),
    ("second", |t| i64::from(t.second())),
];

fn part_type(args: &[DataType]) -> DfResult<DataType> {
    if !is_date_time_or_text(&args[0]) {
        return plan_err!("takes a date or a timestamp, not {}", args[0]);
    }
    Ok(DataType::Int64)
}

fn date_part(name: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let Some((_, part)) = PARTS.iter().find(|(n, _)| *n == name) else {
        return exec_err!("internal: no date part {name}");
    };
    let out: Vec<Option<i64>> = date_times(&args[0])?
        .iter()
        .map(|t| t.as_ref().map(part))
        .collect();
    Ok(Arc::new(Int64Array::from(out)))
}
