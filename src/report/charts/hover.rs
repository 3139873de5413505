//! The value on hover: plotters draws the marks, and each bar or point
//! gets a transparent rectangle over it with an SVG `<title>` holding its
//! value in words (what a browser shows as a tooltip, and what a screen
//! reader reads). The rectangles are collected in backend pixels while a
//! chart is drawn and appended to its SVG last, so they sit on top.

use std::fmt::Write;

/// One hover area: its corners in pixels and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    pub from: (i32, i32),
    pub to: (i32, i32),
    pub title: String,
}

/// Escapes text for SVG content.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `svg` with a group of hover areas inserted before its closing tag.
pub fn append(svg: String, hovers: &[Hover]) -> String {
    if hovers.is_empty() {
        return svg;
    }
    let Some(end) = svg.rfind("</svg>") else { return svg };
    let mut g = String::from("<g class=\"hover\">\n");
    for h in hovers {
        let (x0, x1) = (h.from.0.min(h.to.0), h.from.0.max(h.to.0));
        let (y0, y1) = (h.from.1.min(h.to.1), h.from.1.max(h.to.1));
        let _ = writeln!(
            g,
            "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"#000000\" fill-opacity=\"0\"><title>{}</title></rect>",
            (x1 - x0).max(2),
            (y1 - y0).max(2),
            escape(&h.title)
        );
    }
    g.push_str("</g>\n");
    let mut out = svg;
    out.insert_str(end, &g);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_escaped_and_inside_the_svg() {
        let svg = "<svg>\n<rect/>\n</svg>\n".to_owned();
        let h = Hover { from: (10, 50), to: (20, 5), title: "a <b> & \"c\"".into() };
        let out = append(svg, &[h]);
        assert!(out.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"), "{out}");
        assert!(out.contains("x=\"10\" y=\"5\" width=\"10\" height=\"45\""), "{out}");
        assert!(out.trim_end().ends_with("</svg>"));
    }
}
