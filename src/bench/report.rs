//! The results of one `tenon bench` run, and their JSON form.
//!
//! # JSON schema (`"schema": "tenon-bench/1"`)
//!
//! ```text
//! {
//!   "schema": "tenon-bench/1",
//!   "tenon_version": "0.1.0",
//!   "settings": {"threads": 2, "runs": 5, "scale": 0.1, "seed": 42, "batch_size": 8192},
//!   "workloads": [{
//!     "workload": "fk_small",
//!     "probe_rows": 1000000, "build_rows": 100, "output_rows": 1000000,
//!     "strategies": [{
//!       "strategy": "BROADCAST",
//!       "runs_s": [0.0061, 0.0060, ...],        // every timed run, in order
//!       "median_s": 0.0060, "min_s": 0.0059, "max_s": 0.0065,
//!       "probe_rows_per_s": 1.6e8,               // probe rows / median
//!       "peak_memory_bytes": 24576,              // most the kernel reserved at once
//!       "spilled_bytes": 0,                      // spill files written (under a memory_limit)
//!       "instructions": 1234567                  // one run, callgrind, 1 thread; or null
//!     }, ...],
//!     "fastest": "SHUFFLE_HASH",
//!     "default": {"strategy": "BROADCAST", "hint": null,
//!                 "reason": "default: build side ...", "regret": 1.02},
//!     "hinted":  {"strategy": "BROADCAST", "hint": "BROADCAST(build)",
//!                 "reason": "hint BROADCAST(build) applied", "regret": 1.02}
//!   }, ...]
//! }
//! ```
//!
//! `regret` is the chosen strategy's median over the fastest strategy's
//! median (1.0: the choice was the fastest). Times are wall-clock seconds
//! of the join alone (inputs generated and loaded before timing).

use serde_json::{Map, Value, json};

/// The schema name written to and expected in the JSON.
pub const SCHEMA: &str = "tenon-bench/1";

/// Everything one `tenon bench` run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    /// The tenon version that measured it.
    pub tenon_version: String,
    /// How it was measured.
    pub settings: Settings,
    /// One entry per workload, in the order run.
    pub workloads: Vec<WorkloadReport>,
}

/// The settings of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Worker threads.
    pub threads: usize,
    /// Timed runs per strategy (after one warm-up run).
    pub runs: usize,
    /// Fraction of the full workload sizes.
    pub scale: f64,
    /// Seed of the data generator.
    pub seed: u64,
    /// Rows per batch.
    pub batch_size: usize,
}

/// One workload's results.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadReport {
    /// The workload's name (`fk_small`, ...).
    pub workload: String,
    /// Rows of the probe (left) side.
    pub probe_rows: u64,
    /// Rows of the build (right) side.
    pub build_rows: u64,
    /// Rows the join produced (the same under every strategy).
    pub output_rows: u64,
    /// Every strategy measured.
    pub strategies: Vec<StrategyTiming>,
    /// The planner's choice without a hint.
    pub default: Choice,
    /// The planner's choice under the workload's hint.
    pub hinted: Choice,
}

/// One strategy's timings on one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyTiming {
    /// `BROADCAST`, `SHUFFLE_HASH`, `SHUFFLE_MERGE` or `NEST_LOOP`.
    pub strategy: String,
    /// Seconds of every timed run, in order.
    pub runs_s: Vec<f64>,
    /// Peak bytes the kernel reserved (tables, copies, sort buffers; the
    /// inputs and the output are not counted), the largest over the runs.
    pub peak_memory_bytes: u64,
    /// Bytes of spill files written, the largest over the runs (only a
    /// run under `--set memory_limit=X` spills; 0 otherwise, and in a
    /// report written before the field existed).
    pub spilled_bytes: u64,
    /// Instructions of one run, counted by callgrind on one thread
    /// (`--measure instructions`); `None` when not counted.
    pub instructions: Option<u64>,
}

/// What the planner chose for a workload, and how that turned out.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The strategy chosen.
    pub strategy: String,
    /// The hint given (`None` for the default choice).
    pub hint: Option<String>,
    /// The planner's reason, as EXPLAIN prints it.
    pub reason: String,
}

impl StrategyTiming {
    /// The median of the runs (the mean of the middle two for an even
    /// count); 0 without runs.
    pub fn median_s(&self) -> f64 {
        let mut v = self.runs_s.clone();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }

    /// The fastest run.
    pub fn min_s(&self) -> f64 {
        self.runs_s.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The slowest run.
    pub fn max_s(&self) -> f64 {
        self.runs_s.iter().copied().fold(0.0, f64::max)
    }
}

impl WorkloadReport {
    /// The timing of `strategy`, if it was measured.
    pub fn timing(&self, strategy: &str) -> Option<&StrategyTiming> {
        self.strategies.iter().find(|s| s.strategy == strategy)
    }

    /// The strategy with the smallest median.
    pub fn fastest(&self) -> Option<&StrategyTiming> {
        self.strategies
            .iter()
            .min_by(|a, b| a.median_s().total_cmp(&b.median_s()))
    }

    /// The chosen strategy's median over the fastest one's: 1.0 when the
    /// choice was the fastest. `None` when the choice was not measured.
    pub fn regret(&self, choice: &Choice) -> Option<f64> {
        let chosen = self.timing(&choice.strategy)?.median_s();
        let best = self.fastest()?.median_s();
        (best > 0.0).then(|| chosen / best)
    }
}

impl BenchReport {
    /// The report as JSON (the schema in the module docs).
    pub fn to_json(&self) -> String {
        let s = &self.settings;
        let workloads: Vec<Value> = self.workloads.iter().map(workload_json).collect();
        let v = json!({
            "schema": SCHEMA,
            "tenon_version": self.tenon_version,
            "settings": {
                "threads": s.threads,
                "runs": s.runs,
                "scale": s.scale,
                "seed": s.seed,
                "batch_size": s.batch_size,
            },
            "workloads": workloads,
        });
        let mut text = serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string());
        text.push('\n');
        text
    }

    /// Reads a report written by [`BenchReport::to_json`].
    ///
    /// # Errors
    ///
    /// Text that is not JSON, another schema, or a missing or mistyped
    /// field; the message names the field and where it is.
    pub fn from_json(text: &str) -> Result<BenchReport, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let root = obj(&v, "the document")?;
        let schema = str_field(root, "schema", "the document")?;
        if schema != SCHEMA {
            return Err(format!(
                "schema is `{schema}`, this tenon reads `{SCHEMA}`; rerun the baseline with this \
                 version"
            ));
        }
        let settings = obj(field(root, "settings", "the document")?, "settings")?;
        let settings = Settings {
            threads: u64_field(settings, "threads", "settings")? as usize,
            runs: u64_field(settings, "runs", "settings")? as usize,
            scale: f64_field(settings, "scale", "settings")?,
            seed: u64_field(settings, "seed", "settings")?,
            batch_size: u64_field(settings, "batch_size", "settings")? as usize,
        };
        let workloads = arr(field(root, "workloads", "the document")?, "workloads")?
            .iter()
            .enumerate()
            .map(|(i, w)| workload_from(w, &format!("workloads[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(BenchReport {
            tenon_version: str_field(root, "tenon_version", "the document")?.to_string(),
            settings,
            workloads,
        })
    }
}

fn workload_json(w: &WorkloadReport) -> Value {
    let strategies: Vec<Value> = w
        .strategies
        .iter()
        .map(|s| {
            let median = s.median_s();
            json!({
                "strategy": s.strategy,
                "runs_s": s.runs_s,
                "median_s": median,
                "min_s": s.min_s(),
                "max_s": s.max_s(),
                "probe_rows_per_s": if median > 0.0 { w.probe_rows as f64 / median } else { 0.0 },
                "peak_memory_bytes": s.peak_memory_bytes,
                "spilled_bytes": s.spilled_bytes,
                "instructions": s.instructions,
            })
        })
        .collect();
    let choice = |c: &Choice| {
        json!({
            "strategy": c.strategy,
            "hint": c.hint,
            "reason": c.reason,
            "regret": w.regret(c),
        })
    };
    json!({
        "workload": w.workload,
        "probe_rows": w.probe_rows,
        "build_rows": w.build_rows,
        "output_rows": w.output_rows,
        "strategies": strategies,
        "fastest": w.fastest().map(|s| s.strategy.clone()),
        "default": choice(&w.default),
        "hinted": choice(&w.hinted),
    })
}

fn workload_from(v: &Value, at: &str) -> Result<WorkloadReport, String> {
    let o = obj(v, at)?;
    let strategies = arr(field(o, "strategies", at)?, &format!("{at}.strategies"))?
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let at = format!("{at}.strategies[{i}]");
            let so = obj(s, &at)?;
            let runs_s = arr(field(so, "runs_s", &at)?, &format!("{at}.runs_s"))?
                .iter()
                .map(|r| {
                    r.as_f64()
                        .ok_or_else(|| format!("{at}.runs_s holds a value that is not a number"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let instructions = match so.get("instructions") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| {
                    format!("{at}.instructions must be a non-negative integer or null")
                })?),
            };
            Ok(StrategyTiming {
                strategy: str_field(so, "strategy", &at)?.to_string(),
                runs_s,
                peak_memory_bytes: u64_field(so, "peak_memory_bytes", &at)?,
                spilled_bytes: match so.get("spilled_bytes") {
                    None => 0,
                    Some(_) => u64_field(so, "spilled_bytes", &at)?,
                },
                instructions,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let choice = |key: &str| -> Result<Choice, String> {
        let at = format!("{at}.{key}");
        let c = obj(field(o, key, &at)?, &at)?;
        Ok(Choice {
            strategy: str_field(c, "strategy", &at)?.to_string(),
            hint: match c.get("hint") {
                None | Some(Value::Null) => None,
                Some(Value::String(h)) => Some(h.clone()),
                Some(_) => return Err(format!("{at}.hint must be a string or null")),
            },
            reason: str_field(c, "reason", &at)?.to_string(),
        })
    };
    Ok(WorkloadReport {
        workload: str_field(o, "workload", at)?.to_string(),
        probe_rows: u64_field(o, "probe_rows", at)?,
        build_rows: u64_field(o, "build_rows", at)?,
        output_rows: u64_field(o, "output_rows", at)?,
        strategies,
        default: choice("default")?,
        hinted: choice("hinted")?,
    })
}

fn field<'a>(o: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("{at} has no `{key}`"))
}

fn obj<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{at} must be a JSON object"))
}

fn arr<'a>(v: &'a Value, at: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("{at} must be a JSON array"))
}

fn str_field<'a>(o: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a str, String> {
    field(o, key, at)?
        .as_str()
        .ok_or_else(|| format!("{at}.{key} must be a string"))
}

fn u64_field(o: &Map<String, Value>, key: &str, at: &str) -> Result<u64, String> {
    field(o, key, at)?
        .as_u64()
        .ok_or_else(|| format!("{at}.{key} must be a non-negative integer"))
}

fn f64_field(o: &Map<String, Value>, key: &str, at: &str) -> Result<f64, String> {
    field(o, key, at)?
        .as_f64()
        .ok_or_else(|| format!("{at}.{key} must be a number"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::tests::sample;

    #[test]
    fn json_round_trips() {
        let r = sample();
        let back = BenchReport::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn regret_is_the_choice_over_the_fastest_median() {
        let r = sample();
        let w = &r.workloads[0];
        assert_eq!(w.fastest().unwrap().strategy, "BROADCAST");
        assert!((w.regret(&w.default).unwrap() - 0.021 / 0.011).abs() < 1e-12);
        assert_eq!(w.regret(&w.hinted), Some(1.0));
        let text = r.to_json();
        assert!(text.contains("\"regret\": 1.0"), "{text}");
    }

    #[test]
    fn bad_documents_say_what_is_wrong() {
        let err = BenchReport::from_json("{").unwrap_err();
        assert!(err.contains("not JSON"), "{err}");
        let err = BenchReport::from_json(r#"{"schema": "other/9"}"#).unwrap_err();
        assert!(err.contains("other/9"), "{err}");
        let text = sample()
            .to_json()
            .replace("\"probe_rows\"", "\"probe_rowz\"");
        let err = BenchReport::from_json(&text).unwrap_err();
        assert!(err.contains("workloads[0] has no `probe_rows`"), "{err}");
    }
}
