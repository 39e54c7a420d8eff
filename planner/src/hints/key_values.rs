//! Key-value hint conflicts (docs/hints.md H25): last write within one hint,
//! first hint across hints of the same name.

use super::name::HintName;
use super::syntax::{Hint, HintArgs};

/// The options of one key-value hint, each key once with its *last* value
/// (H25: `LOOKUP('max-attempts'='3', 'max-attempts'='4')` gives `4`), in
/// the order keys first appear. Empty for a hint not in key-value form.
///
/// ```
/// use tenon_planner::hints::{hint_key_values, parse_hints, Position};
///
/// let h = parse_hints("LOOKUP('table'='D', 'max-attempts'='3', 'max-attempts'='4')",
///                     Position::new(1, 11)).unwrap();
/// assert_eq!(hint_key_values(&h[0]),
///            [("table".to_string(), "D".to_string()),
///             ("max-attempts".to_string(), "4".to_string())]);
/// ```
pub fn hint_key_values(hint: &Hint) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let HintArgs::KeyValues(kvs) = &hint.args {
        for kv in kvs {
            match out.iter_mut().find(|(k, _)| *k == kv.key) {
                Some(slot) => slot.1.clone_from(&kv.value),
                None => out.push((kv.key.clone(), kv.value.clone())),
            }
        }
    }
    out
}

/// The merged options of every hint named `name` in a block: within one
/// hint the last value of a key wins, across hints the *first* hint that
/// gives a key wins (H25, the STATE_TTL rule), in the order keys first
/// appear.
///
/// ```
/// use tenon_planner::hints::{key_values, parse_hints, HintName, Position};
///
/// let h = parse_hints("STATE_TTL('A'='1d', 'B'='2d'), STATE_TTL('C'='12h', 'A'='6h')",
///                     Position::new(1, 11)).unwrap();
/// let merged = key_values(&h, HintName::StateTtl);
/// assert_eq!(merged[0], ("A".to_string(), "1d".to_string()));
/// assert_eq!(merged.len(), 3);
/// ```
pub fn key_values(hints: &[Hint], name: HintName) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for h in hints.iter().filter(|h| h.name == name) {
        for (k, v) in hint_key_values(h) {
            if !out.iter().any(|(seen, _)| *seen == k) {
                out.push((k, v));
            }
        }
    }
    out
}
