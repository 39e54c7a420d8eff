//! `tenon bench --baseline`: what got slower since an earlier run.
//!
//! Wall time on shared machines varies from run to run, so a figure counts
//! as regressed only when both hold:
//!
//! - its median grew by more than the threshold (`--max-regression`, in
//!   percent of the baseline's median), and
//! - the growth is larger than the baseline's own spread (its slowest run
//!   minus its fastest): a change within the noise the baseline itself
//!   showed is not evidence of a regression.
//!
//! Figures are the medians of each (workload, strategy) measured in both
//! runs; when both runs counted its instructions (`--measure
//! instructions`), the instruction counts instead, which repeat to within
//! about 0.01% for the same code and data (their spread is taken as 0:
//! only the threshold applies, so keep it at 1% or more). A workload or
//! strategy in only one of them is listed, not judged.
//!
//! Its limit: two wall-time medians taken minutes apart differ by whatever
//! the machine did in between (10-20% on a busy 2-core runner), which no
//! spread of a few runs bounds, so the same binary can fail against its
//! own baseline. Keep it for history; gate on two binaries timed in
//! interleaved pairs ([`super::paired`], `tenon bench --against`) or on
//! instruction counts.

use super::report::BenchReport;

/// One (workload, strategy) figure in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The workload.
    pub workload: String,
    /// The strategy.
    pub strategy: String,
    /// What is compared: `"median_s"` or `"instructions"`.
    pub measure: &'static str,
    /// The baseline's median seconds (or instructions).
    pub baseline_s: f64,
    /// The baseline's slowest run minus its fastest (0 for instructions).
    pub baseline_spread_s: f64,
    /// The current median seconds (or instructions).
    pub current_s: f64,
    /// Change of the median in percent of the baseline's (positive: slower).
    pub change_pct: f64,
    /// Whether this counts as a regression (see the module docs).
    pub regressed: bool,
}

/// The comparison of a run with its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Every figure found in both runs.
    pub changes: Vec<Change>,
    /// `workload/strategy` figures found in only one of the runs.
    pub unmatched: Vec<String>,
}

impl Comparison {
    /// The figures that regressed.
    pub fn regressions(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.regressed)
    }
}

/// Compares `current` with `baseline` at a threshold of `max_regression_pct`.
pub fn compare(
    baseline: &BenchReport,
    current: &BenchReport,
    max_regression_pct: f64,
) -> Comparison {
    let mut changes = Vec::new();
    let mut unmatched = Vec::new();
    for cw in &current.workloads {
        let bw = baseline
            .workloads
            .iter()
            .find(|w| w.workload == cw.workload);
        for cs in &cw.strategies {
            let Some(bs) = bw.and_then(|w| w.timing(&cs.strategy)) else {
                unmatched.push(format!(
                    "{}/{} (not in the baseline)",
                    cw.workload, cs.strategy
                ));
                continue;
            };
            let (measure, base, cur, spread) = match (bs.instructions, cs.instructions) {
                (Some(b), Some(c)) => ("instructions", b as f64, c as f64, 0.0),
                _ => (
                    "median_s",
                    bs.median_s(),
                    cs.median_s(),
                    bs.max_s() - bs.min_s(),
                ),
            };
            let change_pct = if base > 0.0 {
                (cur - base) / base * 100.0
            } else {
                0.0
            };
            changes.push(Change {
                measure,
                workload: cw.workload.clone(),
                strategy: cs.strategy.clone(),
                baseline_s: base,
                baseline_spread_s: spread,
                current_s: cur,
                change_pct,
                regressed: change_pct > max_regression_pct && cur - base > spread,
            });
        }
    }
    for bw in &baseline.workloads {
        let cw = current.workloads.iter().find(|w| w.workload == bw.workload);
        for bs in &bw.strategies {
            if cw.and_then(|w| w.timing(&bs.strategy)).is_none() {
                unmatched.push(format!("{}/{} (not in this run)", bw.workload, bs.strategy));
            }
        }
    }
    Comparison { changes, unmatched }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::BenchReport;

    fn report(runs: &[(&str, Vec<f64>)]) -> BenchReport {
        let mut r = crate::bench::tests::sample();
        r.workloads[0].strategies = runs
            .iter()
            .map(|(s, t)| crate::bench::report::StrategyTiming {
                strategy: s.to_string(),
                runs_s: t.clone(),
                peak_memory_bytes: 0,
                spilled_bytes: 0,
                instructions: None,
            })
            .collect();
        r
    }

    #[test]
    fn a_slowdown_past_threshold_and_spread_regresses() {
        let base = report(&[("BROADCAST", vec![0.100, 0.101, 0.102])]);
        let cur = report(&[("BROADCAST", vec![0.130, 0.131, 0.129])]);
        let c = compare(&base, &cur, 10.0);
        let r: Vec<_> = c.regressions().collect();
        assert_eq!(r.len(), 1);
        let want = (0.130 - 0.101) / 0.101 * 100.0;
        assert!((r[0].change_pct - want).abs() < 1e-9, "{:?}", r[0]);
    }

    #[test]
    fn noise_within_the_baselines_spread_or_threshold_does_not() {
        // +20% but the baseline itself ranged 0.08 .. 0.14
        let base = report(&[("BROADCAST", vec![0.08, 0.10, 0.14])]);
        let cur = report(&[("BROADCAST", vec![0.12, 0.12, 0.12])]);
        assert_eq!(compare(&base, &cur, 10.0).regressions().count(), 0);
        // +5%, under the threshold
        let base = report(&[("BROADCAST", vec![0.100, 0.100, 0.100])]);
        let cur = report(&[("BROADCAST", vec![0.105, 0.105, 0.105])]);
        assert_eq!(compare(&base, &cur, 10.0).regressions().count(), 0);
        // faster is never a regression
        let cur = report(&[("BROADCAST", vec![0.05, 0.05, 0.05])]);
        assert_eq!(compare(&base, &cur, 10.0).regressions().count(), 0);
    }

    #[test]
    fn instruction_counts_are_compared_when_both_runs_have_them() {
        let mut base = report(&[("BROADCAST", vec![0.1, 0.1, 0.1])]);
        let mut cur = report(&[("BROADCAST", vec![0.1, 0.1, 0.1])]);
        base.workloads[0].strategies[0].instructions = Some(1_000_000);
        cur.workloads[0].strategies[0].instructions = Some(1_030_000);
        let c = compare(&base, &cur, 2.0);
        assert_eq!(c.changes[0].measure, "instructions");
        assert_eq!(c.regressions().count(), 1, "{c:?}");
        assert_eq!(compare(&base, &cur, 5.0).regressions().count(), 0);
        cur.workloads[0].strategies[0].instructions = None;
        assert_eq!(compare(&base, &cur, 2.0).changes[0].measure, "median_s");
    }

    #[test]
    fn figures_in_only_one_run_are_listed() {
        let base = report(&[("BROADCAST", vec![0.1]), ("SHUFFLE_MERGE", vec![0.2])]);
        let cur = report(&[("BROADCAST", vec![0.1]), ("SHUFFLE_HASH", vec![0.2])]);
        let c = compare(&base, &cur, 10.0);
        assert_eq!(c.changes.len(), 1);
        assert_eq!(
            c.unmatched,
            vec![
                "fk_small/SHUFFLE_HASH (not in the baseline)".to_string(),
                "fk_small/SHUFFLE_MERGE (not in this run)".to_string()
            ]
        );
    }
}
