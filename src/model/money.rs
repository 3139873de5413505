//! Dollar amounts: their sum. `sum` adds from +0.0, so an empty or
//! all-zero total is `0.0`, never the `-0.0` that `Iterator::sum` over
//! `f64` gives for nothing (which JSON prints as `-0.0`). How an amount
//! reads is `model::format::usd`.

/// The sum of `amounts`, `0.0` (not `-0.0`) when there are none.
pub fn sum<I: IntoIterator<Item = f64>>(amounts: I) -> f64 {
    amounts.into_iter().fold(0.0, |a, b| a + b) + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_have_no_negative_zero() {
        let none: [f64; 0] = [];
        assert!(sum(none).is_sign_positive());
        assert!(sum([-0.0, -0.0]).is_sign_positive());
        assert_eq!(sum([1.5, -0.5, 2.0]), 3.0);
        assert_eq!(serde_json::to_string(&sum(none)).unwrap(), "0.0");
    }
}
