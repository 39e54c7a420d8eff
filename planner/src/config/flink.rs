//! Flink's configuration names for tenon's settings: the one table of
//! aliases ([`ALIASES`]), the translation of Flink's values where they
//! differ from tenon's (`-1` for "not set", Flink's operator names), and
//! the suggestions for an unknown key.

use tenon_kernels::Strategy;

/// Flink's configuration keys and the tenon setting each one sets. Both
/// names are accepted by `Config::set` (and `SET 'key' = 'value'`);
/// listings and errors show tenon's name.
pub const ALIASES: [(&str, &str); 10] = [
    (
        "table.optimizer.join.broadcast-threshold",
        "broadcast_threshold",
    ),
    ("table.optimizer.join-reorder-enabled", "join_reorder"),
    ("table.exec.disabled-operators", "disabled_strategies"),
    (
        "table.exec.async-lookup.buffer-capacity",
        "lookup.async.capacity",
    ),
    ("table.exec.async-lookup.timeout", "lookup.async.timeout"),
    (
        "table.exec.async-lookup.output-mode",
        "lookup.async.output-mode",
    ),
    ("table.exec.state.ttl", "state_ttl"),
    ("execution.runtime-mode", "runtime_mode"),
    ("parallelism.default", "threads"),
    ("table.exec.resource.default-parallelism", "threads"),
];

/// The tenon key a Flink key stands for (`key` in lower case); `None` for
/// a key that is not one of [`ALIASES`].
pub fn canonical(key: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(flink, _)| *flink == key)
        .map(|(_, tenon)| *tenon)
}

/// Flink's value `-1` ("not set": no broadcast by size, one thread per
/// core) as tenon's `0`; any other value as given.
pub fn not_set_as_zero(value: &str) -> &str {
    if value.trim() == "-1" { "0" } else { value }
}

/// The strategies one of Flink's `table.exec.disabled-operators` names
/// disables (any case): `NestedLoopJoin`, `ShuffleHashJoin`,
/// `BroadcastHashJoin`, `SortMergeJoin`, and `HashJoin` for both hash
/// joins, as Flink reads it. `HashAgg` and `SortAgg` disable nothing:
/// tenon has one aggregate operator (`Some` of nothing). `None` for
/// another name.
pub fn operator_strategies(name: &str) -> Option<&'static [Strategy]> {
    const TABLE: [(&str, &[Strategy]); 7] = [
        ("nestedloopjoin", &[Strategy::NestLoop]),
        ("shufflehashjoin", &[Strategy::ShuffleHash]),
        ("broadcasthashjoin", &[Strategy::Broadcast]),
        ("sortmergejoin", &[Strategy::ShuffleMerge]),
        ("hashjoin", &[Strategy::Broadcast, Strategy::ShuffleHash]),
        ("hashagg", &[]),
        ("sortagg", &[]),
    ];
    let name = name.trim().to_ascii_lowercase();
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The keys, tenon's and Flink's, close to an unknown `key`: a few
/// letters apart, or one containing the other.
pub fn close_keys(key: &str, tenon_keys: &[&'static str]) -> Vec<&'static str> {
    let key = key.trim().to_ascii_lowercase();
    let close = |candidate: &str| {
        let distance = crate::sql::edit_distance(&key, candidate);
        distance <= 2.max(key.len() / 4)
            || (key.len() >= 4 && candidate.contains(key.as_str()))
            || (candidate.len() >= 4 && key.contains(candidate))
    };
    let mut out: Vec<&'static str> = Vec::new();
    for k in tenon_keys
        .iter()
        .copied()
        .chain(ALIASES.iter().map(|(flink, _)| *flink))
    {
        if close(k) && !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_names_a_tenon_key() {
        for (flink, tenon) in ALIASES {
            assert!(
                super::super::Config::KEYS.contains(&tenon),
                "{flink} -> {tenon}"
            );
        }
    }

    #[test]
    fn flink_operator_names() {
        assert_eq!(
            operator_strategies("HashJoin"),
            Some(&[Strategy::Broadcast, Strategy::ShuffleHash][..])
        );
        assert_eq!(operator_strategies("SortAgg"), Some(&[][..]));
        assert_eq!(operator_strategies("MergeJoin"), None);
    }
}
