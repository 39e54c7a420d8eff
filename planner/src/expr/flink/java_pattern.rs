//! Java date and time patterns (`yyyy-MM-dd HH:mm:ss`), as Flink's
//! `DATE_FORMAT`, `TO_TIMESTAMP`, `TO_DATE`, `UNIX_TIMESTAMP` and
//! `FROM_UNIXTIME` take them.
//!
//! A pattern is read once into [`JavaPattern`]'s pieces; a letter tenon
//! does not know is an error naming it and the letters it knows, never
//! literal output. Formatting writes the pieces itself; parsing translates
//! them into a `chrono` format.
//!
//! | letters | meaning |
//! |---|---|
//! | `yyyy`, `y` / `yy` | year / two-digit year |
//! | `M`, `MM` / `MMM` / `MMMM` | month number / `Jan` / `January` |
//! | `d`, `dd` | day of the month |
//! | `D`, `DDD` | day of the year |
//! | `H`, `HH` / `h`, `hh` | hour 0-23 / hour 1-12 |
//! | `m`, `mm` / `s`, `ss` | minute / second |
//! | `S` ... `SSSSSSSSS` | fraction of the second, that many digits |
//! | `a` | `AM` / `PM` |
//! | `E`, `EEE` / `EEEE` | `Mon` / `Monday` |
//! | `u` | day of the week, 1 (Monday) to 7 |
//! | `'text'`, `''` | literal text, a quote |

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};

/// One piece of a pattern; the number is how many letters were written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Year(usize),
    Month(usize),
    Day(usize),
    DayOfYear(usize),
    Hour24(usize),
    Hour12(usize),
    Minute(usize),
    Second(usize),
    Fraction(usize),
    AmPm,
    DayName(usize),
    WeekdayNumber(usize),
}

/// The letters [`JavaPattern::new`] reads, for messages.
const KNOWN: &str = "y M d D H h m s S a E u, and 'quoted text'";

/// A Java date and time pattern, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JavaPattern {
    pieces: Vec<Piece>,
}

impl JavaPattern {
    /// Reads `pattern`.
    ///
    /// # Errors
    /// A letter tenon does not read, or an unclosed quote, as a message.
    pub(crate) fn new(pattern: &str) -> Result<JavaPattern, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    literal.push('\'');
                    i += 2;
                    continue;
                }
                // inside quotes, '' is a quote and a lone ' closes them
                let mut j = i + 1;
                loop {
                    match (chars.get(j), chars.get(j + 1)) {
                        (None, _) => {
                            return Err(format!(
                                "the date pattern '{pattern}' opens a quote it does not close \
                                 (write '' for a quote character)"
                            ));
                        }
                        (Some('\''), Some('\'')) => {
                            literal.push('\'');
                            j += 2;
                        }
                        (Some('\''), _) => break,
                        (Some(&c), _) => {
                            literal.push(c);
                            j += 1;
                        }
                    }
                }
                i = j + 1;
                continue;
            }
            if !c.is_ascii_alphabetic() {
                literal.push(c);
                i += 1;
                continue;
            }
            let n = chars[i..].iter().take_while(|&&x| x == c).count();
            let piece = match c {
                'y' => Piece::Year(n),
                'M' | 'L' => Piece::Month(n),
                'd' => Piece::Day(n),
                'D' => Piece::DayOfYear(n),
                'H' => Piece::Hour24(n),
                'h' => Piece::Hour12(n),
                'm' => Piece::Minute(n),
                's' => Piece::Second(n),
                'S' if n <= 9 => Piece::Fraction(n),
                'a' => Piece::AmPm,
                'E' => Piece::DayName(n),
                'u' => Piece::WeekdayNumber(n),
                _ => {
                    return Err(format!(
                        "the date pattern '{pattern}' has the letter `{}` (position {}), \
                         which tenon does not read; it reads the Java pattern letters {KNOWN} \
                         (put other letters in quotes)",
                        c.to_string().repeat(n),
                        i + 1
                    ));
                }
            };
            if !literal.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(&mut literal)));
            }
            pieces.push(piece);
            i += n;
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        Ok(JavaPattern { pieces })
    }

    /// Whether the pattern has a time of day (hours, minutes, ...).
    fn has_time(&self) -> bool {
        self.pieces.iter().any(|p| {
            matches!(
                p,
                Piece::Hour24(_)
                    | Piece::Hour12(_)
                    | Piece::Minute(_)
                    | Piece::Second(_)
                    | Piece::Fraction(_)
            )
        })
    }

    /// `t` written in the pattern.
    pub(crate) fn format(&self, t: &NaiveDateTime) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let num = |out: &mut String, v: i64, width: usize| {
            let _ = write!(out, "{v:0width$}");
        };
        for p in &self.pieces {
            match *p {
                Piece::Literal(ref s) => out.push_str(s),
                Piece::Year(2) => num(&mut out, i64::from(t.year().rem_euclid(100)), 2),
                Piece::Year(n) => num(&mut out, i64::from(t.year()), n),
                Piece::Month(n) if n >= 4 => out.push_str(MONTHS[t.month0() as usize]),
                Piece::Month(3) => out.push_str(&MONTHS[t.month0() as usize][..3]),
                Piece::Month(n) => num(&mut out, i64::from(t.month()), n),
                Piece::Day(n) => num(&mut out, i64::from(t.day()), n),
                Piece::DayOfYear(n) => num(&mut out, i64::from(t.ordinal()), n),
                Piece::Hour24(n) => num(&mut out, i64::from(t.hour()), n),
                Piece::Hour12(n) => num(&mut out, i64::from(t.hour12().1), n),
                Piece::Minute(n) => num(&mut out, i64::from(t.minute()), n),
                Piece::Second(n) => num(&mut out, i64::from(t.second()), n),
                Piece::Fraction(n) => {
                    let nanos = format!("{:09}", t.nanosecond() % 1_000_000_000);
                    out.push_str(&nanos[..n]);
                }
                Piece::AmPm => out.push_str(if t.hour() < 12 { "AM" } else { "PM" }),
                Piece::DayName(n) => {
                    let name = DAYS[t.weekday().num_days_from_monday() as usize];
                    out.push_str(if n >= 4 { name } else { &name[..3] });
                }
                Piece::WeekdayNumber(n) => {
                    num(&mut out, i64::from(t.weekday().number_from_monday()), n)
                }
            }
        }
        out
    }

    /// The `chrono` format that reads text written in the pattern.
    fn chrono_format(&self) -> Result<String, String> {
        let mut f = String::new();
        for p in &self.pieces {
            match *p {
                Piece::Literal(ref s) => f.push_str(&s.replace('%', "%%")),
                Piece::Year(2) => f.push_str("%y"),
                Piece::Year(_) => f.push_str("%Y"),
                Piece::Month(n) if n >= 4 => f.push_str("%B"),
                Piece::Month(3) => f.push_str("%b"),
                Piece::Month(_) => f.push_str("%m"),
                Piece::Day(_) => f.push_str("%d"),
                Piece::DayOfYear(_) => f.push_str("%j"),
                Piece::Hour24(_) => f.push_str("%H"),
                Piece::Hour12(_) => f.push_str("%I"),
                Piece::Minute(_) => f.push_str("%M"),
                Piece::Second(_) => f.push_str("%S"),
                Piece::Fraction(3) => f.push_str("%3f"),
                Piece::Fraction(6) => f.push_str("%6f"),
                Piece::Fraction(9) => f.push_str("%9f"),
                Piece::Fraction(n) => {
                    return Err(format!(
                        "tenon reads a fraction of a second of 3, 6 or 9 digits (SSS, SSSSSS, \
                         SSSSSSSSS), not {n}"
                    ));
                }
                Piece::AmPm => f.push_str("%p"),
                Piece::DayName(n) if n >= 4 => f.push_str("%A"),
                Piece::DayName(_) => f.push_str("%a"),
                Piece::WeekdayNumber(_) => f.push_str("%u"),
            }
        }
        Ok(f)
    }

    /// Reads `text` written in the pattern: `Ok(None)` when it does not
    /// match (Flink's functions give NULL then); a date without a time of
    /// day is midnight. Text after the pattern's end is ignored, as Java's
    /// `SimpleDateFormat` (and so Flink) ignores it:
    /// `UNIX_TIMESTAMP('2024-01-15 09:05:07.123')` reads the seconds.
    ///
    /// # Errors
    /// A pattern tenon can write but not read (a fraction of 2 digits).
    pub(crate) fn parse(&self, text: &str) -> Result<Option<NaiveDateTime>, String> {
        let format = self.chrono_format()?;
        if self.has_time()
            && let Ok((t, _)) = NaiveDateTime::parse_and_remainder(text, &format)
        {
            return Ok(Some(t));
        }
        Ok(NaiveDate::parse_and_remainder(text, &format)
            .ok()
            .and_then(|(d, _)| d.and_hms_opt(0, 0, 0)))
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Reads a timestamp written as Flink writes one by default:
/// `yyyy-MM-dd`, then optionally ` HH:mm`, `:ss` and a fraction of up to 9
/// digits (`T` also separates date and time). `None` when it is not one.
pub(crate) fn parse_default_timestamp(text: &str) -> Option<NaiveDateTime> {
    let text = text.trim();
    let (date, time) = match text.find([' ', 'T']) {
        Some(i) => (&text[..i], Some(text[i + 1..].trim_start())),
        None => (text, None),
    };
    let date = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    let Some(time) = time else {
        return date.and_hms_opt(0, 0, 0);
    };
    let (hms, fraction) = match time.split_once('.') {
        Some((hms, f)) => (hms, Some(f)),
        None => (time, None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let field = |s: &str, max: u32| -> Option<u32> {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
            .filter(|&v| v <= max)
    };
    let (h, m, s) = match parts.as_slice() {
        [h, m] => (field(h, 23)?, field(m, 59)?, 0),
        [h, m, s] => (field(h, 23)?, field(m, 59)?, field(s, 59)?),
        _ => return None,
    };
    let nanos = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<9}").parse().ok()?
        }
        Some(_) => return None,
    };
    date.and_hms_nano_opt(h, m, s, nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2024, 1, 5)
            .unwrap()
            .and_hms_milli_opt(14, 5, 7, 123)
            .unwrap()
    }

    #[test]
    fn java_letters_format_as_flink_writes_them() {
        let cases = [
            ("yyyy-MM-dd HH:mm", "2024-01-05 14:05"),
            ("yy/M/d H:m:s", "24/1/5 14:5:7"),
            ("hh a, EEE EEEE MMM MMMM", "02 PM, Fri Friday Jan January"),
            ("SSS S SSSSSS D u", "123 1 123000 5 5"),
            ("'at' HH 'o''clock' ''", "at 14 o'clock '"),
            ("yyyyMMdd", "20240105"),
        ];
        for (p, want) in cases {
            assert_eq!(JavaPattern::new(p).unwrap().format(&t()), want, "{p}");
        }
    }

    #[test]
    fn an_unknown_letter_or_open_quote_is_an_error() {
        let e = JavaPattern::new("yyyy-MM-dd QQ").unwrap_err();
        assert!(e.contains("`QQ`") && e.contains("position 12"), "{e}");
        assert!(JavaPattern::new("%Y-%m-%d").is_err());
        assert!(
            JavaPattern::new("yyyy 'open")
                .unwrap_err()
                .contains("quote")
        );
    }

    #[test]
    fn patterns_read_what_they_write() {
        let p = JavaPattern::new("yyyy-MM-dd HH:mm:ss.SSS").unwrap();
        assert_eq!(p.parse(&p.format(&t())).unwrap(), Some(t()));
        let d = JavaPattern::new("yyyyMMdd").unwrap();
        assert_eq!(
            d.parse("20240105").unwrap(),
            NaiveDate::from_ymd_opt(2024, 1, 5)
                .unwrap()
                .and_hms_opt(0, 0, 0)
        );
        assert_eq!(d.parse("2024-01-05").unwrap(), None);
        let full = JavaPattern::new("yyyy-MM-dd HH:mm:ss").unwrap();
        assert!(full.parse("2024-01-05 14:05:07.123").unwrap().is_some());
    }

    #[test]
    fn default_timestamps() {
        assert_eq!(
            parse_default_timestamp("2024-01-05 14:05:07.123"),
            Some(t())
        );
        assert!(parse_default_timestamp("2024-01-05").is_some());
        assert!(parse_default_timestamp("2024-01-05T14:05").is_some());
        assert_eq!(parse_default_timestamp("2024-13-05"), None);
        assert_eq!(parse_default_timestamp("nope"), None);
    }
}
