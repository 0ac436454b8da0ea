//! [`StorageKey`]: an object name that is safe on every backend.

use super::StorageError;

/// Longest accepted key, in bytes. S3 allows 1,024; half leaves room for a prefix.
const MAX_KEY_LEN: usize = 512;

/// A validated object key such as `ab/ab12…/original.jpg`.
///
/// Keys are relative, `/`-separated segments of ASCII letters, digits, `.`, `_` and `-`. No
/// segment is empty or starts with `.`, so `..`, absolute paths, hidden files and the local
/// backend's staging files (`name#1`) can never be named: a key always maps inside the storage
/// root, on a file system as well as in a bucket.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StorageKey(String);

impl StorageKey {
    /// Validates `key`.
    pub fn new(key: impl Into<String>) -> Result<Self, StorageError> {
        let key = key.into();
        match check(&key) {
            Ok(()) => Ok(Self(key)),
            Err(reason) => Err(StorageError::InvalidKey { key, reason }),
        }
    }

    /// The key as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for StorageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<&str> for StorageKey {
    type Error = StorageError;

    fn try_from(key: &str) -> Result<Self, Self::Error> {
        Self::new(key)
    }
}

fn check(key: &str) -> Result<(), &'static str> {
    if key.is_empty() {
        return Err("empty");
    }
    if key.len() > MAX_KEY_LEN {
        return Err("longer than 512 bytes");
    }
    if key.starts_with('/') {
        return Err("absolute");
    }
    for segment in key.split('/') {
        if segment.is_empty() {
            return Err("empty segment");
        }
        if segment.starts_with('.') {
            return Err("segment starting with '.'");
        }
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Err("characters other than A-Z a-z 0-9 . _ - /");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::StorageKey;

    #[test]
    fn accepts_and_rejects() {
        for ok in ["a", "ab/cd/original.jpg", "x-1_2.webp", "a/b/c/d"] {
            assert!(StorageKey::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "/abs", "../x", "a/../b", "a/./b", "a//b", "a/", ".hidden", "a#1", "a\\b", "c:x",
            "é", "a b",
        ] {
            assert!(StorageKey::new(bad).is_err(), "{bad:?}");
        }
        assert!(StorageKey::new("a".repeat(513)).is_err());
    }
}
