//! Planner and executor settings: what `tenon query --set KEY=VALUE` and
//! the Session's `Config` accept, with their defaults, parsing and checks.

pub mod flink;

use std::time::Duration;

use tenon_kernels::Strategy;

pub use crate::hints::HintMode;
use crate::hints::{DEFAULT_BROADCAST_THRESHOLD, ResolveConfig};

/// A setting that could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The key is not a setting.
    #[error("unknown setting `{key}`; {}", unknown_key_help(close))]
    UnknownKey {
        /// The key given.
        key: String,
        /// The keys (tenon's and Flink's) close to it; empty when none is.
        close: Vec<&'static str>,
    },
    /// The value does not parse or is out of range.
    #[error("bad value `{value}` for setting `{key}`: {why}")]
    BadValue {
        /// The setting.
        key: &'static str,
        /// The value given.
        value: String,
        /// What was expected.
        why: String,
    },
    /// `KEY=VALUE` expected.
    #[error("`{0}` is not KEY=VALUE; for example broadcast_threshold=10MB")]
    NotKeyValue(String),
}

/// The second part of an unknown key's message: the keys close to it, or
/// every key when none is.
fn unknown_key_help(close: &[&'static str]) -> String {
    if close.is_empty() {
        format!(
            "the settings are: {} (and Flink's names for some of them: docs/cli.md)",
            Config::KEYS.join(", ")
        )
    } else {
        format!("did you mean {}?", quoted_list(close))
    }
}

/// `a`, `b` or `c`.
fn quoted_list(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// The most worker threads a [`Config`] accepts. A pool far larger than
/// the machine's cores only adds switching, and starting tens of thousands
/// of threads takes longer than most queries; 1024 is more than any machine
/// tenon runs on has cores, and few enough to start at once.
pub const MAX_THREADS: usize = 1024;

/// The most rows per batch a [`Config`] accepts (2^20, about a million):
/// batches are buffers of this many rows per column, and beyond about a
/// million rows they stop fitting any cache while each one holds memory
/// for longer.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// Settings of the planner and the executor.
///
/// ```
/// use tenon_planner::config::{Config, HintMode};
///
/// let mut c = Config::default();
/// c.set_pair("broadcast_threshold=64MB").unwrap();
/// c.set("hint_mode", "strict").unwrap();
/// c.set("disabled_strategies", "SHUFFLE_MERGE,nest_loop").unwrap();
/// assert_eq!(c.broadcast_threshold, 64 << 20);
/// assert_eq!(c.hint_mode, HintMode::Strict);
/// assert_eq!(c.disabled_strategies.len(), 2);
/// assert!(c.set("broadcast_treshold", "1MB").unwrap_err().to_string().contains("broadcast_threshold"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Worker threads; 0: all cores; at most [`MAX_THREADS`].
    pub threads: usize,
    /// Rows per batch, from 1 to [`MAX_BATCH_SIZE`].
    pub batch_size: usize,
    /// A join input estimated at or below this many bytes may be broadcast
    /// by the default choice (docs/hints.md H15).
    pub broadcast_threshold: u64,
    /// Lenient or strict hints.
    pub hint_mode: HintMode,
    /// Strategies neither hints nor the default choice may use (H16).
    pub disabled_strategies: Vec<Strategy>,
    /// Memory limit in bytes for the data a query holds (batches read from
    /// files, join inputs and tables, GROUP BY groups, sort buffers, ...);
    /// `None`: unlimited.
    pub memory_limit: Option<u64>,
    /// Where operators that do not fit `memory_limit` write their spill
    /// files (each query makes a directory of its own there and removes it
    /// when it ends); `None`: the system's temporary directory.
    pub spill_dir: Option<std::path::PathBuf>,
    /// The most bytes of spill files one query may hold on disk at once
    /// (reaching it is the same error as a full disk); `None`: as much as
    /// the disk holds.
    pub spill_limit: Option<u64>,
    /// Whether an aggregate without GROUP BY over an INNER hash join is
    /// fused into the join, aggregating its pairs as it probes instead of
    /// its output batches (`JoinAggregate` in EXPLAIN; docs/cli.md).
    pub fused_aggregate: bool,
    /// Runtime join filters: a hash join's complete build side gives the
    /// scans (and other operators) below its probe side a filter over its
    /// keys, so rows without a match are dropped before any other work
    /// (`exec::runtime_filter`). On by default; off to compare.
    pub runtime_filters: bool,
    /// Whether an aggregate the query computes at several places (a CTE
    /// read twice) is computed once and its rows read at each place
    /// (`Shared` in EXPLAIN; `exec::shared`). On by default; off to
    /// compare.
    pub shared_subplans: bool,
    /// Whether chains of INNER joins are reordered by estimates
    /// (`join_reorder`; `sql/join_reorder.rs`). Off by default, as Flink's
    /// `table.optimizer.join-reorder-enabled`: the FROM clause's order is
    /// the join order (comma lists joined by their conditions).
    pub join_reorder: bool,
    /// Lookup joins' defaults (`lookup.async.capacity`,
    /// `lookup.async.timeout`, `lookup.async.output-mode`), which a
    /// `LOOKUP` hint overrides for its join.
    pub lookup: crate::lookup::LookupDefaults,
    /// Flink's `table.exec.state.ttl`: how long a streaming query keeps
    /// state it has not touched. Checked as a duration and kept; it has no
    /// effect on tenon's batch queries, which hold their state until they
    /// end (zero: forever, Flink's default).
    pub state_ttl: Duration,
}

impl Default for Config {
    /// 0 threads (all cores), batches of 8192 rows, the broadcast
    /// threshold [`DEFAULT_BROADCAST_THRESHOLD`] (see there for the figures
    /// behind it), lenient hints, nothing disabled, no memory limit,
    /// aggregates fused into joins, runtime filters and shared subplans on,
    /// joins in the written order (`join_reorder` off).
    fn default() -> Self {
        Config {
            threads: 0,
            batch_size: 8192,
            broadcast_threshold: DEFAULT_BROADCAST_THRESHOLD,
            hint_mode: HintMode::Lenient,
            disabled_strategies: Vec::new(),
            memory_limit: None,
            spill_dir: None,
            spill_limit: None,
            fused_aggregate: true,
            runtime_filters: true,
            shared_subplans: true,
            join_reorder: false,
            lookup: crate::lookup::LookupDefaults::default(),
            state_ttl: Duration::ZERO,
        }
    }
}

impl Config {
    /// The keys [`Config::set`] accepts (tenon's names; Flink's names for
    /// some of them are [`flink::ALIASES`]).
    pub const KEYS: [&'static str; 17] = [
        "broadcast_threshold",
        "hint_mode",
        "disabled_strategies",
        "memory_limit",
        "spill_dir",
        "spill_limit",
        "threads",
        "batch_size",
        "fused_aggregate",
        "runtime_filters",
        "shared_subplans",
        "join_reorder",
        "lookup.async.capacity",
        "lookup.async.timeout",
        "lookup.async.output-mode",
        "state_ttl",
        "runtime_mode",
    ];

    /// The tenon key `key` names (any case; tenon's own name or Flink's,
    /// see [`flink::ALIASES`]).
    ///
    /// # Errors
    ///
    /// [`ConfigError::UnknownKey`], with the keys close to it.
    pub fn canonical_key(key: &str) -> Result<&'static str, ConfigError> {
        let k = key.trim().to_ascii_lowercase();
        Config::KEYS
            .into_iter()
            .find(|x| *x == k)
            .or_else(|| flink::canonical(&k))
            .ok_or_else(|| ConfigError::UnknownKey {
                key: key.to_string(),
                close: flink::close_keys(&k, &Config::KEYS),
            })
    }

    /// The value of setting `key` (tenon's name, as [`Config::KEYS`]), as
    /// text [`Config::set`] takes back: what `SET;` lists.
    ///
    /// # Errors
    ///
    /// [`ConfigError::UnknownKey`] for a key that is not a setting.
    pub fn value(&self, key: &str) -> Result<String, ConfigError> {
        let switch = |on: bool| if on { "true" } else { "false" }.to_string();
        let bytes = |n: Option<u64>| n.map_or_else(|| "unlimited".to_string(), show_bytes);
        Ok(match Config::canonical_key(key)? {
            "broadcast_threshold" => show_bytes(self.broadcast_threshold),
            "hint_mode" => self.hint_mode.name().to_string(),
            "disabled_strategies" => self
                .disabled_strategies
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(","),
            "memory_limit" => bytes(self.memory_limit),
            "spill_dir" => self
                .spill_dir
                .as_ref()
                .map_or_else(|| "default".to_string(), |p| p.display().to_string()),
            "spill_limit" => bytes(self.spill_limit),
            "threads" => self.threads.to_string(),
            "batch_size" => self.batch_size.to_string(),
            "fused_aggregate" => switch(self.fused_aggregate),
            "runtime_filters" => switch(self.runtime_filters),
            "shared_subplans" => switch(self.shared_subplans),
            "join_reorder" => switch(self.join_reorder),
            "lookup.async.capacity" => self.lookup.capacity.to_string(),
            "lookup.async.timeout" => show_duration(self.lookup.timeout),
            "lookup.async.output-mode" => self.lookup.output_mode.as_str().to_string(),
            "state_ttl" => show_duration(self.state_ttl),
            // the only mode there is (see `set`)
            _ => "batch".to_string(),
        })
    }

    /// Every setting and its value, in the order of [`Config::KEYS`].
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        Config::KEYS
            .into_iter()
            .map(|k| (k, self.value(k).unwrap_or_default()))
            .collect()
    }

    /// Sets `key` (tenon's or Flink's name) back to its default.
    ///
    /// # Errors
    ///
    /// [`ConfigError::UnknownKey`].
    pub fn reset(&mut self, key: &str) -> Result<(), ConfigError> {
        let key = Config::canonical_key(key)?;
        let default = Config::default().value(key)?;
        self.set(key, &default)
    }

    /// Applies one `KEY=VALUE` pair.
    ///
    /// # Errors
    ///
    /// No `=`, an unknown key, or a bad value.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), ConfigError> {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| ConfigError::NotKeyValue(pair.to_string()))?;
        self.set(k, v)
    }

    /// Sets `key` to `value` (keys are case-insensitive; see
    /// [`Config::KEYS`]).
    ///
    /// # Errors
    ///
    /// An unknown key (the message lists the keys) or a value that does not
    /// parse (the message says what is expected).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let given = key.trim().to_ascii_lowercase();
        let k = Config::canonical_key(key)?;
        let flink = k != given;
        // Flink's `-1`: no broadcast by size, one thread per core
        let v = match k {
            "broadcast_threshold" | "threads" if flink => flink::not_set_as_zero(value),
            _ => value,
        }
        .trim();
        let bad = |key: &'static str, why: &str| ConfigError::BadValue {
            key,
            value: value.to_string(),
            why: why.to_string(),
        };
        match k {
            "broadcast_threshold" => {
                self.broadcast_threshold =
                    parse_bytes(v).map_err(|w| bad("broadcast_threshold", &w))?
            }
            "memory_limit" => {
                self.memory_limit =
                    if v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("unlimited") {
                        None
                    } else {
                        let n = parse_bytes(v).map_err(|w| bad("memory_limit", &w))?;
                        check_memory_limit(n).map_err(|w| bad("memory_limit", &w))?;
                        Some(n)
                    }
            }
            "spill_dir" => {
                self.spill_dir = if v.is_empty() {
                    // a variable that expanded to nothing is a mistake,
                    // not a wish for the temporary directory
                    return Err(bad(
                        "spill_dir",
                        "a directory (`default`: the system's temporary directory)",
                    ));
                } else if v.eq_ignore_ascii_case("default") {
                    None
                } else {
                    Some(std::path::PathBuf::from(v))
                }
            }
            "spill_limit" => {
                self.spill_limit =
                    if v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("unlimited") {
                        None
                    } else {
                        Some(parse_bytes(v).map_err(|w| bad("spill_limit", &w))?)
                    }
            }
            "hint_mode" => self.hint_mode = v.parse().map_err(|w: String| bad("hint_mode", &w))?,
            "disabled_strategies" => {
                self.disabled_strategies =
                    parse_strategies(v).map_err(|w| bad("disabled_strategies", &w))?
            }
            "threads" => {
                let n: usize = v.parse().map_err(|_| {
                    bad(
                        "threads",
                        &format!("expected a whole number from 0 (all cores) to {MAX_THREADS}"),
                    )
                })?;
                check_threads(n).map_err(|w| bad("threads", &w))?;
                self.threads = n;
            }
            "batch_size" => {
                let n: usize = v.parse().map_err(|_| {
                    bad(
                        "batch_size",
                        &format!("expected a whole number of rows from 1 to {MAX_BATCH_SIZE}"),
                    )
                })?;
                check_batch_size(n).map_err(|w| bad("batch_size", &w))?;
                self.batch_size = n;
            }
            "fused_aggregate" => {
                self.fused_aggregate = parse_switch(v).map_err(|w| bad("fused_aggregate", w))?
            }
            "shared_subplans" => {
                self.shared_subplans = parse_switch(v).map_err(|w| bad("shared_subplans", w))?
            }
            "runtime_filters" => {
                self.runtime_filters = parse_switch(v).map_err(|w| bad("runtime_filters", w))?
            }
            "join_reorder" => {
                self.join_reorder = parse_switch(v).map_err(|w| bad("join_reorder", w))?
            }
            "state_ttl" => {
                self.state_ttl =
                    crate::lookup::parse_duration(v).map_err(|w| bad("state_ttl", &w))?
            }
            "runtime_mode" => match v.to_ascii_lowercase().as_str() {
                // every table tenon reads is bounded: Flink's AUTOMATIC
                // picks batch for bounded sources
                "batch" | "automatic" => {}
                "streaming" => {
                    return Err(bad(
                        "runtime_mode",
                        "streaming mode is not built yet: tenon runs queries in batch mode \
                         (over bounded tables, each query's result once); set it to batch \
                         or leave it out",
                    ));
                }
                _ => {
                    return Err(bad(
                        "runtime_mode",
                        "expected batch (or streaming, not built yet)",
                    ));
                }
            },
            lookup => {
                if let Some(Err(why)) = self.lookup.set(lookup, v) {
                    return Err(bad(k, &why));
                }
            }
        }
        Ok(())
    }
}

/// `disabled_strategies`: a comma-separated list of tenon's strategy
/// names and Flink's operator names (`table.exec.disabled-operators`,
/// [`flink::operator_strategies`]), each strategy once.
fn parse_strategies(v: &str) -> Result<Vec<Strategy>, String> {
    let mut list = Vec::new();
    for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let strategies = match Strategy::from_name(name) {
            Some(s) => vec![s],
            None => flink::operator_strategies(name)
                .ok_or_else(|| {
                    format!(
                        "unknown strategy `{name}`; expected a comma-separated list of \
                         BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP (or nothing), or \
                         Flink's operator names NestedLoopJoin, ShuffleHashJoin, \
                         BroadcastHashJoin, SortMergeJoin, HashJoin, HashAgg, SortAgg"
                    )
                })?
                .to_vec(),
        };
        for s in strategies {
            if !list.contains(&s) {
                list.push(s);
            }
        }
    }
    Ok(list)
}

/// `n` bytes as [`parse_bytes`] reads them back: `256MB`, `1536KB`, `100`.
fn show_bytes(n: u64) -> String {
    for (unit, shift) in [("TB", 40), ("GB", 30), ("MB", 20), ("KB", 10)] {
        if n != 0 && n.is_multiple_of(1u64 << shift) {
            return format!("{}{unit}", n >> shift);
        }
    }
    n.to_string()
}

/// A duration as [`crate::lookup::parse_duration`] reads it back: `180s`,
/// `250ms`.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// An on/off setting's value: `true`/`on`/`1` or `false`/`off`/`0`, in
/// any case.
fn parse_switch(v: &str) -> Result<bool, &'static str> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err("expected true or false"),
    }
}

/// Why `n` worker threads are refused, if they are.
fn check_threads(n: usize) -> Result<(), String> {
    if n > MAX_THREADS {
        return Err(format!(
            "at most {MAX_THREADS} worker threads (0 means one per core)"
        ));
    }
    Ok(())
}

/// Why `n` rows per batch are refused, if they are.
fn check_batch_size(n: usize) -> Result<(), String> {
    if n == 0 {
        return Err(format!("must be from 1 to {MAX_BATCH_SIZE} rows"));
    }
    if n > MAX_BATCH_SIZE {
        return Err(format!("at most {MAX_BATCH_SIZE} rows per batch"));
    }
    Ok(())
}

/// The smallest `memory_limit`: below it not even one row of a wide batch
/// fits, and no operator can work by spilling.
pub const MIN_MEMORY_LIMIT: u64 = 1 << 10;

/// A memory limit of `n` bytes is at least [`MIN_MEMORY_LIMIT`].
fn check_memory_limit(n: u64) -> Result<(), String> {
    if n < MIN_MEMORY_LIMIT {
        return Err(format!(
            "must be at least {MIN_MEMORY_LIMIT} bytes (1KB), the least any query can run in \
             by spilling (or `unlimited`)"
        ));
    }
    Ok(())
}

/// A byte count with an optional unit: `1048576`, `512KB`, `10MB`, `2GiB`,
/// `1.5GB`. KB/MB/GB/TB are powers of 1024 here as in Flink's `MemorySize`
/// (`KiB` etc. are accepted as the same).
///
/// # Errors
///
/// A message saying what is expected.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "unknown unit `{unit}`; expected a byte count such as 1048576, 512KB, 10MB or 2GB"
            ));
        }
    };
    let value: f64 = num
        .parse()
        .map_err(|_| "expected a byte count such as 1048576, 512KB, 10MB or 2GB".to_string())?;
    let bytes = value * mult as f64;
    if !(bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64) {
        return Err("out of range".into());
    }
    Ok(bytes.round() as u64)
}

impl Config {
    /// Checks the settings that size resources, for a `Config` whose fields
    /// were set directly rather than through [`Config::set`]: `threads` at
    /// most [`MAX_THREADS`], `batch_size` from 1 to [`MAX_BATCH_SIZE`], a
    /// `memory_limit` above 0.
    ///
    /// # Errors
    ///
    /// [`ConfigError::BadValue`] for the first setting out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &'static str, value: String, why: String| ConfigError::BadValue {
            key,
            value,
            why,
        };
        check_threads(self.threads).map_err(|w| bad("threads", self.threads.to_string(), w))?;
        check_batch_size(self.batch_size)
            .map_err(|w| bad("batch_size", self.batch_size.to_string(), w))?;
        if let Some(n) = self.memory_limit {
            check_memory_limit(n).map_err(|w| bad("memory_limit", n.to_string(), w))?;
        }
        Ok(())
    }

    /// The settings hint resolution reads.
    pub fn resolve_config(&self) -> ResolveConfig {
        ResolveConfig {
            broadcast_threshold: self.broadcast_threshold,
            hint_mode: self.hint_mode,
            disabled_strategies: self.disabled_strategies.clone(),
            runtime_filters: self.runtime_filters,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_bytes("1024"), Ok(1024));
        assert_eq!(parse_bytes("10MB"), Ok(10 << 20));
        assert_eq!(parse_bytes("10 mib"), Ok(10 << 20));
        assert_eq!(parse_bytes("1.5GB"), Ok(3 << 29));
        assert!(parse_bytes("ten MB").is_err());
        assert!(
            parse_bytes("10XB")
                .unwrap_err()
                .contains("XB".to_lowercase().as_str())
        );
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("1e400").is_err());
    }

    #[test]
    fn bad_settings_are_errors_that_say_why() {
        let mut c = Config::default();
        let e = c.set("hint_mode", "loose").unwrap_err().to_string();
        assert!(e.contains("lenient") && e.contains("strict"), "{e}");
        let e = c
            .set("disabled_strategies", "HASH")
            .unwrap_err()
            .to_string();
        assert!(e.contains("HASH") && e.contains("SHUFFLE_HASH"), "{e}");
        assert!(c.set("batch_size", "0").is_err());
        assert!(c.set("memory_limit", "0").is_err());
        assert!(matches!(
            c.set_pair("threads"),
            Err(ConfigError::NotKeyValue(_))
        ));
        let e = c.set("colour", "blue").unwrap_err().to_string();
        assert!(e.contains("colour") && e.contains("memory_limit"), "{e}");
        assert_eq!(c, Config::default(), "failed sets change nothing");
    }

    #[test]
    fn threads_above_the_cap_are_refused_naming_it() {
        let mut c = Config::default();
        let e = c.set("threads", "100000").unwrap_err().to_string();
        assert!(e.contains("100000") && e.contains("1024"), "{e}");
        c.set("threads", &MAX_THREADS.to_string()).unwrap();
        assert_eq!(c.threads, MAX_THREADS);
        c.threads = MAX_THREADS + 1;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("threads") && e.contains("1024"), "{e}");
    }

    #[test]
    fn batch_sizes_above_the_cap_are_refused_naming_it() {
        let mut c = Config::default();
        let e = c
            .set("batch_size", &(MAX_BATCH_SIZE + 1).to_string())
            .unwrap_err()
            .to_string();
        assert!(e.contains(&MAX_BATCH_SIZE.to_string()), "{e}");
        let e = c
            .set("batch_size", "99999999999999999999")
            .unwrap_err()
            .to_string();
        assert!(e.contains(&MAX_BATCH_SIZE.to_string()), "{e}");
        c.set("batch_size", &MAX_BATCH_SIZE.to_string()).unwrap();
        c.batch_size = 0;
        assert!(c.validate().is_err());
        c.batch_size = usize::MAX;
        assert!(c.validate().is_err());
        assert_eq!(Config::default().validate(), Ok(()));
    }

    #[test]
    fn good_settings_apply() {
        let mut c = Config::default();
        c.set_pair("memory_limit=2GB").unwrap();
        c.set_pair("THREADS=4").unwrap();
        c.set_pair("disabled_strategies=").unwrap();
        assert_eq!(c.memory_limit, Some(2 << 30));
        assert_eq!(c.threads, 4);
        assert!(c.disabled_strategies.is_empty());
        c.set_pair("memory_limit=unlimited").unwrap();
        assert_eq!(c.memory_limit, None);
        assert!(c.runtime_filters);
        c.set_pair("runtime_filters=false").unwrap();
        assert!(!c.runtime_filters);
        c.set_pair("Runtime_Filters=ON").unwrap();
        assert!(c.runtime_filters);
        let e = c.set("runtime_filters", "maybe").unwrap_err().to_string();
        assert!(e.contains("true or false"), "{e}");
        assert!(c.shared_subplans);
        c.set_pair("shared_subplans=off").unwrap();
        assert!(!c.shared_subplans);
    }

    #[test]
    fn flink_configuration_names_set_tenon_settings() {
        let mut c = Config::default();
        c.set("table.optimizer.join.broadcast-threshold", "10 mb")
            .unwrap();
        assert_eq!(c.broadcast_threshold, 10 << 20);
        c.set("TABLE.OPTIMIZER.JOIN.BROADCAST-THRESHOLD", "10485760")
            .unwrap();
        assert_eq!(c.broadcast_threshold, 10 << 20);
        c.set("table.optimizer.join.broadcast-threshold", "-1")
            .unwrap();
        assert_eq!(c.broadcast_threshold, 0);
        c.set("table.optimizer.join-reorder-enabled", "true")
            .unwrap();
        assert!(c.join_reorder);
        c.set("table.exec.disabled-operators", "NestedLoopJoin, HashJoin")
            .unwrap();
        assert_eq!(
            c.disabled_strategies,
            [
                Strategy::NestLoop,
                Strategy::Broadcast,
                Strategy::ShuffleHash
            ]
        );
        c.set("table.exec.disabled-operators", "SortMergeJoin,HashAgg")
            .unwrap();
        assert_eq!(c.disabled_strategies, [Strategy::ShuffleMerge]);
        c.set("table.exec.async-lookup.buffer-capacity", "7")
            .unwrap();
        c.set("table.exec.async-lookup.timeout", "2 min").unwrap();
        c.set("table.exec.async-lookup.output-mode", "ALLOW_UNORDERED")
            .unwrap();
        assert_eq!(c.lookup.capacity, 7);
        assert_eq!(c.lookup.timeout, Duration::from_secs(120));
        assert_eq!(
            c.lookup.output_mode,
            crate::lookup::OutputMode::AllowUnordered
        );
        c.set("table.exec.state.ttl", "36 h").unwrap();
        assert_eq!(c.state_ttl, Duration::from_secs(36 * 3600));
        let e = c.set("table.exec.state.ttl", "a while").unwrap_err();
        assert!(e.to_string().contains("state_ttl"), "{e}");
        c.set("execution.runtime-mode", "BATCH").unwrap();
        let e = c
            .set("execution.runtime-mode", "streaming")
            .unwrap_err()
            .to_string();
        assert!(e.contains("streaming mode is not built yet"), "{e}");
        c.set("parallelism.default", "3").unwrap();
        assert_eq!(c.threads, 3);
        c.set("table.exec.resource.default-parallelism", "-1")
            .unwrap();
        assert_eq!(c.threads, 0);
        // listings show tenon's names
        let entries = c.entries();
        assert_eq!(entries.len(), Config::KEYS.len());
        assert!(entries.iter().all(|(k, _)| !k.starts_with("table.")));
        assert!(
            entries.contains(&("state_ttl", "129600s".to_string())),
            "{entries:?}"
        );
        // an unknown key lists the close ones
        let e = c
            .set("table.optimizer.join.broadcast-treshold", "1")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("did you mean `table.optimizer.join.broadcast-threshold`"),
            "{e}"
        );
        let e = c.set("broadcast", "1").unwrap_err().to_string();
        assert!(e.contains("`broadcast_threshold`"), "{e}");
        assert!(!e.contains("memory_limit"), "{e}");
    }

    #[test]
    fn every_value_reads_back_and_reset_restores_the_default() {
        let mut c = Config::default();
        for (k, v) in Config::default().entries() {
            c.set(k, &v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
        }
        assert_eq!(c, Config::default());
        c.set("memory_limit", "1536KB").unwrap();
        c.set("table.exec.disabled-operators", "HashJoin").unwrap();
        assert_eq!(c.value("memory_limit").unwrap(), "1536KB");
        let mut copy = Config::default();
        for (k, v) in c.entries() {
            copy.set(k, &v).unwrap();
        }
        assert_eq!(copy, c);
        c.reset("MEMORY_LIMIT").unwrap();
        c.reset("table.exec.disabled-operators").unwrap();
        assert_eq!(c, Config::default());
    }
}
