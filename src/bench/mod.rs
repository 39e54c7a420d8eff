//! `tenon bench`'s results: the report and its JSON form ([`report`]), the
//! comparison with a baseline ([`compare`]), the verdict on two binaries
//! timed in interleaved pairs ([`paired`]), the chart ([`svg`]) and the
//! hinted variants of a user's query (`tenon bench --query`, [`variants`]). The
//! measuring itself is the command's (it runs [`crate::suite`]'s joins).

pub mod compare;
pub mod paired;
pub mod report;
pub mod svg;
pub mod variants;

pub use compare::{Change, Comparison, compare};
pub use paired::{MedianInterval, PairedFigure, PairedVerdict, judge, median_interval};
pub use report::{BenchReport, Choice, SCHEMA, Settings, StrategyTiming, WorkloadReport};

#[cfg(test)]
pub(crate) mod tests {
    use super::report::*;

    pub(crate) fn sample() -> BenchReport {
        let choice = |s: &str, hint: Option<&str>| Choice {
            strategy: s.into(),
            hint: hint.map(Into::into),
            reason: format!("because {s}"),
        };
        BenchReport {
            tenon_version: "0.1.0".into(),
            settings: Settings {
                threads: 2,
                runs: 3,
                scale: 0.01,
                seed: 42,
                batch_size: 8192,
            },
            workloads: vec![WorkloadReport {
                workload: "fk_small".into(),
                probe_rows: 100_000,
                build_rows: 10,
                output_rows: 100_000,
                strategies: vec![
                    StrategyTiming {
                        strategy: "BROADCAST".into(),
                        runs_s: vec![0.012, 0.010, 0.011],
                        peak_memory_bytes: 4096,
                        spilled_bytes: 0,
                        instructions: Some(1_000_000),
                    },
                    StrategyTiming {
                        strategy: "SHUFFLE_HASH".into(),
                        runs_s: vec![0.020, 0.022, 0.021],
                        peak_memory_bytes: 8192,
                        spilled_bytes: 1 << 20,
                        instructions: None,
                    },
                ],
                default: choice("SHUFFLE_HASH", None),
                hinted: choice("BROADCAST", Some("BROADCAST(build)")),
            }],
        }
    }
}
