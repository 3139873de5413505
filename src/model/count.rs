//! Counts in words: `1,234,567` (thousands separated) and `1 turn`, `2
//! turns` (the noun's number follows the count). The one owner of both;
//! `report::render::thousands` and `report::labels::plural` re-export them
//! so analysis (which must not import `report`) and reports say counts
//! the same way.

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 person`, `2 people`, `0 turns`: a count and its noun, with
/// thousands separators.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    let count = thousands(n);
    if n == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_nouns() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(plural(1, "turn", "turns"), "1 turn");
        assert_eq!(plural(0, "turn", "turns"), "0 turns");
        assert_eq!(plural(1200, "person", "people"), "1,200 people");
    }
}
