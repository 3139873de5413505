//! What a page says: its text without markup, and the internal keys no
//! page may show.

/// Keys no page may show in its text.
pub(crate) const INTERNAL: [&str; 12] = [
    "le_5m",
    "5m_1h",
    "gt_1h",
    "ttl_5m",
    "ttl_1h",
    "full_rebuild",
    "model_switch",
    "context_edit",
    "lineage",
    "interval(s)",
    "turn(s)",
    "(floor)",
];

/// Words that do not speak to a user: the spec's shorthand, counters of
/// nothing, internal references. No page or terminal report says them.
pub(crate) const JARGON: [&str; 9] = [
    "as before",
    "rests over",
    "1 rests",
    "cheaper than one lifetime",
    "past cleanup",
    "Data version",
    "rises in use an estimate",
    "(reference",
    "advisor calls $0.00 (0)",
];

/// A page's text: its HTML without tags, comments, styles or scripts, each
/// run of white space one space.
pub(crate) fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let close = |tag: &str| rest.find(tag).map(|k| k + tag.len());
        let skip = if rest.starts_with("<script") {
            close("</script>")
        } else if rest.starts_with("<style") {
            close("</style>")
        } else if rest.starts_with("<!--") {
            close("-->")
        } else {
            rest.find('>').map(|k| k + 1)
        };
        rest = &rest[skip.unwrap_or(rest.len())..];
        out.push(' ');
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
