//! Messages in tenon's words: the error-kind prefixes that Arrow, Parquet
//! and DataFusion put on their messages (`Cast error: `, `Io error: `,
//! `Execution error: `...) are theirs, not tenon's. Every place where a
//! dependency's error text reaches a tenon message passes it through
//! [`without_dependency_prefixes`]; this is the one list of them.

/// The prefixes Arrow's, Parquet's and DataFusion's error types put
/// before their messages.
pub const DEPENDENCY_PREFIXES: [&str; 23] = [
    "Error during planning: ",
    "Internal error: ",
    "Execution error: ",
    "This feature is not implemented: ",
    "Schema error: ",
    "Arrow error: ",
    "Cast error: ",
    "Io error: ",
    "IO error: ",
    "Csv error: ",
    "Json error: ",
    "Parser error: ",
    "Compute error: ",
    "Invalid argument error: ",
    "External error: ",
    "Parquet error: ",
    "Parquet argument error: ",
    "Ipc error: ",
    "Not yet implemented: ",
    "Memory error: ",
    "Avro error: ",
    "Object Store error: ",
    "External: ",
];

/// `text` without any of the [`DEPENDENCY_PREFIXES`], wherever they stand
/// (a dependency's error nested in another's repeats them).
pub fn without_dependency_prefixes(text: &str) -> String {
    let mut text = text.to_string();
    for prefix in DEPENDENCY_PREFIXES {
        if text.contains(prefix) {
            text = text.replace(prefix, "");
        }
    }
    text
}

/// The dependency prefix `text` contains, if any (for tests that check
/// messages).
pub fn dependency_prefix(text: &str) -> Option<&'static str> {
    DEPENDENCY_PREFIXES
        .iter()
        .copied()
        .find(|p| text.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_prefixes_removed() {
        assert_eq!(
            without_dependency_prefixes(
                "reading x: External error: Arrow error: Cast error: bad value"
            ),
            "reading x: bad value"
        );
        assert_eq!(dependency_prefix("Io error: gone"), Some("Io error: "));
        assert_eq!(dependency_prefix("all fine: here"), None);
    }
}
