//! The built-in TPC-H tables of `tenon bench --query`, as `tenon query`
//! has them: without `--table` and `--memory-table`, the eight TPC-H
//! tables are generated in memory (at `--scale`, default
//! [`BUILTIN_TPCH_SCALE`]) when the queries or `-f` read one of them that
//! they do not declare, so that `tenon bench --query tests/tpch/queries`
//! runs as it is. A table declared with `CREATE TABLE` (in `-f` or a query
//! file) replaces the built-in one of its name.

use crate::cli::query::{TPCH_TABLES, declared_tables};

/// The scale of the built-in TPC-H tables without `--scale` (that of
/// `tenon query`'s).
pub(super) const BUILTIN_TPCH_SCALE: f64 = 0.01;

/// The built-in tables `texts` (the `-f` script and the query files) need:
/// `None` when they name no TPC-H table they do not declare, else the
/// TPC-H tables they do not declare (to keep of the eight generated).
pub(super) fn builtin_tpch_needed(texts: &[String]) -> Option<Vec<&'static str>> {
    let declared: Vec<String> = texts.iter().flat_map(|t| declared_tables(t)).collect();
    let kept: Vec<&'static str> = TPCH_TABLES
        .into_iter()
        .filter(|t| !declared.iter().any(|d| d.eq_ignore_ascii_case(t)))
        .collect();
    let named = texts.iter().any(|text| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| kept.iter().any(|t| word.eq_ignore_ascii_case(t)))
    });
    named.then_some(kept)
}

/// The eight TPC-H table names.
pub(super) fn tpch_tables() -> &'static [&'static str] {
    &TPCH_TABLES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_only_for_tpch_tables_not_declared() {
        let q = |s: &str| vec![s.to_string()];
        assert_eq!(builtin_tpch_needed(&q("SELECT * FROM a JOIN b")), None);
        assert_eq!(
            builtin_tpch_needed(&q("SELECT * FROM Nation")).map(|k| k.len()),
            Some(8)
        );
        let own = q(
            "CREATE TABLE orders (k INT) WITH ('connector' = 'filesystem', \
                     'path' = 'o.csv', 'format' = 'csv'); SELECT * FROM orders",
        );
        assert_eq!(builtin_tpch_needed(&own), None);
        let mixed = vec![own[0].clone(), "select * from lineitem".to_string()];
        let kept = builtin_tpch_needed(&mixed).unwrap();
        assert!(kept.contains(&"lineitem") && !kept.contains(&"orders"));
        // part of a longer name is not a mention
        assert_eq!(
            builtin_tpch_needed(&q("SELECT parts FROM my_nation_x")),
            None
        );
    }
}
