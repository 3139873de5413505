//! Edits of a settings file's text that keep the rest of it as written:
//! a member set in an object, an element appended to an array, found by
//! their byte spans (serde_json's borrowed `RawValue`s). Every edit is
//! checked against the same edit on the parsed value; when the text edit
//! does not give that value the whole document is written out again.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::ops::Range;

/// The members of a JSON object, in the order written, with the byte span
/// of each value inside the text that was parsed.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The elements of a JSON array with their spans.
struct Elements<'a>(Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for Elements<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Elements<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = s.next_element::<&'de RawValue>()? {
                    out.push(v);
                }
                Ok(Elements(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The span of `inner` inside `outer` (a slice of it).
fn span_in(outer: &str, inner: &str) -> Range<usize> {
    let start = (inner.as_ptr() as usize).saturating_sub(outer.as_ptr() as usize);
    start..start + inner.len()
}

/// Where a path's value is in a text.
enum Found {
    /// The value's span.
    At(Range<usize>),
    /// The path stops at `depth`: the span of the deepest object found.
    Missing { object: Range<usize>, depth: usize },
}

/// Where the value at `path` (object keys) is in `text`; None when the
/// text does not read as objects along the path.
fn find(text: &str, path: &[&str]) -> Option<Found> {
    let trimmed = text.trim();
    let mut span = span_in(text, trimmed);
    for (depth, key) in path.iter().enumerate() {
        let obj = &text[span.clone()];
        let Members(members) = serde_json::from_str::<Members>(obj).ok()?;
        match members.iter().rev().find(|(k, _)| k == key) {
            Some((_, v)) => {
                let inner = span_in(obj, v.get());
                span = span.start + inner.start..span.start + inner.end;
            }
            None => return Some(Found::Missing { object: span, depth }),
        }
    }
    Some(Found::At(span))
}

/// `value` as pretty JSON whose later lines are indented by `indent`.
fn pretty_at(value: &Value, indent: &str) -> Option<String> {
    let s = serde_json::to_string_pretty(value).ok()?;
    Some(s.replace('\n', &format!("\n{indent}")))
}

/// The indent of the line `pos` is on.
fn line_indent(text: &str, pos: usize) -> String {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// Inserts `"key": value` as the first member of the object at `span`.
fn insert_member(text: &str, span: Range<usize>, key: &str, value: &Value) -> Option<String> {
    let obj = &text[span.clone()];
    let open = span.start + obj.find('{')? + 1;
    let empty = text[open..span.end].trim_start().starts_with('}');
    let outer = line_indent(text, span.start);
    let indent = format!("{outer}  ");
    let key = serde_json::to_string(key).ok()?;
    let value = pretty_at(value, &indent)?;
    let (head, rest) = text.split_at(open);
    Some(if empty {
        let rest = rest.trim_start();
        format!("{head}\n{indent}{key}: {value}\n{outer}{rest}")
    } else {
        format!("{head}\n{indent}{key}: {value},{rest}")
    })
}

/// Sets `path` to `value` in the parsed document (objects created on the way).
fn set_in(doc: &mut Map<String, Value>, path: &[&str], value: Value) -> bool {
    let Some((last, parents)) = path.split_last() else { return false };
    let mut cur = doc;
    for key in parents {
        let slot = cur.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        match slot {
            Value::Object(m) => cur = m,
            _ => return false,
        }
    }
    cur.insert(last.to_string(), value);
    true
}

/// The value to insert at `path[depth]` for `value` at `path`'s end.
fn nested(path: &[&str], value: Value) -> Value {
    path.iter().rev().fold(value, |v, k| {
        let mut m = Map::new();
        m.insert(k.to_string(), v);
        Value::Object(m)
    })
}

/// A document that does not read as an object.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NotObject;

/// The parsed document (`{}` for blank text).
pub(super) fn parse(text: &str) -> Result<Map<String, Value>, NotObject> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(NotObject),
    }
}

fn render(doc: &Map<String, Value>) -> String {
    let v = Value::Object(doc.clone());
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into()))
}

/// `text` with the value at `path` set to `value`: the value replaced in
/// place, or inserted into the deepest object on the path.
pub(super) fn set(text: &str, path: &[&str], value: &Value) -> Result<String, NotObject> {
    let mut doc = parse(text)?;
    if !set_in(&mut doc, path, value.clone()) {
        return Err(NotObject);
    }
    let base = if text.trim().is_empty() { "{}\n" } else { text };
    let edited = match find(base, path) {
        Some(Found::At(span)) => {
            let indent = line_indent(base, span.start);
            pretty_at(value, &indent).map(|v| format!("{}{v}{}", &base[..span.start], &base[span.end..]))
        }
        Some(Found::Missing { object, depth }) => {
            let inner = nested(&path[depth + 1..], value.clone());
            insert_member(base, object, path[depth], &inner)
        }
        None => None,
    };
    Ok(checked(edited, &doc))
}

/// `text` with `value` appended to the array at `path` (created when missing).
pub(super) fn push(text: &str, path: &[&str], value: &Value) -> Result<String, NotObject> {
    let doc = parse(text)?;
    let root = Value::Object(doc.clone());
    let current = path.iter().try_fold(&root, |v, k| v.get(k));
    let array = match current {
        None => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return Err(NotObject),
    };
    if array.is_empty() {
        return set(text, path, &Value::Array(vec![value.clone()]));
    }
    let mut expected = doc;
    let mut grown = array;
    grown.push(value.clone());
    set_in(&mut expected, path, Value::Array(grown));
    let edited = match find(text, path) {
        Some(Found::At(span)) => append_element(text, span, value),
        _ => None,
    };
    Ok(checked(edited, &expected))
}

fn append_element(text: &str, span: Range<usize>, value: &Value) -> Option<String> {
    let arr = &text[span.clone()];
    let Elements(elems) = serde_json::from_str::<Elements>(arr).ok()?;
    let last = elems.last()?;
    let end = span.start + span_in(arr, last.get()).end;
    let indent = line_indent(text, span.start + span_in(arr, last.get()).start);
    let value = pretty_at(value, &indent)?;
    Some(format!("{},\n{indent}{value}{}", &text[..end], &text[end..]))
}

/// The edited text when it parses to `expected`, else `expected` written out.
fn checked(edited: Option<String>, expected: &Map<String, Value>) -> String {
    match edited {
        Some(t) if parse(&t).as_ref() == Ok(expected) => t,
        _ => render(expected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_new_member_goes_first_and_the_rest_is_kept() {
        let text = "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n";
        let out = set(text, &["statusLine"], &json!({"type": "command"})).unwrap();
        assert!(out.ends_with("\"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n"), "{out}");
        assert_eq!(parse(&out).unwrap()["statusLine"]["type"], "command");
    }

    #[test]
    fn a_whitespace_only_file_is_an_empty_object() {
        let out = set("  \n\t", &["statusLine"], &json!({"type": "command"})).unwrap();
        assert_eq!(Value::Object(parse(&out).unwrap()), json!({"statusLine": {"type": "command"}}));
        assert_eq!(parse(" \n"), Ok(Map::new()));
        assert_eq!(parse("[1]"), Err(NotObject));
    }

    #[test]
    fn a_value_is_replaced_in_place() {
        let text = "{\"a\": 1, \"statusLine\": {\"command\": \"x\"}, \"z\": [1,2]}";
        let out = set(text, &["statusLine"], &json!({"command": "y"})).unwrap();
        assert!(out.starts_with("{\"a\": 1, \"statusLine\": {"), "{out}");
        assert!(out.ends_with(", \"z\": [1,2]}"), "{out}");
        assert_eq!(parse(&out).unwrap()["statusLine"]["command"], "y");
    }

    #[test]
    fn nested_members_and_arrays_are_created_or_appended() {
        let text = "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": []}]\n  },\n  \"model\": \"opus\"\n}\n";
        let out = push(text, &["hooks", "SessionStart"], &json!({"matcher": "resume"})).unwrap();
        let v = parse(&out).unwrap();
        assert_eq!(v["hooks"]["Stop"], json!([{"hooks": []}]));
        assert_eq!(v["hooks"]["SessionStart"], json!([{"matcher": "resume"}]));
        let out = push(&out, &["hooks", "SessionStart"], &json!({"matcher": "fork"})).unwrap();
        let v = parse(&out).unwrap();
        assert_eq!(v["hooks"]["SessionStart"], json!([{"matcher": "resume"}, {"matcher": "fork"}]));
        assert!(out.contains("\"Stop\": [{\"hooks\": []}]"), "untouched text stays as written: {out}");
        let out = push("{}", &["hooks", "SessionEnd"], &json!(1)).unwrap();
        assert_eq!(Value::Object(parse(&out).unwrap()), json!({"hooks": {"SessionEnd": [1]}}));
        assert_eq!(push("{\"hooks\": 3}", &["hooks", "X"], &json!(1)), Err(NotObject));
    }
}
