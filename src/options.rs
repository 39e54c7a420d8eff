//! Table options: the `WITH (...)` of `CREATE TABLE` (Flink's filesystem
//! connector) and the dynamic options of a scan, `t /*+ OPTIONS(...) */`
//! (docs/hints.md H40–H42).
//!
//! | key | in | value | default |
//! |---|---|---|---|
//! | `connector` | CREATE TABLE, required | `filesystem` | |
//! | `path` | CREATE TABLE, required | a file or a directory of files | |
//! | `format` | CREATE TABLE, required | `parquet`, `csv`, `arrow`, `json`, `debezium-json` (a change log: `crate::io::read_change_log`) | |
//! | `debezium-json.ignore-parse-errors` | CREATE TABLE of `debezium-json` | `true` / `false`: skip and count lines that are not change events | `false` |
//! | `csv.field-delimiter` | CSV | one ASCII character (`\t` for a tab) | `,` |
//! | `csv.quote-character` | CSV | one ASCII character | `"` |
//! | `csv.has-header` | CSV | `true` / `false`: the first line is a header (skipped) | `true` |
//! | `csv.null-literal` | CSV | a field equal to it is NULL (an empty field always is) | (none) |
//! | `csv.ignore-parse-errors` | CSV | `true` / `false`: a value that does not fit its column is NULL (Flink's meaning); rows that cannot be read as rows, and rows with a bad value in a NOT NULL column, are skipped and counted | `false` |
//! | `csv.skip-bad-rows` | CSV | `true` / `false` (tenon's own): with `csv.ignore-parse-errors`, skip and count every row with a bad value instead of keeping it with the value NULL | `false` |
//! | `parquet.batch-size` | Parquet | rows per batch of the decoder | the session's |
//! | `scan.batch-size` | every table | rows per batch the scan produces | the session's |
//! | `scan.in-memory` | CREATE TABLE | `true`: read the files once, at the first query that scans the table, and keep the rows (charged to each query's `memory_limit`); `false`: every query reads the columns it uses | `false` |
//!
//! Keys are compared without regard to case. An unknown key is an error
//! listing the valid keys for that table; a bad value says what is
//! expected. `connector`, `path` and `format` are the table's and cannot be
//! changed by OPTIONS. A table held in memory (registered batches, TPC-H)
//! has no file behind it: OPTIONS take only `scan.batch-size` there.

use std::fmt;
use std::path::PathBuf;

use crate::io::{CsvOptions, FileFormat};

/// `connector`.
pub const CONNECTOR: &str = "connector";
/// `path`.
pub const PATH: &str = "path";
/// `format`.
pub const FORMAT: &str = "format";
/// `csv.field-delimiter`.
pub const CSV_FIELD_DELIMITER: &str = "csv.field-delimiter";
/// `csv.quote-character`.
pub const CSV_QUOTE_CHARACTER: &str = "csv.quote-character";
/// `csv.has-header`.
pub const CSV_HAS_HEADER: &str = "csv.has-header";
/// `csv.null-literal`.
pub const CSV_NULL_LITERAL: &str = "csv.null-literal";
/// `csv.ignore-parse-errors`.
pub const CSV_IGNORE_PARSE_ERRORS: &str = "csv.ignore-parse-errors";
/// `csv.skip-bad-rows` (tenon's own: rows with a bad value are left out
/// instead of kept with it NULL).
pub const CSV_SKIP_BAD_ROWS: &str = "csv.skip-bad-rows";
/// `parquet.batch-size`.
pub const PARQUET_BATCH_SIZE: &str = "parquet.batch-size";
/// `scan.batch-size`.
pub const SCAN_BATCH_SIZE: &str = "scan.batch-size";
/// `scan.in-memory` (CREATE TABLE only).
pub const SCAN_IN_MEMORY: &str = "scan.in-memory";
/// `'format' = 'debezium-json'`: a change log of Debezium JSON events.
pub const DEBEZIUM_JSON: &str = "debezium-json";
/// `debezium-json.ignore-parse-errors` (CREATE TABLE of a change log only).
pub const DEBEZIUM_IGNORE_PARSE_ERRORS: &str = "debezium-json.ignore-parse-errors";

const CSV_KEYS: [&str; 6] = [
    CSV_FIELD_DELIMITER,
    CSV_HAS_HEADER,
    CSV_IGNORE_PARSE_ERRORS,
    CSV_NULL_LITERAL,
    CSV_QUOTE_CHARACTER,
    CSV_SKIP_BAD_ROWS,
];

/// The largest batch size an option may ask for (rows).
const MAX_BATCH_SIZE: usize = 1 << 30;

/// Where options were given, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsPlace {
    /// The `WITH (...)` of `CREATE TABLE`.
    CreateTable {
        /// The table.
        table: String,
    },
    /// A scan's `/*+ OPTIONS(...) */`.
    Hint {
        /// The table scanned.
        table: String,
        /// 1-based line of the hint.
        line: u64,
        /// 1-based column of the hint.
        column: u64,
    },
}

impl fmt::Display for OptionsPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsPlace::CreateTable { table } => {
                write!(f, "CREATE TABLE {table} ... WITH (...)")
            }
            OptionsPlace::Hint {
                table,
                line,
                column,
            } => write!(
                f,
                "OPTIONS of table `{table}` at line {line}, column {column}"
            ),
        }
    }
}

/// A bad table option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A key that the table does not take (H41).
    #[error(
        "{place}: unknown option '{key}' {what}; valid options: {}",
        quoted(valid)
    )]
    UnknownKey {
        /// Where.
        place: OptionsPlace,
        /// The key as written.
        key: String,
        /// Which table kind the valid keys are for, e.g. `for a CSV table`.
        what: String,
        /// The keys that are valid there.
        valid: Vec<String>,
    },
    /// A value that does not parse (H41).
    #[error("{place}: '{key}' = '{value}': expected {expected}")]
    BadValue {
        /// Where.
        place: OptionsPlace,
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What the value must be.
        expected: String,
    },
    /// A required key is missing.
    #[error("{place}: '{key}' is required: {hint}")]
    Missing {
        /// Where.
        place: OptionsPlace,
        /// The key.
        key: String,
        /// What to write.
        hint: String,
    },
    /// A key OPTIONS cannot change.
    #[error(
        "{place}: '{key}' belongs to the table's definition and cannot be changed for one scan \
         (CREATE OR REPLACE TABLE, or a second table on the same file)"
    )]
    NotDynamic {
        /// Where.
        place: OptionsPlace,
        /// The key.
        key: String,
    },
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a table's rows are read: the format options and the scan's batch
/// size. Defaults: see the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanSettings {
    /// CSV options.
    pub csv: CsvOptions,
    /// `parquet.batch-size`.
    pub parquet_batch_size: Option<usize>,
    /// `scan.batch-size`.
    pub scan_batch_size: Option<usize>,
}

/// The `WITH (...)` of a `CREATE TABLE`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTableOptions {
    /// `path`.
    pub path: PathBuf,
    /// `format`.
    pub format: FileFormat,
    /// The format and scan options.
    pub settings: ScanSettings,
    /// `scan.in-memory`: the rows are read once and kept.
    pub in_memory: bool,
    /// `'format' = 'debezium-json'`: the files are a change log (their
    /// `format` is then JSON); `Some(ignore_parse_errors)`.
    pub change_log: Option<bool>,
}

/// The keys a table of `format` takes (`None`: a table in memory), the
/// table-definition keys not included.
pub fn scan_keys(format: Option<FileFormat>) -> Vec<&'static str> {
    let mut keys: Vec<&str> = match format {
        Some(FileFormat::Csv) => CSV_KEYS.to_vec(),
        Some(FileFormat::Parquet) => vec![PARQUET_BATCH_SIZE],
        _ => Vec::new(),
    };
    keys.push(SCAN_BATCH_SIZE);
    keys
}

fn what(format: Option<FileFormat>) -> String {
    match format {
        Some(FileFormat::Csv) => "for a CSV table".into(),
        Some(FileFormat::Parquet) => "for a Parquet table".into(),
        Some(FileFormat::Arrow) => "for an Arrow IPC table".into(),
        Some(FileFormat::Json) => "for a JSON table".into(),
        None => "for a table held in memory (registered batches, no file behind it)".into(),
    }
}

/// Parses a `CREATE TABLE`'s `WITH (...)` options.
///
/// # Errors
///
/// [`OptionsError::Missing`] without `connector`, `path` or `format`;
/// [`OptionsError::BadValue`] for another connector than `filesystem`, an
/// unknown format or a bad value; [`OptionsError::UnknownKey`] listing the
/// keys the format takes.
///
/// # Examples
///
/// ```
/// use tenon::io::FileFormat;
/// use tenon::options::parse_create_options;
///
/// let pairs = [("connector", "filesystem"), ("path", "t.csv"), ("format", "csv"),
///              ("csv.field-delimiter", ";")]
///     .map(|(k, v)| (k.to_string(), v.to_string()));
/// let o = parse_create_options("t", &pairs).unwrap();
/// assert_eq!((o.format, o.settings.csv.delimiter), (FileFormat::Csv, b';'));
///
/// let pairs = [("connector", "kafka")].map(|(k, v)| (k.to_string(), v.to_string()));
/// let e = parse_create_options("t", &pairs).unwrap_err();
/// assert!(e.to_string().contains("'filesystem'"), "{e}");
/// ```
pub fn parse_create_options(
    table: &str,
    pairs: &[(String, String)],
) -> Result<FileTableOptions, OptionsError> {
    let place = OptionsPlace::CreateTable {
        table: table.to_string(),
    };
    let get = |key: &str| {
        pairs
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    };
    let missing = |key: &str, hint: &str| OptionsError::Missing {
        place: place.clone(),
        key: key.to_string(),
        hint: hint.to_string(),
    };
    let connector = get(CONNECTOR).ok_or_else(|| {
        missing(
            CONNECTOR,
            "tenon reads files: 'connector' = 'filesystem', 'path' = '...', 'format' = '...'",
        )
    })?;
    if !connector.eq_ignore_ascii_case("filesystem") {
        return Err(OptionsError::BadValue {
            place,
            key: CONNECTOR.into(),
            value: connector.into(),
            expected: "'filesystem' (tenon reads files; no other connector)".into(),
        });
    }
    let path = get(PATH).filter(|p| !p.trim().is_empty()).ok_or_else(|| {
        missing(
            PATH,
            "the file or directory to read, e.g. 'path' = 'data/t.csv'",
        )
    })?;
    let format_name = get(FORMAT).ok_or_else(|| {
        missing(
            FORMAT,
            "one of 'parquet', 'csv', 'arrow', 'json', 'debezium-json', e.g. 'format' = 'csv'",
        )
    })?;
    let is_change_log = format_name.eq_ignore_ascii_case(DEBEZIUM_JSON);
    let format = if is_change_log {
        FileFormat::Json
    } else {
        FileFormat::from_name(format_name).ok_or_else(|| OptionsError::BadValue {
            place: place.clone(),
            key: FORMAT.into(),
            value: format_name.into(),
            expected: "one of 'parquet', 'csv', 'arrow', 'json', 'debezium-json'".into(),
        })?
    };
    let change_log = match (is_change_log, get(DEBEZIUM_IGNORE_PARSE_ERRORS)) {
        (false, _) => None,
        (true, None) => Some(false),
        (true, Some(v)) => Some(boolean(v).ok_or_else(|| OptionsError::BadValue {
            place: place.clone(),
            key: DEBEZIUM_IGNORE_PARSE_ERRORS.into(),
            value: v.into(),
            expected: "'true' (skip lines that are not change events) or 'false'".into(),
        })?),
    };
    let in_memory = match get(SCAN_IN_MEMORY) {
        None => false,
        Some(v) => boolean(v).ok_or_else(|| OptionsError::BadValue {
            place: place.clone(),
            key: SCAN_IN_MEMORY.into(),
            value: v.into(),
            expected: "'true' (read once and keep the rows) or 'false' (read by each query)".into(),
        })?,
    };
    let rest: Vec<(String, String)> = pairs
        .iter()
        .filter(|(k, _)| {
            let definition = [CONNECTOR, PATH, FORMAT, SCAN_IN_MEMORY]
                .iter()
                .any(|d| k.eq_ignore_ascii_case(d));
            let change_log_key =
                is_change_log && k.eq_ignore_ascii_case(DEBEZIUM_IGNORE_PARSE_ERRORS);
            !definition && !change_log_key
        })
        .cloned()
        .collect();
    let settings = apply(&ScanSettings::default(), Some(format), &place, &rest, true)?;
    Ok(FileTableOptions {
        path: PathBuf::from(path),
        format,
        settings,
        in_memory,
        change_log,
    })
}

/// `settings` with a scan's dynamic options applied (H40), for a table of
/// `format` (`None`: held in memory).
///
/// # Errors
///
/// [`OptionsError::UnknownKey`] (listing the valid keys for the table),
/// [`OptionsError::BadValue`], [`OptionsError::NotDynamic`] for
/// `connector`, `path` and `format`.
pub fn apply_dynamic_options(
    settings: &ScanSettings,
    format: Option<FileFormat>,
    place: &OptionsPlace,
    pairs: &[(String, String)],
) -> Result<ScanSettings, OptionsError> {
    apply(settings, format, place, pairs, false)
}

/// Whether options change how the file is read (anything but
/// `scan.batch-size`): the scan then re-reads the file.
pub fn rereads_file(pairs: &[(String, String)]) -> bool {
    pairs
        .iter()
        .any(|(k, _)| !k.eq_ignore_ascii_case(SCAN_BATCH_SIZE))
}

fn apply(
    settings: &ScanSettings,
    format: Option<FileFormat>,
    place: &OptionsPlace,
    pairs: &[(String, String)],
    ddl: bool,
) -> Result<ScanSettings, OptionsError> {
    let mut out = settings.clone();
    let valid = scan_keys(format);
    for (key, value) in pairs {
        let lower = key.to_ascii_lowercase();
        if !ddl && [CONNECTOR, PATH, FORMAT].contains(&lower.as_str()) {
            return Err(OptionsError::NotDynamic {
                place: place.clone(),
                key: key.clone(),
            });
        }
        if !valid.contains(&lower.as_str()) {
            let mut keys: Vec<String> = Vec::new();
            if ddl {
                keys.extend([CONNECTOR, PATH, FORMAT].map(String::from));
            }
            keys.extend(valid.iter().map(|k| k.to_string()));
            return Err(OptionsError::UnknownKey {
                place: place.clone(),
                key: key.clone(),
                what: what(format),
                valid: keys,
            });
        }
        let bad = |expected: &str| OptionsError::BadValue {
            place: place.clone(),
            key: key.clone(),
            value: value.clone(),
            expected: expected.to_string(),
        };
        match lower.as_str() {
            CSV_FIELD_DELIMITER => {
                out.csv.delimiter = character(value).ok_or_else(|| {
                    bad(
                        "one ASCII character other than a quote or a line break, e.g. ',' or ';' \
                     ('\\t' for a tab)",
                    )
                })?
            }
            CSV_QUOTE_CHARACTER => {
                out.csv.quote = character(value)
                    .ok_or_else(|| bad("one ASCII character other than a line break, e.g. '\"'"))?
            }
            CSV_HAS_HEADER => {
                out.csv.has_header = boolean(value).ok_or_else(|| bad("'true' or 'false'"))?
            }
            CSV_IGNORE_PARSE_ERRORS => {
                out.csv.ignore_parse_errors =
                    boolean(value).ok_or_else(|| bad("'true' or 'false'"))?;
            }
            CSV_SKIP_BAD_ROWS => {
                out.csv.skip_bad_rows = boolean(value).ok_or_else(|| bad("'true' or 'false'"))?;
            }
            CSV_NULL_LITERAL => {
                out.csv.null_literal = (!value.is_empty()).then(|| value.clone());
            }
            PARQUET_BATCH_SIZE => {
                out.parquet_batch_size = Some(size(value).ok_or_else(|| bad(SIZE_EXPECTED))?);
            }
            _ => out.scan_batch_size = Some(size(value).ok_or_else(|| bad(SIZE_EXPECTED))?),
        }
        if out.csv.delimiter == out.csv.quote {
            return Err(bad("a field delimiter other than the quote character"));
        }
    }
    Ok(out)
}

const SIZE_EXPECTED: &str = "a whole number of rows from 1 to 1073741824, e.g. '8192'";

fn boolean(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn character(value: &str) -> Option<u8> {
    let c = match value {
        "\\t" => '\t',
        v => {
            let mut chars = v.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            c
        }
    };
    (c.is_ascii() && c != '\n' && c != '\r').then_some(c as u8)
}

fn size(value: &str) -> Option<usize> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_BATCH_SIZE).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn hint(table: &str) -> OptionsPlace {
        OptionsPlace::Hint {
            table: table.into(),
            line: 1,
            column: 17,
        }
    }

    #[test]
    fn values_are_parsed() {
        let s = apply_dynamic_options(
            &ScanSettings::default(),
            Some(FileFormat::Csv),
            &hint("t"),
            &pairs(&[
                ("csv.field-delimiter", "\\t"),
                ("CSV.HAS-HEADER", "FALSE"),
                ("csv.null-literal", "NA"),
                ("csv.ignore-parse-errors", "true"),
                ("scan.batch-size", "7"),
            ]),
        )
        .unwrap();
        assert_eq!(s.csv.delimiter, b'\t');
        assert!(!s.csv.has_header && s.csv.ignore_parse_errors);
        assert_eq!(s.csv.null_literal.as_deref(), Some("NA"));
        assert_eq!(s.scan_batch_size, Some(7));
    }

    #[test]
    fn bad_values_say_what_is_expected() {
        for (key, value) in [
            ("csv.field-delimiter", ";;"),
            ("csv.field-delimiter", "\""),
            ("csv.has-header", "maybe"),
            ("scan.batch-size", "0"),
            ("scan.batch-size", "many"),
            ("csv.quote-character", "é"),
        ] {
            let e = apply_dynamic_options(
                &ScanSettings::default(),
                Some(FileFormat::Csv),
                &hint("t"),
                &pairs(&[(key, value)]),
            )
            .unwrap_err();
            assert!(matches!(e, OptionsError::BadValue { .. }), "{e}");
            assert!(e.to_string().contains(value), "{e}");
        }
    }

    #[test]
    fn keys_are_checked_per_format() {
        let e = apply_dynamic_options(
            &ScanSettings::default(),
            Some(FileFormat::Parquet),
            &hint("t"),
            &pairs(&[("csv.has-header", "true")]),
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("'parquet.batch-size', 'scan.batch-size'") && text.contains("Parquet"),
            "{text}"
        );
        let e = apply_dynamic_options(
            &ScanSettings::default(),
            None,
            &hint("a"),
            &pairs(&[("csv.has-header", "true")]),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no file behind it"), "{e}");
        let e = apply_dynamic_options(
            &ScanSettings::default(),
            Some(FileFormat::Csv),
            &hint("t"),
            &pairs(&[("path", "/tmp/x.csv")]),
        )
        .unwrap_err();
        assert!(matches!(e, OptionsError::NotDynamic { .. }), "{e}");
    }

    #[test]
    fn create_options_need_connector_path_and_format() {
        let e = parse_create_options("t", &pairs(&[("connector", "filesystem")])).unwrap_err();
        assert!(
            matches!(e, OptionsError::Missing { ref key, .. } if key == "path"),
            "{e}"
        );
        let e = parse_create_options(
            "t",
            &pairs(&[
                ("connector", "filesystem"),
                ("path", "x"),
                ("format", "orc"),
            ]),
        )
        .unwrap_err();
        assert!(e.to_string().contains("'parquet', 'csv'"), "{e}");
        let e = parse_create_options(
            "t",
            &pairs(&[
                ("connector", "filesystem"),
                ("path", "x"),
                ("format", "parquet"),
                ("scan.startup.mode", "earliest-offset"),
            ]),
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("'connector', 'path', 'format'"), "{text}");
    }

    #[test]
    fn debezium_json_is_a_change_log_of_json_files() {
        let base = [
            ("connector", "filesystem"),
            ("path", "x"),
            ("format", "Debezium-JSON"),
        ];
        let o = parse_create_options("t", &pairs(&base)).unwrap();
        assert_eq!((o.format, o.change_log), (FileFormat::Json, Some(false)));
        let mut with = base.to_vec();
        with.push(("debezium-json.ignore-parse-errors", "TRUE"));
        let o = parse_create_options("t", &pairs(&with)).unwrap();
        assert_eq!(o.change_log, Some(true));
        with.push(("debezium-json.ignore-parse-errors", "often"));
        let e = parse_create_options("t", &pairs(&with)).unwrap_err();
        assert!(e.to_string().contains("'often'"), "{e}");
        let e = parse_create_options(
            "t",
            &pairs(&[
                ("connector", "filesystem"),
                ("path", "x"),
                ("format", "json"),
                ("debezium-json.ignore-parse-errors", "true"),
            ]),
        )
        .unwrap_err();
        assert!(matches!(e, OptionsError::UnknownKey { .. }), "{e}");
    }
}
