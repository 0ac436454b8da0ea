//! Small text rules shared by the auth and API layers.

/// Unicode's bidirectional formatting characters (marks, embeddings, overrides, isolates):
/// invisible, they reorder what is displayed around them, so `invoice\u{202E}gpj.exe` shows as
/// `invoiceexe.jpg`. Refused in addresses, removed from file names.
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_isolates_are_bidi_controls_and_letters_are_not() {
        for c in ['\u{202E}', '\u{2066}', '\u{2069}', '\u{200F}', '\u{061C}'] {
            assert!(is_bidi_control(c), "{c:?}");
        }
        for c in ['a', 'é', 'ש', 'ع', ' ', '-'] {
            assert!(!is_bidi_control(c), "{c:?}");
        }
    }
}
