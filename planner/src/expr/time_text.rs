//! The one text format of timestamps: `2024-01-15 09:05:07.123`.
//!
//! Everywhere a timestamp becomes text (`CAST(ts AS STRING)`, the string
//! functions that coerce a timestamp, CSV, JSON and table output) it is
//! written by [`timestamp_text`]: date and time separated by a space (as
//! Flink, DuckDB and the SQL standard write them, not ISO 8601's `T`), with
//! as many fraction digits as the type declares (`TIMESTAMP(3)`, Arrow's
//! milliseconds: always three, `.000` included; seconds: none), as Flink
//! prints them. A timestamp with a time zone (Flink's `TIMESTAMP_LTZ`) is
//! written as the wall-clock time in that zone, without the zone, as Flink
//! prints a `TIMESTAMP_LTZ`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::timezone::Tz;
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, StringArray};
use arrow_schema::{ArrowError, DataType, TimeUnit};
use chrono::{DateTime, Datelike, NaiveDateTime, Offset, TimeZone, Timelike};

/// The number of fraction digits a timestamp of `unit` is written with.
pub fn fraction_digits(unit: TimeUnit) -> usize {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

/// `value` (in `unit`s since 1970-01-01 00:00 UTC) as a date and time in
/// UTC; `None` when it is outside the years chrono can hold (about ±262,000).
pub fn to_naive(value: i64, unit: TimeUnit) -> Option<NaiveDateTime> {
    let (secs, nanos) = match unit {
        TimeUnit::Second => (value, 0),
        TimeUnit::Millisecond => (value.div_euclid(1_000), value.rem_euclid(1_000) * 1_000_000),
        TimeUnit::Microsecond => (
            value.div_euclid(1_000_000),
            value.rem_euclid(1_000_000) * 1_000,
        ),
        TimeUnit::Nanosecond => (
            value.div_euclid(1_000_000_000),
            value.rem_euclid(1_000_000_000),
        ),
    };
    DateTime::from_timestamp(secs, nanos as u32).map(|d| d.naive_utc())
}

/// `utc` as the wall-clock time in `tz`.
pub fn in_zone(utc: NaiveDateTime, tz: &Tz) -> NaiveDateTime {
    let offset = tz.offset_from_utc_datetime(&utc).fix();
    utc + offset
}

/// Writes `t` in the timestamp text format with `digits` fraction digits
/// (0 to 9): `2024-01-15 09:05:07.123`.
pub fn write_timestamp(out: &mut String, t: &NaiveDateTime, digits: usize) {
    use std::fmt::Write;
    let year = t.year();
    // Years past 9999 or before 0 keep their sign and digits.
    let _ = if (0..=9999).contains(&year) {
        write!(out, "{year:04}")
    } else {
        write!(out, "{year:+}")
    };
    let _ = write!(
        out,
        "-{:02}-{:02} {:02}:{:02}:{:02}",
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if digits > 0 {
        let nanos = t.nanosecond() % 1_000_000_000;
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(&fraction[..digits.min(9)]);
    }
}

/// One timestamp in the timestamp text format (see the module docs).
pub fn format_timestamp(t: &NaiveDateTime, digits: usize) -> String {
    let mut s = String::with_capacity(20 + digits);
    write_timestamp(&mut s, t, digits);
    s
}

/// The timestamp column `array` as text (a `Utf8` array, NULLs kept), in
/// the timestamp text format; `None` when `array` is not a timestamp
/// column.
///
/// # Errors
/// A value outside the years a calendar date can hold (a corrupt or
/// sentinel value such as `2^63 - 1` milliseconds), naming its row (from
/// 1), or a time zone Arrow does not know.
pub fn timestamp_text(array: &dyn Array) -> Result<Option<ArrayRef>, ArrowError> {
    let DataType::Timestamp(unit, tz) = array.data_type() else {
        return Ok(None);
    };
    let unit = *unit;
    let zone: Option<Tz> = tz.as_deref().map(str::parse).transpose()?;
    let values: Vec<Option<i64>> = match unit {
        TimeUnit::Second => array.as_primitive::<TimestampSecondType>().iter().collect(),
        TimeUnit::Millisecond => array
            .as_primitive::<TimestampMillisecondType>()
            .iter()
            .collect(),
        TimeUnit::Microsecond => array
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect(),
        TimeUnit::Nanosecond => array
            .as_primitive::<TimestampNanosecondType>()
            .iter()
            .collect(),
    };
    let digits = fraction_digits(unit);
    let mut out: Vec<Option<String>> = Vec::with_capacity(values.len());
    for (row, v) in values.into_iter().enumerate() {
        let Some(v) = v else {
            out.push(None);
            continue;
        };
        let Some(utc) = to_naive(v, unit) else {
            return Err(ArrowError::ComputeError(format!(
                "the timestamp at row {} ({v} {} since 1970-01-01) is outside the years a \
                 calendar date can hold, so it has no text",
                row + 1,
                unit_name(unit)
            )));
        };
        let t = match &zone {
            Some(tz) => in_zone(utc, tz),
            None => utc,
        };
        out.push(Some(format_timestamp(&t, digits)));
    }
    Ok(Some(Arc::new(StringArray::from(out))))
}

/// Arrow's cast, except that a timestamp cast to a string type is written
/// in the timestamp text format ([`timestamp_text`]): every cast tenon
/// performs goes through here.
///
/// # Errors
/// As Arrow's cast, and as [`timestamp_text`].
pub fn cast(
    array: &ArrayRef,
    to: &DataType,
    options: &arrow_cast::CastOptions<'_>,
) -> Result<ArrayRef, ArrowError> {
    if matches!(
        to,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) && let Some(text) = timestamp_text(array.as_ref())?
    {
        return arrow_cast::cast_with_options(&text, to, options);
    }
    arrow_cast::cast_with_options(array, to, options)
}

fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "seconds",
        TimeUnit::Millisecond => "milliseconds",
        TimeUnit::Microsecond => "microseconds",
        TimeUnit::Nanosecond => "nanoseconds",
    }
}

/// The `chrono` format of timestamps nested in lists, maps and structs
/// (arrow-cast's display options take one format for every unit): the
/// timestamp text format with the fraction digits a value needs.
pub const NESTED_TIMESTAMP_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.f";

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::TimestampMillisecondArray;

    #[test]
    fn timestamps_print_with_a_space_and_their_declared_precision() {
        let a = TimestampMillisecondArray::from(vec![
            Some(1_705_309_507_123),
            Some(1_705_309_507_000),
            None,
        ]);
        let text = timestamp_text(&a).unwrap().unwrap();
        let text = text.as_string::<i32>();
        assert_eq!(text.value(0), "2024-01-15 09:05:07.123");
        assert_eq!(text.value(1), "2024-01-15 09:05:07.000");
        assert!(text.is_null(2));
        let z = a.with_timezone("+01:00");
        let text = timestamp_text(&z).unwrap().unwrap();
        assert_eq!(text.as_string::<i32>().value(0), "2024-01-15 10:05:07.123");
    }

    #[test]
    fn a_timestamp_no_calendar_holds_is_an_error_naming_its_row() {
        let a = TimestampMillisecondArray::from(vec![Some(0), Some(i64::MAX)]);
        let e = timestamp_text(&a).unwrap_err().to_string();
        assert!(e.contains("row 2"), "{e}");
    }
}
