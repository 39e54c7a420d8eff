//! `tenon bench --svg`: the strategies side by side per workload.
//!
//! One panel per workload; in each, one bar per strategy, its height the
//! strategy's median time relative to the slowest one of that workload (so
//! workloads of very different sizes share one chart), its label the median
//! in milliseconds. The planner's default choice has a thick black outline
//! and a `default` mark; the choice under the workload's hint a `hint` mark.
//! Plain SVG 1.1, no scripts or external resources.

use std::fmt::Write as _;

use super::report::BenchReport;

const PANEL_W: f64 = 230.0;
const PLOT_H: f64 = 200.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 70.0;

/// A fill colour per strategy name (stable across charts).
fn colour(strategy: &str) -> &'static str {
    match strategy {
        "BROADCAST" => "#4e79a7",
        "SHUFFLE_HASH" => "#f28e2b",
        "SHUFFLE_MERGE" => "#59a14f",
        "NEST_LOOP" => "#b07aa1",
        _ => "#9c9c9c",
    }
}

/// Escapes text for XML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart of `report` as an SVG document.
pub fn chart(report: &BenchReport) -> String {
    let n = report.workloads.len().max(1);
    let width = PANEL_W * n as f64 + 40.0;
    let height = TOP + PLOT_H + BOTTOM + 30.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let s = &report.settings;
    let _ = writeln!(
        out,
        r#"<text x="20" y="20" font-size="14" font-weight="bold">tenon bench: median time per strategy (bar height relative to the workload's slowest)</text>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="20" y="38">threads={} runs={} scale={} seed={} batch_size={} — thick outline: planner's default choice; "hint": choice under the workload's hint</text>"#,
        s.threads, s.runs, s.scale, s.seed, s.batch_size
    );
    for (i, w) in report.workloads.iter().enumerate() {
        let x0 = 20.0 + PANEL_W * i as f64;
        let slowest = w
            .strategies
            .iter()
            .map(|t| t.median_s())
            .fold(0.0, f64::max);
        let base_y = TOP + PLOT_H;
        let _ = writeln!(
            out,
            r##"<line x1="{x0}" y1="{base_y}" x2="{}" y2="{base_y}" stroke="#333"/>"##,
            x0 + PANEL_W - 20.0
        );
        let k = w.strategies.len().max(1) as f64;
        let bar_w = ((PANEL_W - 40.0) / k).min(50.0);
        for (j, t) in w.strategies.iter().enumerate() {
            let median = t.median_s();
            let h = if slowest > 0.0 {
                (median / slowest * PLOT_H).max(1.0)
            } else {
                1.0
            };
            let x = x0 + 10.0 + j as f64 * (bar_w + 4.0);
            let y = base_y - h;
            let is_default = t.strategy == w.default.strategy;
            let stroke = if is_default {
                r##" stroke="#000" stroke-width="3""##
            } else {
                ""
            };
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{bar_w:.1}" height="{h:.1}" fill="{}"{stroke}><title>{} {}: median {:.4} s</title></rect>"#,
                colour(&t.strategy),
                esc(&w.workload),
                esc(&t.strategy),
                median
            );
            let cx = x + bar_w / 2.0;
            let _ = writeln!(
                out,
                r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle">{:.1} ms</text>"#,
                y - 4.0,
                median * 1e3
            );
            let mut marks = Vec::new();
            if is_default {
                marks.push("default");
            }
            if t.strategy == w.hinted.strategy {
                marks.push("hint");
            }
            if !marks.is_empty() {
                let _ = writeln!(
                    out,
                    r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
                    y - 16.0,
                    marks.join("+")
                );
            }
            let label: String = t.strategy.replace("SHUFFLE_", "S_");
            let _ = writeln!(
                out,
                r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="9">{}</text>"#,
                base_y + 14.0,
                esc(&label)
            );
        }
        let regret = w
            .regret(&w.default)
            .map_or_else(|| "n/a".to_string(), |r| format!("{r:.2}"));
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
            x0 + (PANEL_W - 20.0) / 2.0,
            base_y + 34.0,
            esc(&w.workload)
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">default regret {regret}</text>"#,
            x0 + (PANEL_W - 20.0) / 2.0,
            base_y + 50.0
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::tests::sample;

    /// Tags open and close in order, attributes are quoted, and no text
    /// holds a raw `<` or `&`: well-formed XML for this subset.
    fn well_formed(svg: &str) -> Result<(), String> {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let text = &rest[..start];
            let bad_amp = text.match_indices('&').any(|(at, _)| {
                !["&amp;", "&lt;", "&gt;", "&quot;"]
                    .iter()
                    .any(|e| text[at..].starts_with(e))
            });
            if text.contains('>') || bad_amp {
                return Err(format!("bad text {text:?}"));
            }
            let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
            let tag = &rest[start + 1..end];
            if !tag.matches('"').count().is_multiple_of(2) {
                return Err(format!("unbalanced quotes in <{tag}>"));
            }
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
                if open != name {
                    return Err(format!("</{name}> closes <{open}>"));
                }
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap_or("").to_string();
                stack.push(name);
            }
            rest = &rest[end + 1..];
        }
        if stack.is_empty() {
            Ok(())
        } else {
            Err(format!("unclosed {stack:?}"))
        }
    }

    #[test]
    fn the_chart_is_well_formed_and_marks_the_choices() {
        let mut r = sample();
        r.workloads[0].workload = "a<b&c".into();
        let svg = chart(&r);
        well_formed(&svg).unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(svg.matches("<rect").count(), 2);
        assert!(svg.contains("a&lt;b&amp;c"));
        assert!(svg.contains(">default<") && svg.contains(">hint<"), "{svg}");
        assert!(svg.contains("stroke-width=\"3\""));
        assert!(well_formed("<svg><text>a</svg>").is_err());
    }
}
