//! tenon's join kernels inside DataFusion: [`TenonJoinExec`] runs one of
//! tenon's kernels as a DataFusion `ExecutionPlan`, stating the input
//! distribution its strategy needs (a broadcast's build side as one
//! partition, shuffled joins co-partitioned on their keys), and
//! [`TenonJoinRule`], a physical optimizer rule placed before DataFusion's
//! `EnsureRequirements`, puts it in place of DataFusion's joins.
//! [`session_state`] gives a `SessionContext` user both in one call.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! use datafusion::prelude::{SessionConfig, SessionContext};
//! use tenon_datafusion::{TenonJoinRule, session_state};
//!
//! let ctx = SessionContext::new_with_state(session_state(
//!     SessionConfig::new().with_target_partitions(2),
//!     TenonJoinRule::new(),
//! ));
//! ctx.sql("CREATE TABLE a (k INT, v TEXT) AS VALUES (1, 'x'), (2, 'y')").await?;
//! ctx.sql("CREATE TABLE b (k INT, w TEXT) AS VALUES (2, 'z'), (3, 'q')").await?;
//! let df = ctx.sql("SELECT a.v, b.w FROM a JOIN b ON a.k = b.k").await?;
//! let plan = datafusion::physical_plan::displayable(df.clone().create_physical_plan().await?.as_ref())
//!     .indent(false)
//!     .to_string();
//! assert!(plan.contains("TenonJoinExec"), "{plan}");
//! let rows: usize = df.collect().await?.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 1);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

#[cfg(feature = "cluster")]
pub mod cluster;
mod codec;
mod exec;
mod filter;
mod hinted;
mod rule;

use std::sync::Arc;

use datafusion::execution::SessionStateBuilder;
use datafusion::execution::session_state::SessionState;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::prelude::SessionConfig;

pub use codec::{TENON_VERSION, TenonCodec};
/// The DataFusion this crate builds on (its types are in this crate's API).
pub use datafusion;
/// The distributed engine of the `cluster` feature.
#[cfg(feature = "cluster")]
pub use datafusion_distributed;
pub use exec::{TenonJoinExec, broadcast_side, kernel_join_type};
pub use filter::DataFusionFilter;
pub use hinted::{JoinDecision, hinted_sql, hinted_sql_configured, hinted_sql_with};
pub use rule::{BroadcastExchange, TenonJoinRule, WrapPlan};

/// The name of DataFusion's rule that gives every operator the input
/// distribution and ordering it asks for; tenon's rule goes right before
/// it.
const ENSURE_REQUIREMENTS: &str = "EnsureRequirements";

/// The name of DataFusion's rule that chooses each hash join's mode and
/// build side from statistics (and may swap its inputs); tenon's
/// decisions are applied before it.
const JOIN_SELECTION: &str = "join_selection";

/// DataFusion's physical optimizer rules with `rule` inserted right before
/// `EnsureRequirements` (after `JoinSelection`; not appended after the
/// final sanity check, where `SessionStateBuilder::with_physical_optimizer_rule`
/// would put it); a rule with tenon's decisions
/// ([`TenonJoinRule::with_decisions`]) also goes before `JoinSelection`.
pub fn physical_optimizer_rules(
    rule: TenonJoinRule,
) -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let mut rules = PhysicalOptimizer::new().rules;
    let position = |rules: &[Arc<dyn PhysicalOptimizerRule + Send + Sync>], name: &str| {
        rules.iter().position(|r| r.name() == name).unwrap_or(0)
    };
    if !rule.decisions().is_empty() {
        // tenon's decisions before DataFusion's own choice (which would
        // swap inputs), the default for the other joins after it
        let at = position(&rules, JOIN_SELECTION);
        rules.insert(at, Arc::new(rule.clone()));
    }
    let at = position(&rules, ENSURE_REQUIREMENTS);
    rules.insert(at, Arc::new(rule.without_decisions()));
    rules
}

/// A DataFusion session state with `config`, DataFusion's default
/// features, and tenon's joins ([`physical_optimizer_rules`]).
pub fn session_state(config: SessionConfig, rule: TenonJoinRule) -> SessionState {
    SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_physical_optimizer_rules(physical_optimizer_rules(rule))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules tenon's is placed by are in DataFusion's list (a rename in
    /// a DataFusion upgrade would otherwise put tenon's rule first).
    #[test]
    fn the_rules_tenons_is_placed_by_exist() {
        let names: Vec<String> = PhysicalOptimizer::new()
            .rules
            .iter()
            .map(|r| r.name().to_string())
            .collect();
        for name in [ENSURE_REQUIREMENTS, JOIN_SELECTION] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        let rule = TenonJoinRule::new().with_decisions(vec![JoinDecision {
            strategy: tenon_kernels::Strategy::Broadcast,
            build_side: None,
            keys: vec![],
            reason: String::new(),
            hinted: false,
        }]);
        let placed: Vec<String> = physical_optimizer_rules(rule)
            .iter()
            .map(|r| r.name().to_string())
            .collect();
        let at = |n: &str| placed.iter().position(|p| p == n).unwrap();
        assert_eq!(at("TenonJoinDecisions"), at(JOIN_SELECTION) - 1);
        assert_eq!(at("TenonJoins"), at(ENSURE_REQUIREMENTS) - 1);
    }
}
