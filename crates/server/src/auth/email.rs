//! Email addresses: normalisation (trim, Unicode NFC, lowercase) and a format check in the
//! spirit of GoTrue's `validateEmail`. NFC first, so that the composed and decomposed spellings
//! of `josé@example.com` are one address (one account), whichever form a keyboard or a
//! clipboard produced; control and bidirectional-formatting characters are refused, as they
//! make an address display as another.

use super::error::AuthError;

/// The longest address accepted (GoTrue's limit).
const MAX_EMAIL_LENGTH: usize = 255;

/// A normalised, plausibly valid email address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// Trims, composes (NFC) and lowercases without validating (for sign-in lookups).
    pub fn normalise(raw: &str) -> String {
        use unicode_normalization::UnicodeNormalization;
        raw.trim().nfc().collect::<String>().to_lowercase()
    }

    /// Normalises and validates; 400 `validation_failed` with GoTrue's messages otherwise.
    pub fn parse(raw: &str) -> Result<Self, AuthError> {
        let email = Self::normalise(raw);
        if email.is_empty() {
            return Err(AuthError::validation("An email address is required"));
        }
        if email.len() > MAX_EMAIL_LENGTH {
            return Err(AuthError::validation("An email address is too long"));
        }
        if !looks_valid(&email) {
            return Err(AuthError::validation(
                "Unable to validate email address: invalid format",
            ));
        }
        Ok(Email(email))
    }

    /// The normalised address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `local@domain.tld`: one `@`, no spaces or control characters, a dotted domain whose labels
/// are non-empty and made of letters, digits and hyphens.
fn looks_valid(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    if local.is_empty() || local.len() > 64 || domain.contains('@') {
        return false;
    }
    if email.chars().any(crate::text::is_bidi_control) {
        return false;
    }
    if local
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\\\"".contains(c))
    {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_and_validates() {
        assert_eq!(
            Email::parse("  Ada@Example.COM ").unwrap().as_str(),
            "ada@example.com"
        );
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "a b@example.com",
            "ada@exa..com",
            "a@b@c.com",
            "ada\u{202E}moc@example.com",
            "ada@exam\u{2067}ple.com",
            "ada\u{200F}@example.com",
            "ad\u{0007}a@example.com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn composed_and_decomposed_spellings_are_one_address() {
        let composed = "Jos\u{00E9}@Example.com";
        let decomposed = "Jose\u{0301}@example.com";
        assert_ne!(composed.to_lowercase(), decomposed.to_lowercase());
        assert_eq!(
            Email::parse(composed).unwrap(),
            Email::parse(decomposed).unwrap()
        );
        assert_eq!(Email::normalise(decomposed), "jos\u{00E9}@example.com");
    }
}
