//! A workload's join run through the executor, as `tenon query` runs it:
//! what `tenon bench --set memory_limit=X` measures, so that the limit's
//! spilling (which the executor does, not the kernels) is timed and its
//! bytes reported.
//!
//! The workload's inputs are registered as in-memory tables `probe` and
//! `build`, and each strategy runs [`sql`](super::sql) with the hint
//! `STRATEGY(build)` under strict hints (a hint the planner could not
//! follow is an error, never another strategy timed under its name).

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use tenon_datasets::Workload;
use tenon_kernels::Strategy;

use super::Inputs;
use crate::measure::JoinSummary;
use crate::{Config, Error, HintMode, Session};

/// One run of a workload's join through the executor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Executed {
    /// What the query computed (the same figures as the kernels'
    /// [`measure`](super::measure)).
    pub summary: JoinSummary,
    /// Execution time in seconds (planning excluded): the join with the
    /// scan of the in-memory tables and the final aggregate.
    pub seconds: f64,
    /// The most bytes the query held at once, as charged to its budget.
    pub peak_memory: u64,
    /// Bytes of spill files the query wrote.
    pub spilled_bytes: u64,
}

/// A session holding `inputs` as tables `probe` and `build`, with
/// `config`'s settings and strict hints.
///
/// # Errors
///
/// A setting out of range or worker threads that cannot start.
pub fn session(inputs: &Inputs, config: &Config) -> Result<Session, Error> {
    let mut config = config.clone();
    config.hint_mode = HintMode::Strict;
    let mut session = Session::new(config)?;
    for (name, input) in [("probe", &inputs.probe), ("build", &inputs.build)] {
        session.register_batches(name, input.schema().clone(), input.batches().to_vec())?;
    }
    Ok(session)
}

/// Runs `workload`'s join under `strategy` in `session` (made by
/// [`session`]).
///
/// # Errors
///
/// What the query fails with: "memory limit exceeded" for what cannot
/// spill (an as-of join's key whose versions do not fit), a spill
/// directory that cannot be written, ...
pub fn run(session: &Session, workload: Workload, strategy: Strategy) -> Result<Executed, Error> {
    let hint = format!("{}(build)", strategy.name());
    let out = session.query(&super::sql(workload, Some(&hint)))?;
    Ok(Executed {
        summary: summary_of(&out.batches),
        seconds: out.elapsed.as_secs_f64(),
        peak_memory: out.peak_memory,
        spilled_bytes: out.spilled_bytes,
    })
}

/// The summary in the query's one row: `count(*)` and, when selected, the
/// two sums (NULL, the sum of no rows, as 0).
fn summary_of(batches: &[RecordBatch]) -> JoinSummary {
    let value = |i: usize| -> i64 {
        batches
            .iter()
            .filter(|b| b.num_rows() > 0)
            .find_map(|b| {
                let c = b.columns().get(i)?.as_primitive_opt::<Int64Type>()?;
                Some(if c.is_null(0) { 0 } else { c.value(0) })
            })
            .unwrap_or(0)
    };
    JoinSummary {
        rows: u64::try_from(value(0)).unwrap_or(0),
        left_sum: value(1),
        right_sum: value(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenon_datasets::generate;

    #[test]
    fn the_executor_under_a_small_limit_spills_and_agrees_with_the_kernels() {
        let w = Workload::FkLarge;
        let inputs = super::super::inputs(w, generate(w, 0.002, 7), 1000);
        let kernel = super::super::join(w, Strategy::ShuffleHash, 1000).expect("a join");
        let want = super::super::measure(&kernel, &inputs).expect("kernel");
        let config = Config {
            threads: 2,
            batch_size: 1000,
            memory_limit: Some(64 << 10),
            ..Config::default()
        };
        let s = session(&inputs, &config).expect("session");
        for strategy in [Strategy::ShuffleHash, Strategy::ShuffleMerge] {
            let got = run(&s, w, strategy).expect("runs under the limit");
            assert_eq!(got.summary, want, "{strategy}");
            assert!(got.spilled_bytes > 0, "{strategy}: nothing spilled");
            assert!(got.peak_memory <= 64 << 10, "{strategy}: {got:?}");
        }
    }
}
