//! Join and table hints: the hint grammar and hint resolution
//! (docs/hints.md §1–§3).
//!
//! Three steps, each usable on its own:
//!
//! 1. [`find_hint_comments`] finds the `/*+ ... */` comments of a SQL text
//!    with sqlparser's tokenizer and tells query-block hints (after
//!    `SELECT`) from table hints (after a table name); it rejects two hint
//!    blocks in one place (H04) and unclosed hint comments (H05).
//! 2. [`parse_hints`] (or [`HintComment::parse`]) reads one block's text by
//!    the Calcite grammar (H01–H03, H05), with errors at the line and column
//!    of the problem in the SQL text.
//! 3. [`resolve_block`] takes one query block's joins, described by
//!    [`BlockJoins`] (names in scope, each join's inputs, type, condition,
//!    size estimates), and the block's hints, and decides a strategy and
//!    build side per join, with the reason and the ignored hints (H10–H24),
//!    or falls back to the default choice (H15, H16).
//!    [`key_values`] merges key-value hints (H25).
//!
//! ```
//! use tenon_planner::hints::{
//!     find_hint_comments, resolve_block, BlockInput, BlockJoins, JoinSite, ResolveConfig,
//!     SiteInput,
//! };
//! use tenon_kernels::{JoinSide, JoinType, Strategy};
//!
//! let sql = "SELECT /*+ BROADCAST(t1, t3) */ * FROM t1\n\
//!            JOIN t2 ON t1.id = t2.id\n\
//!            JOIN t3 ON t1.id = t3.id";
//! let comments = find_hint_comments(sql)?;
//! let hints = comments[0].parse()?;
//! let block = BlockJoins {
//!     inputs: ["t1", "t2", "t3"].map(BlockInput::table).to_vec(),
//!     joins: vec![
//!         JoinSite::new(0, JoinType::Inner, SiteInput::named("t1"), SiteInput::named("t2")),
//!         JoinSite::new(1, JoinType::Inner, SiteInput::subtree(), SiteInput::named("t3")),
//!     ],
//! };
//! let r = resolve_block(&block, &hints, &ResolveConfig::default())?;
//! assert_eq!((r.joins[0].strategy, r.joins[0].build_side), (Strategy::Broadcast, Some(JoinSide::Left)));
//! assert_eq!((r.joins[1].strategy, r.joins[1].build_side), (Strategy::Broadcast, Some(JoinSide::Right)));
//! # Ok::<(), tenon_planner::hints::HintError>(())
//! ```
//!
//! What the SQL planner still owns: query blocks and what is in scope in
//! each (H30, H31), the aliases of each block (H32: resolution checks them
//! once [`BlockInput::aliased`] says which they are), size estimates, and
//! the semantics of OPTIONS, MULTI_JOIN, LOOKUP and STATE_TTL (§5, §6).

mod block;
mod comments;
mod decision;
mod default_choice;
mod error;
mod key_values;
mod lexer;
mod name;
mod parse;
mod resolve;
mod syntax;

pub use block::{
    BlockInput, BlockJoins, DEFAULT_BROADCAST_THRESHOLD, HintMode, JoinSite, ResolveConfig,
    SiteInput, SizeEstimate,
};
pub use comments::{HintComment, HintPlacement, LineOffsets, find_hint_comments};
pub use decision::{BlockResolution, DecisionSource, IgnoreReason, IgnoredHint, JoinDecision};
pub(crate) use decision::{fmt_bytes, side_label};
pub use error::HintError;
pub use key_values::{hint_key_values, key_values};
pub use name::HintName;
pub use parse::parse_hints;
pub(crate) use resolve::check_names_in_scope;
pub use resolve::resolve_block;
pub use syntax::{Hint, HintArgs, HintOption, KeyValue, OptionValue, Position};
