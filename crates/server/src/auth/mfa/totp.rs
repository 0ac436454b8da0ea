//! TOTP (RFC 6238) as GoTrue configures it: SHA-1, 6 digits, 30-second steps, one step of
//! skew either way. Codes and otpauth URIs come from `totp-rs`; the enrolment QR code is drawn
//! as SVG by `qrcode`.

use qrcode::QrCode;
use qrcode::render::svg;
use rand::RngCore;
use totp_rs::{Algorithm, Secret, Totp};

/// Bytes of a new secret (160 bits, as RFC 4226 recommends).
const SECRET_BYTES: usize = 20;

/// A new random secret, base32 (what authenticator apps take when typed by hand).
pub fn new_secret() -> String {
    let mut bytes = vec![0u8; SECRET_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    Secret::new(bytes.into_boxed_slice()).to_base32()
}

fn totp(secret_base32: &str, issuer: &str, account: &str) -> Option<Totp> {
    let secret = Secret::try_from_base32(secret_base32).ok()?;
    totp_rs::Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(6)
        .with_skew(1)
        .with_step_duration(30)
        .with_secret(secret)
        // A colon would break the otpauth label; nothing else in an email or host does.
        .with_issuer(Some(issuer.replace(':', "")))
        .with_account_name(account.replace(':', ""))
        .build()
        .ok()
}

/// The `otpauth://totp/...` URI of a secret.
pub fn uri(secret_base32: &str, issuer: &str, account: &str) -> Option<String> {
    totp(secret_base32, issuer, account)?.to_url().ok()
}

/// The time step (30-second period number) whose code is `code`, within one step of `unix_secs`.
pub fn matching_step(secret_base32: &str, code: &str, unix_secs: u64) -> Option<i64> {
    let totp = totp(secret_base32, "regard", "user")?;
    let step = totp.check(code.trim(), unix_secs)?;
    i64::try_from(step).ok()
}

/// The QR code of `text` as SVG text, black on white. Named colours rather than `#rrggbb`:
/// auth-js puts the SVG into a `data:` URI as is, where `#` would end the data.
pub fn qr_svg(text: &str) -> Option<String> {
    let code = QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<svg::Color<'_>>()
            .min_dimensions(200, 200)
            .dark_color(svg::Color("black"))
            .light_color(svg::Color("white"))
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B's SHA-1 secret ("12345678901234567890"), base32.
    const RFC_SECRET: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

    #[test]
    fn codes_match_rfc_6238_vectors_within_one_step() {
        // RFC 6238 gives 8-digit codes; the 6-digit code is their last six digits.
        assert_eq!(matching_step(RFC_SECRET, "287082", 59), Some(1));
        assert_eq!(
            matching_step(RFC_SECRET, "081804", 1_111_111_109),
            Some(37_037_036)
        );
        // One step before and after are accepted, two are not.
        assert_eq!(
            matching_step(RFC_SECRET, "081804", 1_111_111_109 + 30),
            Some(37_037_036)
        );
        assert_eq!(
            matching_step(RFC_SECRET, "081804", 1_111_111_109 + 60),
            None
        );
        assert_eq!(matching_step(RFC_SECRET, "000000", 59), None);
        assert_eq!(matching_step(RFC_SECRET, "abc", 59), None);
    }

    #[test]
    fn uri_and_qr_code_carry_the_secret() {
        let secret = new_secret();
        assert_eq!(secret.len(), 32);
        let uri = uri(&secret, "regard.example", "ada@example.com").unwrap();
        assert!(
            uri.starts_with("otpauth://totp/regard.example:ada%40example.com?"),
            "{uri}"
        );
        assert!(uri.contains(&format!("secret={secret}")));
        let svg = qr_svg(&uri).unwrap();
        assert!(svg.starts_with("<?xml") || svg.starts_with("<svg"));
        assert!(!svg.contains('#'));
    }
}
