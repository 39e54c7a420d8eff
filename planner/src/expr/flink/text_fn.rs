//! Flink's string and random functions: `CONCAT`, `SPLIT_INDEX`, `REGEXP_EXTRACT`,
//! `JSON_VALUE`, `RAND` and `RAND_INTEGER`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::{ArrayRef, Float64Array, Int32Array, StringArray};
use arrow_schema::DataType;
use datafusion_common::{Result as DfResult, ScalarValue, exec_err, plan_err};
use datafusion_expr::{ScalarUDF, Volatility};

use super::{function, integers, literal_text, rows_of, strings};

pub(super) fn functions() -> Vec<Arc<ScalarUDF>> {
    let imm = Volatility::Immutable;
    let text: fn(&[DataType]) -> DfResult<DataType> = |_| Ok(DataType::Utf8);
    vec![
        function("concat", (1, usize::MAX), imm, text, None, concat),
        function("split_index", (3, 3), imm, text, None, split_index),
        function(
            "regexp_extract",
            (2, 3),
            imm,
            text,
            Some(check_regex),
            regexp_extract,
        ),
        function(
            "json_value",
            (2, 2),
            imm,
            text,
            Some(check_path),
            json_value,
        ),
        function(
            "rand",
            (0, 1),
            Volatility::Volatile,
            |_| Ok(DataType::Float64),
            None,
            rand,
        ),
        function(
            "rand_integer",
            (1, 2),
            Volatility::Volatile,
            |_| Ok(DataType::Int32),
            None,
            rand_integer,
        ),
    ]
}

/// `CONCAT(a, b, ...)`: the texts joined; NULL when any is NULL, as in
/// Flink (`CONCAT_WS` skips NULLs instead).
fn concat(_: &str, args: &[ArrayRef], rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let rows = rows_of(args, rows);
    let columns = args.iter().map(strings).collect::<DfResult<Vec<_>>>()?;
    let out: Vec<Option<String>> = (0..rows)
        .map(|r| {
            let mut joined = String::new();
            for c in &columns {
                joined.push_str(c[r].as_deref()?);
            }
            Some(joined)
        })
        .collect();
    Ok(Arc::new(StringArray::from(out)))
}

/// `SPLIT_INDEX(s, sep, i)`: the `i`-th (from 0) piece of `s` split at
/// `sep`; NULL when there is no such piece or an argument is NULL.
fn split_index(_: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let (s, sep, i) = (strings(&args[0])?, strings(&args[1])?, integers(&args[2])?);
    let out: Vec<Option<String>> = s
        .iter()
        .zip(&sep)
        .zip(&i)
        .map(|((s, sep), i)| {
            let (s, sep, i) = (s.as_ref()?, sep.as_ref()?, usize::try_from((*i)?).ok()?);
            if sep.is_empty() {
                return (i == 0).then(|| s.clone());
            }
            s.split(sep.as_str()).nth(i).map(str::to_string)
        })
        .collect();
    Ok(Arc::new(StringArray::from(out)))
}

fn regex_error(re: &str, e: &regex::Error) -> String {
    format!("REGEXP_EXTRACT's regular expression '{re}' does not read: {e}")
}

fn check_regex(args: &[Option<&ScalarValue>]) -> DfResult<()> {
    if let Some(Some(re)) = literal_text(args.get(1).copied().flatten()) {
        regex::Regex::new(&re)
            .map_err(|e| datafusion_common::DataFusionError::Plan(regex_error(&re, &e)))?;
    }
    Ok(())
}

/// `REGEXP_EXTRACT(s, re[, group])`: the text of group `group` (0, the
/// default: the whole match) of the first match of `re` in `s`; NULL
/// without a match or such a group.
fn regexp_extract(_: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let s = strings(&args[0])?;
    let res = strings(&args[1])?;
    let groups = match args.get(2) {
        Some(g) => integers(g)?,
        None => vec![Some(0); s.len()],
    };
    let mut last: Option<(String, regex::Regex)> = None;
    let mut out = Vec::with_capacity(s.len());
    for ((s, re), g) in s.iter().zip(&res).zip(&groups) {
        let (Some(s), Some(re), Some(g)) = (s, re, g) else {
            out.push(None);
            continue;
        };
        if last.as_ref().is_none_or(|(text, _)| text != re) {
            let compiled = regex::Regex::new(re)
                .map_err(|e| datafusion_common::DataFusionError::Execution(regex_error(re, &e)))?;
            last = Some((re.clone(), compiled));
        }
        let found = last.as_ref().and_then(|(_, r)| {
            let g = usize::try_from(*g).ok()?;
            r.captures(s)?.get(g).map(|m| m.as_str().to_string())
        });
        out.push(found);
    }
    Ok(Arc::new(StringArray::from(out)))
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Reads a JSON path: `$`, then `.key`, `['key']` or `[n]` steps (`lax`
/// or `strict` in front is accepted and read as lax).
fn read_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = |why: &str| format!("the JSON path '{path}' {why}; write it as $.key.key[0]");
    let p = path.trim();
    let p = p
        .strip_prefix("lax ")
        .or_else(|| p.strip_prefix("strict "))
        .unwrap_or(p)
        .trim();
    let Some(mut rest) = p.strip_prefix('$') else {
        return Err(bad("does not start with $"));
    };
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return Err(bad("has an empty key"));
            }
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return Err(bad("opens a [ it does not close"));
            };
            let inside = r[..end].trim();
            let quoted = inside
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inside.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            match (quoted, inside.parse::<usize>()) {
                (Some(k), _) => steps.push(Step::Key(k.to_string())),
                (None, Ok(i)) => steps.push(Step::Index(i)),
                _ => return Err(bad("has a step that is neither a key nor an index")),
            }
            rest = &r[end + 1..];
        } else {
            return Err(bad("has a step that does not start with . or ["));
        }
    }
    Ok(steps)
}

fn check_path(args: &[Option<&ScalarValue>]) -> DfResult<()> {
    if let Some(Some(p)) = literal_text(args.get(1).copied().flatten()) {
        read_path(&p).map_err(datafusion_common::DataFusionError::Plan)?;
    }
    Ok(())
}

/// `JSON_VALUE(json, path)`: the scalar at `path` as text; NULL when the
/// text is not JSON, nothing is there, or it is an object or array
/// (Flink's default `NULL ON EMPTY`, `NULL ON ERROR`).
fn json_value(_: &str, args: &[ArrayRef], _rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let docs = strings(&args[0])?;
    let paths = strings(&args[1])?;
    let mut out = Vec::with_capacity(docs.len());
    for (doc, path) in docs.iter().zip(&paths) {
        let (Some(doc), Some(path)) = (doc, path) else {
            out.push(None);
            continue;
        };
        let steps = match read_path(path) {
            Ok(s) => s,
            Err(e) => return exec_err!("{e}"),
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(doc) else {
            out.push(None);
            continue;
        };
        let mut at = Some(&value);
        for step in &steps {
            at = match (at, step) {
                (Some(serde_json::Value::Object(m)), Step::Key(k)) => m.get(k),
                (Some(serde_json::Value::Array(a)), Step::Index(i)) => a.get(*i),
                _ => None,
            };
        }
        out.push(match at {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => {
                Some(v.to_string())
            }
            _ => None,
        });
    }
    Ok(Arc::new(StringArray::from(out)))
}

/// A small, fast generator (SplitMix64): random numbers need not be
/// cryptographic here.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A generator no other call shares: seeded from the clock and a counter.
fn unseeded() -> SplitMix {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let mut g = SplitMix(clock ^ call.wrapping_mul(0xA24B_AED4_963E_E407));
    g.next();
    g
}

/// The generator of a seed argument: the same seed gives the same
/// numbers (`None` for a NULL seed).
fn seeded(seed: &ArrayRef) -> DfResult<Option<SplitMix>> {
    Ok(integers(seed)?
        .first()
        .copied()
        .flatten()
        .map(|s| SplitMix(s as u64)))
}

/// `RAND()`: a number in [0, 1) per row; `RAND(seed)`: the same numbers
/// for the same seed.
fn rand(_: &str, args: &[ArrayRef], rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let rows = rows_of(args, rows);
    let mut g = match args.first() {
        Some(seed) => match seeded(seed)? {
            Some(g) => g,
            None => return Ok(Arc::new(Float64Array::from(vec![None; rows]))),
        },
        None => unseeded(),
    };
    let out: Vec<f64> = (0..rows).map(|_| g.unit()).collect();
    Ok(Arc::new(Float64Array::from(out)))
}

/// `RAND_INTEGER(n)`: an integer in [0, n) per row; `RAND_INTEGER(seed,
/// n)`: the same numbers for the same seed.
fn rand_integer(_: &str, args: &[ArrayRef], rows: usize, _: &DataType) -> DfResult<ArrayRef> {
    let rows = rows_of(args, rows);
    let (mut g, bounds) = match args {
        [n] => (Some(unseeded()), integers(n)?),
        [seed, n] => (seeded(seed)?, integers(n)?),
        _ => return plan_err!("RAND_INTEGER takes (n) or (seed, n)"),
    };
    let mut out = Vec::with_capacity(rows);
    for bound in bounds.iter().take(rows) {
        let (Some(g), Some(bound)) = (g.as_mut(), bound) else {
            out.push(None);
            continue;
        };
        if *bound <= 0 || *bound > i64::from(i32::MAX) {
            return exec_err!("RAND_INTEGER's bound is {bound}; it must be from 1 to 2147483647");
        }
        out.push(Some((g.unit() * *bound as f64) as i32));
    }
    Ok(Arc::new(Int32Array::from(out)))
}
