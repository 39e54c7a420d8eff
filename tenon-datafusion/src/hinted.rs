//! Hinted SQL through a `SessionContext`: tenon's SQL front end reads the
//! query and its join hints (`SELECT /*+ BROADCAST(n) */ ...`, with
//! Flink's rules: docs/hints.md) against the context's tables and decides
//! every join; DataFusion then plans the same logical plan, and the
//! hinted joins become [`TenonJoinExec`]s with the strategy and build side
//! their hints decided ([`JoinDecision`], applied by [`TenonJoinRule`]);
//! the others become tenon's joins with DataFusion's choice of strategy
//! and build side, which it makes from its files' statistics.
//!
//! DataFusion's physical planner turns the logical joins into physical
//! ones in the same order (inputs first, left before right), so the rule
//! takes the decisions in that order; a decision applies only to a join
//! with the same key columns, so a join DataFusion made on its own (a
//! subquery it decorrelates) keeps DataFusion's choice instead of taking
//! another join's decision.

use std::sync::Arc;

use datafusion::catalog::default_table_source::provider_as_source;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DataFusionError, Result};
use datafusion::dataframe::DataFrame;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::prelude::SessionContext;
use tenon_kernels::{JoinSide, Strategy};
use tenon_planner::choose::{JoinPlan, plan_joins};
use tenon_planner::config::Config;
use tenon_planner::sql::Catalog;

use crate::{BroadcastExchange, TenonJoinRule, physical_optimizer_rules};

/// What tenon decided for one join: its strategy and build side, and its
/// key columns' names (left, right) that identify the physical join it
/// belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinDecision {
    /// The strategy (for a join without a hint, what tenon's default would
    /// choose without size estimates; DataFusion's choice runs instead).
    pub strategy: Strategy,
    /// The build side (BROADCAST, SHUFFLE_HASH).
    pub build_side: Option<JoinSide>,
    /// The equi keys' column names, (left, right), unqualified.
    pub keys: Vec<(String, String)>,
    /// Why (EXPLAIN's reason: `hint BROADCAST(n) applied` or the default).
    pub reason: String,
    /// Whether a hint decided it (then it must apply: a hinted decision
    /// that finds no join is an error, a default one falls back to
    /// DataFusion's choice).
    pub hinted: bool,
}

/// `sql`, hints and all, planned by tenon's front end against `ctx`'s
/// tables, as a DataFrame whose joins run tenon's kernels: a hinted join
/// with the strategy and build side its hint decided, the others with
/// DataFusion's choice (module docs); the decisions in plan order (a join
/// without a hint is listed with the reason `no hint: ...`).
///
/// # Errors
///
/// tenon's planning errors (an unknown table, a hint that does not parse,
/// a strict-mode hint that cannot apply) as plan errors in tenon's words,
/// and the context's errors.
pub async fn hinted_sql(ctx: &SessionContext, sql: &str) -> Result<(DataFrame, Vec<JoinDecision>)> {
    hinted_sql_with(ctx, sql, TenonJoinRule::new()).await
}

/// As [`hinted_sql`], with `rule`'s settings (its broadcast exchange, the
/// strategy of the joins no decision matches) besides the decisions.
///
/// # Errors
///
/// As [`hinted_sql`].
pub async fn hinted_sql_with(
    ctx: &SessionContext,
    sql: &str,
    rule: TenonJoinRule,
) -> Result<(DataFrame, Vec<JoinDecision>)> {
    hinted_sql_configured(ctx, sql, rule, &Config::default()).await
}

/// As [`hinted_sql_with`], with tenon's settings for the decisions
/// (`hint_mode`, `broadcast_threshold`, `disabled_strategies`,
/// `join_reorder`: docs/cli.md); its execution settings (threads,
/// memory_limit, ...) are DataFusion's to set on `ctx`.
///
/// # Errors
///
/// As [`hinted_sql`].
pub async fn hinted_sql_configured(
    ctx: &SessionContext,
    sql: &str,
    rule: TenonJoinRule,
    config: &Config,
) -> Result<(DataFrame, Vec<JoinDecision>)> {
    let mut catalog = Catalog::new();
    let names = ctx
        .catalog_names()
        .into_iter()
        .filter_map(|c| ctx.catalog(&c))
        .flat_map(|c| {
            c.schema_names()
                .into_iter()
                .filter_map(move |s| c.schema(&s))
                .flat_map(|s| s.table_names())
        })
        .collect::<Vec<_>>();
    let mut providers = Vec::new();
    for name in names {
        let provider = ctx.table_provider(name.as_str()).await?;
        catalog.register_table(name.clone(), provider.schema());
        providers.push((name, provider));
    }
    let planned = plan_joins(sql, &catalog, config)
        .map_err(|e| DataFusionError::Plan(format!("tenon: {e}")))?;
    let decisions = decisions_in_plan_order(&planned);
    // the scans read the context's tables
    let plan = planned
        .query
        .plan
        .clone()
        .transform_up(|node| match node {
            LogicalPlan::TableScan(mut scan) => {
                let name = scan.table_name.table().to_string();
                let Some((_, provider)) = providers.iter().find(|(n, _)| *n == name) else {
                    return Err(DataFusionError::Plan(format!(
                        "tenon: the query reads {name}, which the context does not have"
                    )));
                };
                scan.source = provider_as_source(Arc::clone(provider));
                Ok(Transformed::yes(LogicalPlan::TableScan(scan)))
            }
            other => Ok(Transformed::no(other)),
        })?
        .data;
    // a cluster's session names its broadcast exchange (cluster module):
    // a rule without one takes it, or a broadcast would build a task's
    // share of its build side
    let rule = match ctx.state().config().get_extension::<BroadcastExchange>() {
        Some(exchange) if !rule.has_broadcast_exchange() => {
            rule.with_broadcast_exchange((*exchange).clone())
        }
        _ => rule,
    };
    // Only hints decide: a join without one keeps DataFusion's choice,
    // made from the sizes its files' metadata give (tenon's front end sees
    // only the context's schemas here, and its default without estimates
    // may build the larger side).
    let hinted = decisions.iter().filter(|d| d.hinted).cloned().collect();
    let rule = rule.with_decisions(hinted);
    let state = SessionStateBuilder::new_from_existing(ctx.state())
        .with_physical_optimizer_rules(physical_optimizer_rules(rule))
        .build();
    Ok((DataFrame::new(state, plan), decisions))
}

/// The decisions of `planned`'s joins in the order DataFusion plans them:
/// inputs first, left before right.
fn decisions_in_plan_order(planned: &JoinPlan) -> Vec<JoinDecision> {
    let mut out = Vec::new();
    post_order(&planned.query.plan, planned, &mut out);
    out
}

fn post_order(plan: &LogicalPlan, planned: &JoinPlan, out: &mut Vec<JoinDecision>) {
    for child in plan.inputs() {
        post_order(child, planned, out);
    }
    if let LogicalPlan::Join(join) = plan
        && let Some(decision) = planned.decision_of(join)
    {
        let name = |e: &Expr| match e {
            Expr::Column(c) => Some(c.name.clone()),
            _ => None,
        };
        // a key that is an expression: no physical join's keys are
        // compared with it (the decision cannot be matched, so a hinted
        // one is an error when the plan is done)
        let keys: Option<Vec<(String, String)>> = join
            .on
            .iter()
            .map(|(l, r)| Some((name(l)?, name(r)?)))
            .collect();
        let hinted = matches!(
            decision.source,
            tenon_planner::hints::DecisionSource::Hint(_)
        );
        if keys.is_some() || hinted {
            out.push(JoinDecision {
                strategy: decision.strategy,
                build_side: decision.build_side,
                keys: keys.unwrap_or_else(|| vec![("(expression)".into(), "(expression)".into())]),
                reason: if hinted {
                    decision.reason.clone()
                } else {
                    "no hint: DataFusion's choice, from its statistics".to_string()
                },
                hinted,
            });
        }
    }
}
