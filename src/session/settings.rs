//! A session's settings: [`Session::set`] with `KEY=VALUE` strings, as
//! `--set` gives them, and one typed method per setting. Both change a
//! copy of the [`Config`], check it with [`Config::validate`] (the bounds
//! and messages `Config::set` uses) and only then apply it, so a bad value
//! leaves the session as it was.

use tenon_kernels::Strategy;
use tenon_planner::config::{Config, HintMode};

use super::{Session, build_pool};
use crate::error::Error;

impl Session {
    /// Changes one setting, as `--set KEY=VALUE` does (`threads`,
    /// `batch_size`, `broadcast_threshold`, `hint_mode`,
    /// `disabled_strategies`, `memory_limit`, `fused_aggregate`,
    /// `runtime_filters`, `shared_subplans`: [`Config::KEYS`]).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for an unknown key or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let mut config = self.config.clone();
        config.set(key, value)?;
        self.apply(config)
    }

    /// The settings `config` in place of the session's, once checked; a new
    /// worker pool when the number of threads changed.
    pub(super) fn apply(&mut self, config: Config) -> Result<(), Error> {
        config.validate()?;
        if config.threads != self.config.threads {
            self.pool = build_pool(config.threads)?;
        }
        self.config = config;
        Ok(())
    }

    /// `broadcast_threshold`: the largest estimated join input (bytes) the
    /// default choice broadcasts.
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    ///
    /// # Examples
    ///
    /// ```
    /// use tenon::{Config, Session};
    /// use tenon::HintMode;
    ///
    /// let mut session = Session::new(Config::default())?;
    /// session.set_broadcast_threshold(16 << 20)?;
    /// session.set_hint_mode(HintMode::Strict)?;
    /// session.set_memory_limit(Some(1 << 30))?;
    /// assert_eq!(session.config().broadcast_threshold, 16 << 20);
    /// // the same checks as `set`: a bad value changes nothing
    /// let typed = session.set_threads(100_000).unwrap_err();
    /// let text = session.set("threads", "100000").unwrap_err();
    /// assert_eq!(typed.to_string(), text.to_string());
    /// assert_eq!(session.config().threads, 0);
    /// # Ok::<_, tenon::Error>(())
    /// ```
    pub fn set_broadcast_threshold(&mut self, bytes: u64) -> Result<(), Error> {
        self.apply(Config {
            broadcast_threshold: bytes,
            ..self.config.clone()
        })
    }

    /// `memory_limit`: the bytes a query may hold (`None`: unlimited).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for `Some(0)`.
    pub fn set_memory_limit(&mut self, bytes: Option<u64>) -> Result<(), Error> {
        self.apply(Config {
            memory_limit: bytes,
            ..self.config.clone()
        })
    }

    /// `hint_mode`: lenient (an inapplicable hint falls back to the
    /// default, with the reason) or strict (it is an error).
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    pub fn set_hint_mode(&mut self, mode: HintMode) -> Result<(), Error> {
        self.apply(Config {
            hint_mode: mode,
            ..self.config.clone()
        })
    }

    /// `disabled_strategies`: strategies neither hints nor the default
    /// choice may use (each once, in the order given).
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    pub fn set_disabled_strategies(
        &mut self,
        strategies: impl IntoIterator<Item = Strategy>,
    ) -> Result<(), Error> {
        let mut list: Vec<Strategy> = Vec::new();
        for s in strategies {
            if !list.contains(&s) {
                list.push(s);
            }
        }
        self.apply(Config {
            disabled_strategies: list,
            ..self.config.clone()
        })
    }

    /// `threads`: worker threads, 0 for one per core.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] above
    /// [`MAX_THREADS`](tenon_planner::config::MAX_THREADS);
    /// [`Error::Resource`] when the threads cannot be started.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Error> {
        self.apply(Config {
            threads,
            ..self.config.clone()
        })
    }

    /// `batch_size`: rows per batch.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] outside 1 to
    /// [`MAX_BATCH_SIZE`](tenon_planner::config::MAX_BATCH_SIZE).
    pub fn set_batch_size(&mut self, rows: usize) -> Result<(), Error> {
        self.apply(Config {
            batch_size: rows,
            ..self.config.clone()
        })
    }

    /// `fused_aggregate`: whether an aggregate without GROUP BY directly
    /// over an INNER hash join adds up the join's pairs as it probes
    /// (`JoinAggregate` in EXPLAIN) instead of the join's output batches.
    /// On by default; off to compare.
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    pub fn set_fused_aggregate(&mut self, on: bool) -> Result<(), Error> {
        self.apply(Config {
            fused_aggregate: on,
            ..self.config.clone()
        })
    }

    /// `runtime_filters`: whether a hash join's complete build side gives
    /// the scans below its probe side a filter over its keys. On by
    /// default; off to compare.
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    pub fn set_runtime_filters(&mut self, on: bool) -> Result<(), Error> {
        self.apply(Config {
            runtime_filters: on,
            ..self.config.clone()
        })
    }

    /// `shared_subplans`: whether an aggregate the query computes at
    /// several places (a CTE read twice) is computed once, its rows read
    /// at each place (`Shared` in EXPLAIN). On by default; off to compare.
    ///
    /// # Errors
    ///
    /// None today; a `Result` as every setting's.
    pub fn set_shared_subplans(&mut self, on: bool) -> Result<(), Error> {
        self.apply(Config {
            shared_subplans: on,
            ..self.config.clone()
        })
    }
}
