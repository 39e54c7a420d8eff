//! The decisions as EXPLAIN prints them: one line per join for people
//! (`Display`), docs/cli.md's `{"joins": [...]}` object for machines
//! (`to_json`).
//!
//! The JSON is written key by key in docs/cli.md's order, with `", "` and
//! `": "` between items (the form docs/cli.md shows); strings are escaped by
//! serde_json.

use std::fmt;

use super::{JoinPlan, PlannedJoin};
use crate::hints::SizeEstimate;
use crate::hints::fmt_bytes;
use tenon_kernels::JoinSide;

/// A JSON string literal.
fn json_string(out: &mut String, s: &str) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

/// A JSON string literal, or `null`.
fn json_opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => json_string(out, s),
        None => out.push_str("null"),
    }
}

/// A JSON array of the items `item` writes, `", "` between them.
fn json_list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item(out, x);
    }
    out.push(']');
}

impl PlannedJoin {
    /// The join as one JSON object of docs/cli.md's `joins` list.
    pub fn to_json(&self) -> String {
        let mut o = String::new();
        o.push_str("{\"strategy\": ");
        json_string(
            &mut o,
            if self.multi_join.is_some() {
                "MULTI_JOIN"
            } else if self.lookup.is_some() {
                "LOOKUP"
            } else {
                self.strategy.name()
            },
        );
        o.push_str(", \"join_type\": ");
        json_string(&mut o, &self.join_type.to_string());
        o.push_str(", \"build\": ");
        json_opt(&mut o, self.build.as_deref());
        o.push_str(", \"left\": ");
        json_opt(&mut o, self.left.as_deref());
        o.push_str(", \"right\": ");
        json_opt(&mut o, self.right.as_deref());
        o.push_str(", \"keys\": ");
        json_list(&mut o, &self.keys, |o, k| json_string(o, k));
        if let Some(t) = &self.time_join {
            o.push_str(", \"time_join\": ");
            json_string(&mut o, t);
        }
        if let Some(m) = &self.multi_join {
            o.push_str(", \"multi_join\": ");
            json_string(&mut o, m);
        }
        if let Some(l) = &self.lookup {
            o.push_str(", \"lookup\": ");
            json_string(&mut o, &l.describe());
        }
        o.push_str(", \"reason\": ");
        json_string(&mut o, &self.reason);
        o.push_str(", \"estimates\": {");
        let e = &self.estimates;
        for (i, (key, size)) in [("left", e.left), ("right", e.right), ("output", e.output)]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                o.push_str(", ");
            }
            o.push_str(&format!("\"{key}\": "));
            match size {
                Some(s) => o.push_str(&format!("{{\"rows\": {}, \"bytes\": {}}}", s.rows, s.bytes)),
                None => o.push_str("null"),
            }
        }
        o.push('}');
        o.push_str(", \"ignored_hints\": ");
        json_list(&mut o, &self.ignored_hints, |o, h| {
            o.push_str("{\"hint\": ");
            json_string(o, &h.hint);
            o.push_str(", \"why\": ");
            json_string(o, &h.reason.to_string());
            o.push('}');
        });
        o.push('}');
        o
    }
}

impl JoinPlan {
    /// docs/cli.md's `--explain --format json` object: `{"joins": [...]}`.
    pub fn to_json(&self) -> String {
        let mut o = String::from("{\"joins\": ");
        json_list(&mut o, &self.joins, |o, j| o.push_str(&j.to_json()));
        o.push('}');
        o
    }

    /// The human form of EXPLAIN (the same as `Display`).
    pub fn to_text(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for PlannedJoin {
    /// `INNER JOIN t1, t2 ON t1.id = t2.id: BROADCAST, build t1 (hint BROADCAST(t1) applied)`
    /// plus one indented line per ignored hint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "(join)".to_string());
        write!(
            f,
            "{} JOIN {}, {}",
            self.join_type,
            name(&self.left),
            name(&self.right)
        )?;
        let mut condition: Vec<String> = self.keys.clone();
        condition.extend(self.filter.clone());
        if !condition.is_empty() {
            write!(f, " ON {}", condition.join(" AND "))?;
        }
        if let Some(t) = &self.time_join {
            write!(f, " [{t}]")?;
        }
        if let Some(l) = &self.lookup {
            write!(f, ": LOOKUP ({}) ({})", l.describe(), self.reason)?;
            for h in &self.ignored_hints {
                write!(f, "\n    {h}")?;
            }
            return Ok(());
        }
        match &self.multi_join {
            Some(m) => write!(
                f,
                ": MULTI_JOIN (one multi-way join on the common key, no intermediate result: \
                 hint {m} applied)"
            )?,
            None => {
                write!(f, ": {}", self.strategy)?;
                match (&self.build, self.build_side) {
                    (Some(b), _) => write!(f, ", build {b}")?,
                    (None, Some(JoinSide::Left)) => f.write_str(", build left (join)")?,
                    (None, Some(JoinSide::Right)) => f.write_str(", build right (join)")?,
                    (None, None) => {}
                }
                write!(f, " ({})", self.reason)?;
            }
        }
        for h in &self.ignored_hints {
            write!(f, "\n    {h}")?;
        }
        let e = &self.estimates;
        if e.left.is_some() || e.right.is_some() {
            let size = |s: Option<SizeEstimate>| {
                s.map_or_else(
                    || "no estimate".to_string(),
                    |s| format!("{} rows, {}", s.rows, fmt_bytes(s.bytes)),
                )
            };
            write!(
                f,
                "\n    estimated: {} {}; {} {}; output {}",
                name(&self.left),
                size(e.left),
                name(&self.right),
                size(e.right),
                e.output
                    .map_or_else(|| "no estimate".to_string(), |s| format!("{} rows", s.rows)),
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for JoinPlan {
    /// One numbered entry per join, then the hints that matched no join.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.joins.is_empty() {
            f.write_str("no joins")?;
        }
        for (i, j) in self.joins.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "join {i} (block {}): {j}", j.block)?;
        }
        for u in &self.unused_hints {
            write!(f, "\nblock {}: {}", u.block, u.hint)?;
        }
        Ok(())
    }
}
