//! The push server's tokens file: which bearer token belongs to which user.
//! The token, never the bundle, decides whose rows an upload holds. Tokens
//! are kept as SHA-256 digests and compared in constant time (`subtle`), all
//! of them on every request, so timing tells nothing about which or how much
//! of a token matched. Hands on the user name to `server::accept_bundle`.
//!
//! Format (TOML):
//!
//! ```toml
//! [tokens]
//! "3f9c0e...64 hex digits" = "alice"
//! "b71d2a...another token" = "bob"
//! ```

use super::TeamError;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// Shortest token accepted in a tokens file.
pub const MIN_TOKEN_LEN: usize = 16;

#[derive(serde::Deserialize)]
struct TokensFile {
    tokens: BTreeMap<String, String>,
}

/// Token digests and their users.
#[derive(Clone, Default)]
pub struct TokenMap {
    entries: Vec<([u8; 32], String)>,
}

impl std::fmt::Debug for TokenMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenMap({} tokens)", self.entries.len())
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenMap {
    /// A map from (token, user) pairs.
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> TokenMap {
        TokenMap { entries: pairs.into_iter().map(|(t, u)| (digest(t), u.to_owned())).collect() }
    }

    /// Reads a tokens file; refuses empty users and short tokens.
    pub fn load(path: &Path) -> Result<TokenMap, TeamError> {
        let bad = |why: String| TeamError::Tokens { path: path.to_path_buf(), why };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let file: TokensFile = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
        for (token, user) in &file.tokens {
            if user.trim().is_empty() {
                return Err(bad("a token maps to an empty user".into()));
            }
            if token.len() < MIN_TOKEN_LEN {
                return Err(bad(format!(
                    "the token of {user} is shorter than {MIN_TOKEN_LEN} characters (use e.g. `openssl rand -hex 32`)"
                )));
            }
        }
        if file.tokens.is_empty() {
            return Err(bad("no tokens under [tokens]".into()));
        }
        Ok(TokenMap::new(file.tokens.iter().map(|(t, u)| (t.as_str(), u.as_str()))))
    }

    /// The user of a presented token, comparing against every entry in
    /// constant time.
    pub fn user_for(&self, presented: &str) -> Option<&str> {
        let d = digest(presented);
        let mut found = u32::MAX;
        for (i, (known, _)) in self.entries.iter().enumerate() {
            let idx = u32::try_from(i).unwrap_or(u32::MAX);
            found = u32::conditional_select(&found, &idx, known.ct_eq(&d));
        }
        self.entries.get(found as usize).map(|(_, u)| u.as_str())
    }

    /// The user of an `Authorization: Bearer <token>` header value.
    pub fn authorize(&self, header: Option<&str>) -> Result<&str, TeamError> {
        let token = header.and_then(bearer).ok_or(TeamError::Unauthorized)?;
        self.user_for(token).ok_or(TeamError::Unauthorized)
    }
}

/// The token of a `Bearer` authorization value (scheme case-insensitive).
pub fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_tokens_to_users_and_refuses_others() {
        let m = TokenMap::new([("alice-token-0123456789", "alice"), ("bob-token-0123456789ab", "bob")]);
        assert_eq!(m.authorize(Some("Bearer bob-token-0123456789ab")).unwrap(), "bob");
        assert_eq!(m.authorize(Some("bearer  alice-token-0123456789")).unwrap(), "alice");
        assert!(m.authorize(Some("Bearer alice-token-012345678")).is_err());
        assert!(m.authorize(Some("Basic alice-token-0123456789")).is_err());
        assert!(m.authorize(None).is_err());
    }

    #[test]
    fn file_format_and_checks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tokens.toml");
        std::fs::write(&p, "[tokens]\n\"0123456789abcdef0123\" = \"alice\"\n").unwrap();
        assert_eq!(TokenMap::load(&p).unwrap().user_for("0123456789abcdef0123"), Some("alice"));
        std::fs::write(&p, "[tokens]\n\"short\" = \"alice\"\n").unwrap();
        assert!(TokenMap::load(&p).unwrap_err().to_string().contains("shorter than 16"));
    }
}
