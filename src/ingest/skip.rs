//! A fast way past message content. The parser never needs `content` (the
//! text, tool calls and thinking of a message), but skipping it byte by byte
//! inside serde was most of the parse. `content_span` finds the first
//! `"content"` value with memchr over strings instead, so the parser can
//! deserialize the line without it. Anything unexpected gives `None`, and
//! the line is parsed whole.

use memchr::memchr;
use memchr::memmem::Finder;
use std::sync::OnceLock;

/// Content shorter than this is left to serde.
pub(super) const MIN_SPAN: usize = 256;

/// The byte range of the value of the first `"content"` key, when it is a
/// string, array or object. No key inside a JSON string can match: its
/// quotes would be escaped.
pub(super) fn content_span(line: &[u8]) -> Option<(usize, usize)> {
    const KEY: &[u8] = b"\"content\"";
    // Built once: a searcher's set-up costs as much as a short search.
    static FINDER: OnceLock<Finder<'static>> = OnceLock::new();
    let mut i = FINDER.get_or_init(|| Finder::new(KEY)).find(line)? + KEY.len();
    i = skip_ws(line, i);
    if *line.get(i)? != b':' {
        return None;
    }
    let start = skip_ws(line, i + 1);
    let end = match *line.get(start)? {
        b'"' => string_end(line, start)?,
        b'[' | b'{' => container_end(line, start)?,
        _ => return None,
    };
    Some((start, end))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// Just past the string whose opening quote is at `start`. Only quotes
/// stop the search (content is full of `\n`): a quote is escaped when an
/// odd number of backslashes precede it.
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        let j = i + memchr(b'"', b.get(i..)?)?;
        let slashes = b[i..j].iter().rev().take_while(|&&c| c == b'\\').count();
        if slashes % 2 == 0 {
            return Some(j + 1);
        }
        i = j + 1;
    }
}

/// Just past the array or object opened at `start`: brackets are counted
/// between strings, which are skipped whole.
fn container_end(b: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    loop {
        let quote = memchr(b'"', b.get(i..)?).map_or(b.len(), |k| i + k);
        for (k, c) in b[i..quote].iter().enumerate() {
            match c {
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + k + 1);
                    }
                }
                _ => {}
            }
        }
        if quote == b.len() {
            return None;
        }
        i = string_end(b, quote)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn span_text(line: &str) -> Option<&str> {
        content_span(line.as_bytes()).map(|(a, b)| &line[a..b])
    }

    #[test]
    fn finds_the_content_value_of_each_shape() {
        let l = r#"{"message":{"id":"m","content":[{"type":"text","text":"a \"quoted\" ] } [ {"}],"usage":{}}}"#;
        assert_eq!(span_text(l), Some(r#"[{"type":"text","text":"a \"quoted\" ] } [ {"}]"#));
        assert_eq!(span_text(r#"{"content" : "x\\", "y":1}"#), Some(r#""x\\""#));
        assert_eq!(span_text(r#"{"content":"a\\\"b\\\\","k":1}"#), Some(r#""a\\\"b\\\\""#));
        assert_eq!(span_text(r#"{"content":{"a":[1,{"b":"}"}]},"k":2}"#), Some(r#"{"a":[1,{"b":"}"}]}"#));
        assert_eq!(span_text(r#"{"content":12}"#), None, "scalars are left to serde");
        assert_eq!(span_text(r#"{"text":"\"content\":[1]"}"#), None, "a key inside a string does not count");
        assert_eq!(span_text(r#"{"content":["unclosed"#), None);
    }

    proptest! {
        /// Whatever JSON the content holds, the span is exactly that value.
        #[test]
        fn the_span_is_the_value_serde_reads(value in json_value(), pad in "[ \t]{0,2}") {
            let text = serde_json::to_string(&value).unwrap();
            let line = format!(r#"{{"type":"assistant","message":{{"content":{pad}{text}{pad},"usage":{{"output_tokens":1}}}}}}"#);
            if matches!(value, serde_json::Value::String(_) | serde_json::Value::Array(_) | serde_json::Value::Object(_)) {
                prop_assert_eq!(span_text(&line), Some(text.as_str()));
            }
        }
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "[\\PC\"\\\\{}\\[\\]]{0,12}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-z\"\\[\\]]{1,6}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
