//! GPS position from a raw EXIF block (TIFF structure), parsed with `kamadak-exif`.

use exif::{In, Reader, Tag, Value};

use super::GpsCoordinates;

/// Degrees, minutes and seconds as three rationals → decimal degrees.
fn degrees(value: &Value) -> Option<f64> {
    let Value::Rational(parts) = value else {
        return None;
    };
    let [d, m, s] = parts.get(..3)? else {
        return None;
    };
    if d.denom == 0 || m.denom == 0 || s.denom == 0 {
        return None;
    }
    Some(d.to_f64() + m.to_f64() / 60.0 + s.to_f64() / 3600.0)
}

/// The hemisphere letter of a `GPSLatitudeRef`/`GPSLongitudeRef` field.
fn hemisphere(value: &Value) -> Option<u8> {
    match value {
        Value::Ascii(strings) => strings.first()?.first().copied(),
        _ => None,
    }
}

/// Reads latitude and longitude, signed by hemisphere. `None` when either is missing or out of
/// range (cameras without a fix sometimes write zeros with no reference, or garbage).
pub(super) fn gps_from_exif(raw: &[u8]) -> Option<GpsCoordinates> {
    let exif = Reader::new().read_raw(raw.to_vec()).ok()?;
    let field = |tag| exif.get_field(tag, In::PRIMARY).map(|f| &f.value);
    let mut latitude = degrees(field(Tag::GPSLatitude)?)?;
    let mut longitude = degrees(field(Tag::GPSLongitude)?)?;
    match hemisphere(field(Tag::GPSLatitudeRef)?)? {
        b'N' | b'n' => {}
        b'S' | b's' => latitude = -latitude,
        _ => return None,
    }
    match hemisphere(field(Tag::GPSLongitudeRef)?)? {
        b'E' | b'e' => {}
        b'W' | b'w' => longitude = -longitude,
        _ => return None,
    }
    let plausible = latitude.is_finite()
        && longitude.is_finite()
        && latitude.abs() <= 90.0
        && longitude.abs() <= 180.0;
    plausible.then_some(GpsCoordinates {
        latitude,
        longitude,
    })
}
