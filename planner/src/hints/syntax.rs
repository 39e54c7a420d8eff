//! The parsed form of a hint block (docs/hints.md H02):
//!
//! ```text
//! hint  := NAME
//!        | NAME '(' key '=' 'val' [, key '=' 'val']* ')'   -> HintArgs::KeyValues
//!        | NAME '(' opt [, opt]* ')'                       -> HintArgs::List
//! key   := identifier | 'string'
//! opt   := identifier | number | 'string'
//! ```
//!
//! Identifiers follow SQL's rules: unquoted ones are folded to lower case,
//! `"quoted"` (or `` `quoted` ``) ones keep their case.

use std::fmt;

use super::name::HintName;

/// A place in the SQL text: line and column, both 1-based, columns counted
/// in characters (as sqlparser's tokenizer counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// Line, from 1.
    pub line: u64,
    /// Column, from 1, in characters.
    pub column: u64,
}

impl Position {
    /// A position at this line and column.
    pub fn new(line: u64, column: u64) -> Self {
        Position { line, column }
    }
}

impl From<sqlparser::tokenizer::Location> for Position {
    fn from(l: sqlparser::tokenizer::Location) -> Self {
        Position::new(l.line, l.column)
    }
}

/// One hint of a hint block, such as `BROADCAST(t1, t3)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// Which hint.
    pub name: HintName,
    /// Its arguments.
    pub args: HintArgs,
    /// Where its name starts in the SQL text.
    pub position: Position,
}

/// The arguments of a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintArgs {
    /// No parentheses: `NAME`.
    None,
    /// List form: `NAME(opt, opt, ...)`.
    List(Vec<HintOption>),
    /// Key-value form: `NAME(key = 'val', ...)`, in written order
    /// (repeated keys kept; see [`key_values`](super::key_values) for H25).
    KeyValues(Vec<KeyValue>),
}

/// One option of a list-form hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintOption {
    /// The option.
    pub value: OptionValue,
    /// Where it starts in the SQL text.
    pub position: Position,
}

/// The value of a list-form option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    /// An identifier: folded to lower case unless it was quoted.
    Identifier {
        /// The name after folding.
        name: String,
        /// Whether it was written in double quotes or backquotes.
        quoted: bool,
    },
    /// A numeric literal, as written.
    Number(String),
    /// A string literal, unescaped (`''` is one quote).
    String(String),
}

/// One `key = 'value'` pair of a key-value hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The key: a string literal as written, or an identifier folded by
    /// SQL's rules.
    pub key: String,
    /// The value (always a string literal, unescaped).
    pub value: String,
    /// Where the key starts in the SQL text.
    pub position: Position,
}

impl OptionValue {
    /// The option as a name (a table, view or alias): identifiers and
    /// string literals are names, numbers are not.
    pub fn as_name(&self) -> Option<&str> {
        match self {
            OptionValue::Identifier { name, .. } | OptionValue::String(name) => Some(name),
            OptionValue::Number(_) => None,
        }
    }
}

impl Hint {
    /// The list-form options that are names (tables, views, aliases), in
    /// written order; empty for other forms.
    pub fn names(&self) -> Vec<&str> {
        match &self.args {
            HintArgs::List(opts) => opts.iter().filter_map(|o| o.value.as_name()).collect(),
            _ => Vec::new(),
        }
    }
}

fn write_ident(f: &mut fmt::Formatter<'_>, name: &str, quoted: bool) -> fmt::Result {
    let plain = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| (c.is_alphanumeric() || c == '_' || c == '$') && !c.is_uppercase());
    if quoted || !plain {
        write!(f, "\"{}\"", name.replace('"', "\"\""))
    } else {
        f.write_str(name)
    }
}

fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    write!(f, "'{}'", s.replace('\'', "''"))
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Identifier { name, quoted } => write_ident(f, name, *quoted),
            OptionValue::Number(n) => f.write_str(n),
            OptionValue::String(s) => write_string(f, s),
        }
    }
}

/// Hints print in their canonical form: upper-case name, options
/// separated by `, `, strings in single quotes, so that the printed hint
/// parses back to the same hint.
impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name.name())?;
        match &self.args {
            HintArgs::None => Ok(()),
            HintArgs::List(opts) => {
                f.write_str("(")?;
                for (i, o) in opts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", o.value)?;
                }
                f.write_str(")")
            }
            HintArgs::KeyValues(kvs) => {
                f.write_str("(")?;
                for (i, kv) in kvs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_string(f, &kv.key)?;
                    f.write_str("=")?;
                    write_string(f, &kv.value)?;
                }
                f.write_str(")")
            }
        }
    }
}
