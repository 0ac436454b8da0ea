//! Recovery codes for two-step verification: ten single-use codes, shown once when made, that
//! stand in for the authenticator's code at the code screen (`POST /factors/{id}/verify` with
//! a recovery code as `code`), so a lost phone does not lock the account. Made anew by
//! `POST /api/v1/account/recovery-codes`, which voids the previous set.
//!
//! A code is 12 characters of Crockford's base 32 (60 random bits), shown as `xxxx-xxxx-xxxx`.
//! What people type is read leniently: any case, dashes and spaces anywhere, and the letters
//! Crockford maps to digits (`o` → `0`, `i` and `l` → `1`).

use rand::Rng;

use super::seal::Sealer;

/// Codes in a set.
pub const COUNT: usize = 10;

/// Characters of a code: 60 bits over 12 characters.
const LENGTH: usize = 12;

/// Crockford's base 32 in lower case: no `i`, `l`, `o` or `u`, which read like others.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A new random code, as shown: `xxxx-xxxx-xxxx`.
pub fn generate() -> String {
    let mut rng = rand::rng();
    let mut code = String::with_capacity(LENGTH + 2);
    for i in 0..LENGTH {
        if i > 0 && i % 4 == 0 {
            code.push('-');
        }
        code.push(char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]));
    }
    code
}

/// The code people typed in its canonical form (12 characters, no dashes), or `None` when it
/// cannot be a recovery code (an authenticator's six digits among them).
pub fn normalize(typed: &str) -> Option<String> {
    let mut code = String::with_capacity(LENGTH);
    for c in typed.chars() {
        let c = match c.to_ascii_lowercase() {
            '-' | ' ' | '\u{a0}' => continue,
            'o' => '0',
            'i' | 'l' => '1',
            c if c.is_ascii() && ALPHABET.contains(&(c as u8)) => c,
            _ => return None,
        };
        code.push(c);
    }
    (code.len() == LENGTH).then_some(code)
}

/// The stored form of a user's code: a keyed hash, bound to the user.
pub fn hash(sealer: &Sealer, user_id: &str, canonical: &str) -> String {
    sealer.keyed_hash(&["recovery code", user_id, canonical])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_codes_read_back_and_differ() {
        let a = generate();
        assert_eq!(a.len(), 14);
        assert_eq!(a.matches('-').count(), 2);
        assert_eq!(normalize(&a).unwrap(), a.replace('-', ""));
        assert_ne!(generate(), a);
    }

    #[test]
    fn typing_is_read_leniently() {
        let cases = [
            ("ab12-cd34-ef56", Some("ab12cd34ef56")),
            ("AB12 CD34 EF56", Some("ab12cd34ef56")),
            ("ab12cd34ef56", Some("ab12cd34ef56")),
            ("  aB12-cD34-eF56 ", Some("ab12cd34ef56")),
            // Letters that read like digits are those digits.
            ("oIl1-0000-0000", Some("011100000000")),
            // Not a recovery code: an authenticator's code, too short or long, a `u`.
            ("123456", None),
            ("ab12-cd34-ef5", None),
            ("ab12-cd34-ef567", None),
            ("ab12-cd34-ef5u", None),
            ("ab12-cd34-ef5é", None),
        ];
        for (typed, expected) in cases {
            assert_eq!(normalize(typed).as_deref(), expected, "{typed:?}");
        }
    }

    #[test]
    fn hashes_are_bound_to_the_user() {
        let sealer = Sealer::from_secret(b"secret");
        assert_ne!(
            hash(&sealer, "user-a", "ab12cd34ef56"),
            hash(&sealer, "user-b", "ab12cd34ef56")
        );
    }
}
