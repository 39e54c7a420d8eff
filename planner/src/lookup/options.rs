//! How a lookup join's requests run: the `LOOKUP` hint's options (Flink's
//! names and meanings) over the session's defaults (`--set
//! lookup.async.capacity=...`, `lookup.async.timeout`,
//! `lookup.async.output-mode`).

use std::time::Duration;

/// The keys a `LOOKUP` hint takes.
pub const LOOKUP_HINT_KEYS: [&str; 10] = [
    "table",
    "async",
    "output-mode",
    "capacity",
    "timeout",
    "retry-predicate",
    "retry-strategy",
    "fixed-delay",
    "max-attempts",
    "shuffle",
];

/// The retry options, which a hint gives all together or not at all.
const RETRY_KEYS: [&str; 4] = [
    "retry-predicate",
    "retry-strategy",
    "fixed-delay",
    "max-attempts",
];

/// The most requests in flight a lookup join allows.
const MAX_CAPACITY: usize = 1 << 16;

/// Whether an async lookup join keeps its input's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Output in the order the probe batches reached the join (Flink's
    /// `ordered`, the default).
    Ordered,
    /// Output as the requests complete (`allow_unordered`): the same rows.
    AllowUnordered,
}

impl OutputMode {
    fn parse(v: &str) -> Option<Self> {
        match v.to_ascii_lowercase().as_str() {
            "ordered" => Some(OutputMode::Ordered),
            "allow_unordered" => Some(OutputMode::AllowUnordered),
            _ => None,
        }
    }

    /// The option's value as written in a hint.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::Ordered => "ordered",
            OutputMode::AllowUnordered => "allow_unordered",
        }
    }
}

/// Retrying keys a lookup found no row for (`'retry-predicate' =
/// 'lookup_miss'`, `'retry-strategy' = 'fixed_delay'`): the store may not
/// have caught up yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryOnMiss {
    /// The wait before each retry (`fixed-delay`).
    pub delay: Duration,
    /// Retries after the first attempt (`max-attempts`).
    pub max_attempts: u32,
}

/// The session's defaults for lookup joins, which a `LOOKUP` hint
/// overrides for its one join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupDefaults {
    /// Requests in flight of an async lookup join
    /// (`lookup.async.capacity`, 100 as Flink's).
    pub capacity: usize,
    /// The time one probe row's lookup may take, retries included
    /// (`lookup.async.timeout`, 180 s as Flink's).
    pub timeout: Duration,
    /// `lookup.async.output-mode` (ordered, as Flink's).
    pub output_mode: OutputMode,
}

impl Default for LookupDefaults {
    fn default() -> Self {
        LookupDefaults {
            capacity: 100,
            timeout: Duration::from_secs(180),
            output_mode: OutputMode::Ordered,
        }
    }
}

impl LookupDefaults {
    /// The setting keys, as `Config::set` takes them.
    pub const KEYS: [&'static str; 3] = [
        "lookup.async.capacity",
        "lookup.async.timeout",
        "lookup.async.output-mode",
    ];

    /// Sets one of [`LookupDefaults::KEYS`] (lower case); `None` for
    /// another key.
    ///
    /// # Errors
    /// What the value should have been.
    pub fn set(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        Some(match key {
            "lookup.async.capacity" => parse_capacity(value).map(|c| self.capacity = c),
            "lookup.async.timeout" => parse_positive_duration(value).map(|t| self.timeout = t),
            "lookup.async.output-mode" => OutputMode::parse(value)
                .map(|m| self.output_mode = m)
                .ok_or_else(|| "expected ordered or allow_unordered".to_string()),
            _ => return None,
        })
    }
}

/// How one lookup join's requests run.
///
/// ```
/// use std::time::Duration;
/// use tenon_planner::lookup::{LookupDefaults, LookupOptions, OutputMode};
///
/// let pairs = [("table", "c"), ("async", "true"), ("capacity", "4"),
///     ("retry-predicate", "lookup_miss"), ("retry-strategy", "fixed_delay"),
///     ("fixed-delay", "10s"), ("max-attempts", "3")]
///     .map(|(k, v)| (k.to_string(), v.to_string()));
/// let o = LookupOptions::from_hint(&pairs, &LookupDefaults::default()).unwrap();
/// assert!(o.is_async);
/// assert_eq!(o.capacity, 4);
/// assert_eq!(o.output_mode, OutputMode::Ordered);
/// assert_eq!(o.retry.unwrap().delay, Duration::from_secs(10));
///
/// // the retry options come together or not at all
/// let partial = [("table", "c"), ("max-attempts", "3")].map(|(k, v)| (k.to_string(), v.to_string()));
/// let e = LookupOptions::from_hint(&partial, &LookupDefaults::default()).unwrap_err();
/// assert!(e.contains("'retry-predicate', 'retry-strategy', 'fixed-delay'"), "{e}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupOptions {
    /// Requests run up to `capacity` at a time, apart from the probe
    /// workers (`'async' = 'true'`); otherwise each probe batch's request
    /// runs on its worker, which waits for it.
    pub is_async: bool,
    /// Output order (async only: a sync join emits each batch's rows when
    /// its worker has them).
    pub output_mode: OutputMode,
    /// Requests in flight at most (async).
    pub capacity: usize,
    /// The time a probe row's lookup may take, its retries included; past
    /// it the query fails.
    pub timeout: Duration,
    /// Retrying keys that found no row, if asked for.
    pub retry: Option<RetryOnMiss>,
    /// Whether the hint asked to shuffle the probe side by key (no effect
    /// here: every probe batch's distinct keys go in one request).
    pub shuffle: bool,
}

impl LookupOptions {
    /// The options of a join without a `LOOKUP` hint: sync, the session's
    /// defaults.
    pub fn defaults(defaults: &LookupDefaults) -> Self {
        LookupOptions {
            is_async: false,
            output_mode: defaults.output_mode,
            capacity: defaults.capacity,
            timeout: defaults.timeout,
            retry: None,
            shuffle: false,
        }
    }

    /// The options of a `LOOKUP` hint's key-value pairs (in written order:
    /// a repeated key's last value wins), over `defaults`.
    ///
    /// # Errors
    /// An unknown key (the message lists the keys), a value that does
    /// not parse (it says what is accepted), or an incomplete set of
    /// retry options (it names the missing ones).
    pub fn from_hint(
        pairs: &[(String, String)],
        defaults: &LookupDefaults,
    ) -> Result<Self, String> {
        let mut o = LookupOptions::defaults(defaults);
        let get = |key: &str| {
            pairs
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.trim())
        };
        if let Some((k, _)) = pairs
            .iter()
            .find(|(k, _)| !LOOKUP_HINT_KEYS.iter().any(|x| x.eq_ignore_ascii_case(k)))
        {
            return Err(format!(
                "unknown LOOKUP option '{k}'; the options are {}",
                quoted_list(&LOOKUP_HINT_KEYS)
            ));
        }
        let bad = |key: &str, value: &str, accepted: &str| {
            format!("LOOKUP option '{key}' = '{value}': expected {accepted}")
        };
        if let Some(v) = get("async") {
            o.is_async = parse_bool(v).ok_or_else(|| bad("async", v, "'true' or 'false'"))?;
        }
        if let Some(v) = get("output-mode") {
            o.output_mode = OutputMode::parse(v)
                .ok_or_else(|| bad("output-mode", v, "'ordered' or 'allow_unordered'"))?;
        }
        if let Some(v) = get("capacity") {
            o.capacity = parse_capacity(v).map_err(|w| bad("capacity", v, &w))?;
        }
        if let Some(v) = get("timeout") {
            o.timeout = parse_positive_duration(v).map_err(|w| bad("timeout", v, &w))?;
        }
        if let Some(v) = get("shuffle") {
            o.shuffle = parse_bool(v).ok_or_else(|| bad("shuffle", v, "'true' or 'false'"))?;
        }
        let given: Vec<&str> = RETRY_KEYS
            .iter()
            .copied()
            .filter(|k| get(k).is_some())
            .collect();
        if !given.is_empty() && given.len() < RETRY_KEYS.len() {
            let missing: Vec<&str> = RETRY_KEYS
                .iter()
                .copied()
                .filter(|k| !given.contains(k))
                .collect();
            return Err(format!(
                "LOOKUP retry options come all together (they have no defaults): {} given, \
                 missing {}",
                quoted_list(&given),
                quoted_list(&missing)
            ));
        }
        if given.len() == RETRY_KEYS.len() {
            let (p, s) = (get("retry-predicate"), get("retry-strategy"));
            if let Some(p) = p.filter(|p| !p.eq_ignore_ascii_case("lookup_miss")) {
                return Err(bad("retry-predicate", p, "'lookup_miss'"));
            }
            if let Some(s) = s.filter(|s| !s.eq_ignore_ascii_case("fixed_delay")) {
                return Err(bad("retry-strategy", s, "'fixed_delay'"));
            }
            let d = get("fixed-delay").unwrap_or_default();
            let delay = parse_duration(d).map_err(|w| bad("fixed-delay", d, &w))?;
            let m = get("max-attempts").unwrap_or_default();
            let max_attempts =
                m.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    bad("max-attempts", m, "a whole number of retries, 1 or more")
                })?;
            o.retry = Some(RetryOnMiss {
                delay,
                max_attempts,
            });
        }
        Ok(o)
    }

    /// The options as EXPLAIN shows them.
    pub fn describe(&self) -> String {
        let mut s = if self.is_async {
            format!(
                "async, capacity {}, {}",
                self.capacity,
                self.output_mode.as_str()
            )
        } else {
            "sync".to_string()
        };
        s.push_str(&format!(", timeout {}", show_duration(self.timeout)));
        if let Some(r) = self.retry {
            s.push_str(&format!(
                ", retry on miss every {} up to {} times",
                show_duration(r.delay),
                r.max_attempts
            ));
        }
        if self.shuffle {
            s.push_str(
                "; shuffle has no effect: each probe batch's distinct keys go in one request",
            );
        }
        s
    }
}

fn quoted_list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn parse_capacity(v: &str) -> Result<usize, String> {
    v.trim()
        .parse::<usize>()
        .ok()
        .filter(|&c| (1..=MAX_CAPACITY).contains(&c))
        .ok_or_else(|| format!("a whole number of requests from 1 to {MAX_CAPACITY}"))
}

fn parse_positive_duration(v: &str) -> Result<Duration, String> {
    match parse_duration(v)? {
        d if d.is_zero() => Err("a duration above zero, such as '180s'".into()),
        d => Ok(d),
    }
}

/// A duration as Flink writes one: a number and a unit (`ms`, `s`, `min`,
/// `h`, `d`, or their long forms), with or without a space; a number alone
/// is milliseconds.
///
/// ```
/// use std::time::Duration;
/// use tenon_planner::lookup::parse_duration;
///
/// assert_eq!(parse_duration("180s").unwrap(), Duration::from_secs(180));
/// assert_eq!(parse_duration("10 min").unwrap(), Duration::from_secs(600));
/// assert_eq!(parse_duration("250").unwrap(), Duration::from_millis(250));
/// assert!(parse_duration("soon").unwrap_err().contains("'180s'"));
/// ```
///
/// # Errors
/// Anything else; the message shows the accepted forms.
pub fn parse_duration(v: &str) -> Result<Duration, String> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (number, unit) = v.split_at(split);
    let expected = || {
        "a duration: a whole number and a unit (ms, s, min, h, d), such as '180s', '10 min' \
         or '500ms'"
            .to_string()
    };
    let n: u64 = number.parse().map_err(|_| expected())?;
    let millis: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "m" | "min" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        _ => return Err(expected()),
    };
    n.checked_mul(millis)
        .map(Duration::from_millis)
        .ok_or_else(expected)
}

/// `d` as EXPLAIN shows it: `180s`, `250ms`.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}
