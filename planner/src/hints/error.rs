//! The error type of hint parsing and hint resolution.

use std::fmt;

use tenon_kernels::{JoinType, Strategy};

use super::syntax::Position;

/// Everything parsing or resolving hints can fail with.
///
/// Parse errors carry the line and column (1-based, in characters, as
/// sqlparser counts them) of the problem in the original SQL text and say
/// what was expected there. Resolution errors name the hint and the tables
/// involved and say what to change. None of these is a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HintError {
    /// The hint text does not follow the hint grammar (H02, H05): a bad
    /// character, a missing `)`, an empty option, an unclosed string, list
    /// and `key = 'value'` forms mixed in one hint.
    #[error("malformed hint at {position}: {message}")]
    Syntax {
        /// Where the problem is.
        position: Position,
        /// What was found and what was expected instead.
        message: String,
    },

    /// A `/*+` comment that is never closed with `*/` (H05).
    #[error(
        "unclosed hint comment starting at {position}: expected `*/` before the end of the SQL text"
    )]
    UnclosedComment {
        /// Where the `/*+` is.
        position: Position,
    },

    /// A hint name tenon does not know (H03).
    #[error(
        "unknown hint `{name}` at {position}: the known hints are {}",
        known_list()
    )]
    UnknownHint {
        /// The name as written.
        name: String,
        /// Where the name is.
        position: Position,
    },

    /// A second hint block in one query block or after one table reference
    /// (H04).
    #[error(
        "a second hint block at {position} (the first is at {first}): only one \
         `/*+ ... */` block is allowed per query block or table reference; \
         merge them into one, e.g. `/*+ A(t1), B(t2) */`"
    )]
    MultipleHintBlocks {
        /// Where the second block starts.
        position: Position,
        /// Where the first block starts.
        first: Position,
    },

    /// A hint written where it has no meaning: a join hint after a table
    /// name, or the table hint OPTIONS after SELECT (H01, H06).
    #[error("misplaced hint `{name}` at {position}: {message}")]
    Misplaced {
        /// The hint's name.
        name: String,
        /// Where the hint is.
        position: Position,
        /// Where it belongs instead.
        message: String,
    },

    /// The SQL text around the hints could not be tokenized.
    #[error("cannot read the SQL text at {position}: {message}")]
    Tokenize {
        /// Where the tokenizer stopped.
        position: Position,
        /// The tokenizer's message.
        message: String,
    },

    /// A join hint without table arguments, in `key = 'value'` form, or
    /// with an argument that is not a table name (H10).
    #[error("invalid join hint `{hint}` at {position}: {message}")]
    JoinHintArguments {
        /// The hint as written (normalized).
        hint: String,
        /// Where the hint is.
        position: Position,
        /// What is wrong and what to write.
        message: String,
    },

    /// A table hint that cannot apply (H06, H40): OPTIONS without
    /// `'key' = 'value'` pairs, or written after a name that is not a table
    /// (a view, a WITH query).
    #[error("invalid table hint `{hint}` at {position}: {message}")]
    TableHint {
        /// The hint as written (normalized).
        hint: String,
        /// Where the hint is.
        position: Position,
        /// What is wrong and what to write.
        message: String,
    },

    /// A join hint names an `UNNEST` or `LATERAL TABLE` of its block
    /// (H11): those are not tables a join strategy applies to.
    #[error(
        "join hint `{hint}` names `{name}`, which is `{what}`, not a table of the query block: \
         join hints name the tables, views and aliases that joins read (H11); an expansion \
         joins each row with its own elements or function rows, with no strategy to choose"
    )]
    NotATable {
        /// The hint as written.
        hint: String,
        /// The name it gives.
        name: String,
        /// The expansion's SQL text.
        what: String,
    },

    /// Join hints name tables that are not inputs of their query block
    /// (H11).
    #[error(
        "the options of following hints cannot match the name of input tables or views: {}; \
         the tables, views and aliases in this query block are: {}",
        unknown_list(.unknown), name_list(.in_scope)
    )]
    UnknownTables {
        /// Each hint (as written) with the names it gives that are not in
        /// scope.
        unknown: Vec<(String, Vec<String>)>,
        /// The names that can be used in this query block.
        in_scope: Vec<String>,
    },

    /// A join hint names a table by its underlying name although the table
    /// has an alias in the query block (H32).
    #[error(
        "join hint `{hint}` names table `{table}`, which has the alias `{alias}` in this \
         query block: name it by its alias, e.g. `{suggestion}`"
    )]
    AliasRequired {
        /// The hint as written.
        hint: String,
        /// The table name given.
        table: String,
        /// The alias to use instead.
        alias: String,
        /// The hint rewritten with the alias.
        suggestion: String,
    },

    /// A name in a join hint that matches both inputs of one join (H11).
    #[error(
        "ambiguous table `{table}` in join hint `{hint}`: both inputs of join {join} are named \
         `{table}`; give the inputs distinct aliases and name one of them"
    )]
    AmbiguousTable {
        /// The hint as written.
        hint: String,
        /// The ambiguous name.
        table: String,
        /// The join's id.
        join: usize,
    },

    /// Every strategy that could run a join is disabled (H16).
    #[error(
        "no strategy can run join {join} ({join_type}{condition}): {candidates} disabled by \
         disabled_strategies = [{disabled}]; enable at least one of them",
        condition = if *.has_equi_condition { ", equi-join" } else { ", no equi condition" },
        candidates = strategy_list(.candidates),
        disabled = strategy_list(.disabled),
    )]
    NoStrategyAvailable {
        /// The join's id.
        join: usize,
        /// The join's type.
        join_type: JoinType,
        /// Whether the join has an equi condition.
        has_equi_condition: bool,
        /// The strategies that could run it.
        candidates: Vec<Strategy>,
        /// The disabled strategies.
        disabled: Vec<Strategy>,
    },

    /// In `hint_mode = strict`, a join hint that cannot be applied (H17).
    #[error("hint `{hint}` cannot be applied{}: {reason} (hint_mode = strict; use hint_mode = lenient to fall back to the planner's choice)",
        match .join { Some(j) => format!(" to join {j}"), None => String::new() })]
    StrictHint {
        /// The hint as written.
        hint: String,
        /// The join it was meant for, when there is one.
        join: Option<usize>,
        /// Why it cannot be applied.
        reason: String,
    },
}

fn known_list() -> String {
    super::name::HintName::ALL
        .iter()
        .map(|n| n.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn name_list(names: &[String]) -> String {
    if names.is_empty() {
        return "(none)".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_list(unknown: &[(String, Vec<String>)]) -> String {
    unknown
        .iter()
        .map(|(hint, names)| format!("{} in `{hint}`", name_list(names)))
        .collect::<Vec<_>>()
        .join("; ")
}

fn strategy_list(s: &[Strategy]) -> String {
    s.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

impl HintError {
    /// Where in the SQL text the problem is, for errors that have one
    /// place (parse errors and join-hint argument errors).
    pub fn position(&self) -> Option<Position> {
        match self {
            HintError::Syntax { position, .. }
            | HintError::UnclosedComment { position }
            | HintError::UnknownHint { position, .. }
            | HintError::MultipleHintBlocks { position, .. }
            | HintError::Misplaced { position, .. }
            | HintError::Tokenize { position, .. }
            | HintError::JoinHintArguments { position, .. }
            | HintError::TableHint { position, .. } => Some(*position),
            _ => None,
        }
    }
}
